/**
 * A rich regtest chain built on the reference bitcoind (its wallet signs everything), for
 * the differential suite: coins of every script type (P2PK, bare multisig, P2PKH, P2SH
 * multisig, P2SH-P2WPKH, P2WPKH, P2WSH multisig, P2SH-P2WSH, a miniscript P2WSH with a
 * relative lock, P2TR key path and script paths, OP_RETURN) created and then spent, a
 * stale branch, and a mempool with chains, a full-RBF replacement, a TRUC pair and a
 * prioritised transaction. Every block (stale ones too) and every pool transaction
 * (replaced ones too) is recorded in the order the builder produced them, so other nodes
 * replay exactly the same history through submitblock and sendrawtransaction.
 */
import { randomBytes } from 'node:crypto';
import { encodeBase58Check } from '../../src/script/index.js';
import { BitcoindProcess } from '../integration/bitcoind-process.js';

/** BIP341's provably unspendable internal key: only the leaves can spend. */
const NUMS_KEY = '50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0';
/** The builder's clock: a fixed start, one block every ten minutes. */
export const START_TIME = 1_780_000_000;

export interface RichChain {
  /** Every block as bitcoind produced it, stale branch included, in production order. */
  readonly blocks: readonly string[];
  /** Pool transactions in submission order (a replaced one before its replacement). */
  readonly mempool: readonly string[];
  /** prioritisetransaction calls made after the pool was filled: [txid, delta]. */
  readonly prioritisations: readonly (readonly [string, number])[];
  /** The mock time every node runs at once the history is replayed. */
  readonly mocktime: number;
  /** Addresses of each type the chain pays (type → address). */
  readonly addresses: Readonly<Record<string, string>>;
  /** Public descriptors (with checksums) of the chain's script types, miniscript included. */
  readonly descriptors: readonly string[];
  /** Hex scriptPubKeys of the bare outputs (P2PK, bare multisig). */
  readonly bareScripts: readonly string[];
}

/** An amount in BTC with at most eight decimals, as RPC accepts it. */
const btc = (value: number): number => Number(value.toFixed(8));

/** A random testnet WIF key (compressed). */
function randomWif(): string {
  return encodeBase58Check(Buffer.concat([Buffer.of(0xef), randomBytes(32), Buffer.of(0x01)]));
}

/** The pushes and opcodes of a bare script from public keys. */
function p2pkScript(pubkey: string): string {
  return `21${pubkey}ac`;
}

function bareMultisigScript(required: number, pubkeys: readonly string[]): string {
  return `${(0x50 + required).toString(16)}${pubkeys.map((k) => `21${k}`).join('')}${(0x50 + pubkeys.length).toString(16)}ae`;
}

export async function buildRichChain(bitcoind: string): Promise<RichChain> {
  const node = await BitcoindProcess.start(bitcoind, ['-connect=0', '-fallbackfee=0.0002']);
  const blocks: string[] = [];
  const mempool: string[] = [];
  let clock = START_TIME;
  const call = <T = any>(method: string, params: unknown[] = []) => node.call<T>(method, params);
  try {
    await call('setmocktime', [clock]);
    await call('createwallet', ['builder']);
    const mine = async (n: number, address?: string): Promise<string[]> => {
      const to = address ?? (await call<string>('getnewaddress', ['', 'bech32']));
      const hashes: string[] = [];
      for (let i = 0; i < n; i++) {
        clock += 600;
        await call('setmocktime', [clock]);
        const [hash] = await call<string[]>('generatetoaddress', [1, to]);
        blocks.push(await call<string>('getblock', [hash, 0]));
        hashes.push(hash!);
      }
      return hashes;
    };
    /** Sends a signed raw transaction and records it. */
    const broadcast = async (hex: string): Promise<string> => {
      const txid = await call<string>('sendrawtransaction', [hex, 0]);
      mempool.push(hex);
      return txid;
    };
    const signed = async (hex: string): Promise<string> => {
      const result = await call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', [hex]);
      if (!result.complete) throw new Error(`the builder wallet could not sign ${hex}`);
      return result.hex;
    };
    /** A wallet payment recorded as it leaves (sendtoaddress and friends write to the pool). */
    const recordWalletTx = async (txid: string) => mempool.push((await call<{ hex: string }>('gettransaction', [txid])).hex);

    await mine(110, await call<string>('getnewaddress', ['', 'bech32m']));

    // Descriptors over keys of our own (WIF), imported with their private keys so the wallet signs.
    const wifs = Array.from({ length: 16 }, randomWif);
    const privateDescriptors: Record<string, string> = {
      p2pk: `pk(${wifs[0]})`,
      bareMultisig: `multi(1,${wifs[1]},${wifs[2]})`,
      p2pkh: `pkh(${wifs[3]})`,
      p2shMultisig: `sh(multi(2,${wifs[4]},${wifs[5]},${wifs[6]}))`,
      p2shP2wpkh: `sh(wpkh(${wifs[7]}))`,
      p2wshMultisig: `wsh(multi(2,${wifs[8]},${wifs[9]}))`,
      p2shP2wsh: `sh(wsh(sortedmulti(1,${wifs[10]},${wifs[11]})))`,
      miniscript: `wsh(and_v(v:pk(${wifs[12]}),older(2)))`,
      taprootScripts: `tr(${NUMS_KEY},{pk(${wifs[13]}),pk(${wifs[14]})})`,
      p2wpkh: `wpkh(${wifs[15]})`,
    };
    const requests = [];
    const publicDescriptors: Record<string, string> = {};
    for (const [name, desc] of Object.entries(privateDescriptors)) {
      const info = await call<{ descriptor: string; checksum: string }>('getdescriptorinfo', [desc]);
      publicDescriptors[name] = info.descriptor;
      requests.push({ desc: `${desc}#${info.checksum}`, timestamp: 'now', internal: false });
    }
    const imported = await call<{ success: boolean; error?: unknown }[]>('importdescriptors', [requests]);
    if (!imported.every((r) => r.success)) throw new Error(`importdescriptors failed: ${JSON.stringify(imported)}`);

    const addresses: Record<string, string> = {
      legacy: await call<string>('getnewaddress', ['', 'legacy']),
      'p2sh-segwit': await call<string>('getnewaddress', ['', 'p2sh-segwit']),
      bech32: await call<string>('getnewaddress', ['', 'bech32']),
      bech32m: await call<string>('getnewaddress', ['', 'bech32m']),
    };
    for (const [name, desc] of Object.entries(publicDescriptors)) {
      if (name === 'p2pk' || name === 'bareMultisig') continue;
      addresses[name] = (await call<string[]>('deriveaddresses', [desc]))[0]!;
    }
    const keyOf = (desc: string) => /\(([0-9a-f]{66})\)/.exec(desc)![1]!;
    const bareScripts = [p2pkScript(keyOf(publicDescriptors.p2pk!)), bareMultisigScript(1, [...publicDescriptors.bareMultisig!.matchAll(/[0-9a-f]{66}/g)].map((m) => m[0]))];

    // Pay every address twice and every bare script once, plus an OP_RETURN, in a few blocks.
    for (let round = 0; round < 2; round++) {
      const outputs: Record<string, number> = {};
      Object.values(addresses).forEach((a, i) => (outputs[a] = btc(1 + i / 10 + round / 100)));
      await recordWalletTx(await call<string>('sendmany', ['', outputs]));
      await mine(1);
    }
    for (const script of bareScripts) {
      // A funded payment to a placeholder address, its output then swapped for the bare script.
      const placeholder = await call<string>('getnewaddress', ['', 'bech32']);
      const raw = await call<string>('createrawtransaction', [[], [{ [placeholder]: 2.5 }, { data: 'deadbeef' }]]);
      const funded = await call<{ hex: string }>('fundrawtransaction', [raw, { changePosition: 2 }]);
      const placeholderScript = (await call<{ scriptPubKey: string }>('getaddressinfo', [placeholder])).scriptPubKey;
      const swapped = funded.hex.replace(`${(placeholderScript.length / 2).toString(16).padStart(2, '0')}${placeholderScript}`, `${(script.length / 2).toString(16).padStart(2, '0')}${script}`);
      await broadcast(await signed(swapped));
    }
    await mine(3);

    // Spend every imported type's coins (the miniscript one needs nSequence 2, two blocks after it confirmed).
    const typeOfScript = new Map<string, string>();
    for (const [type, address] of Object.entries(addresses)) typeOfScript.set((await call<{ scriptPubKey: string }>('getaddressinfo', [address])).scriptPubKey, type);
    for (const script of bareScripts) typeOfScript.set(script, 'bare');
    const unspent = await call<{ txid: string; vout: number; amount: number; scriptPubKey: string }[]>('listunspent', [1, 9999]);
    const change = await call<string>('getnewaddress', ['', 'bech32']);
    for (const coin of unspent) {
      const type = typeOfScript.get(coin.scriptPubKey);
      if (!type) continue;
      const sequence = type === 'miniscript' ? 2 : 0xfffffffd;
      const amount = btc(coin.amount - 0.0002);
      const raw = await call<string>('createrawtransaction', [[{ txid: coin.txid, vout: coin.vout, sequence }], [{ [change]: amount }]]);
      await broadcast(await signed(raw));
    }
    await mine(2);

    // A stale branch: the last two blocks are replaced by three others.
    const height = await call<number>('getblockcount');
    const staleFirst = await call<string>('getblockhash', [height - 1]);
    await recordWalletTx(await call<string>('sendtoaddress', [addresses.bech32m, 0.75]));
    await call('invalidateblock', [staleFirst]);
    await mine(3, addresses.legacy);
    await call('reconsiderblock', [staleFirst]);

    // Everything so far is in blocks; what follows stays in the pool (or is replaced there).
    mempool.length = 0;
    // The pool: a chain of unconfirmed payments, a replaced one, a TRUC parent and child, a prioritised one.
    for (let i = 0; i < 6; i++) await recordWalletTx(await call<string>('sendtoaddress', [Object.values(addresses)[i % 8]!, btc(0.1 + i / 100)]));
    const toReplace = await call<string>('sendtoaddress', [addresses.bech32, 0.3]);
    await recordWalletTx(toReplace);
    const bumped = await call<{ txid: string }>('bumpfee', [toReplace]);
    await recordWalletTx(bumped.txid);
    const trucRaw = await call<string>('createrawtransaction', [[], [{ [addresses.bech32m]: 0.2 }], 0, true, 3]);
    const trucFunded = await call<{ hex: string }>('fundrawtransaction', [trucRaw, { changePosition: 1 }]);
    const trucParent = await broadcast(await signed(trucFunded.hex));
    const trucParentTx = await call<{ vout: { value: number; n: number }[] }>('getrawtransaction', [trucParent, 1]);
    const childRaw = await call<string>('createrawtransaction', [[{ txid: trucParent, vout: 0 }], [{ [change]: btc(trucParentTx.vout[0]!.value - 0.0001) }], 0, true, 3]);
    await broadcast(await signed(childRaw));
    const prioritised = await call<string>('sendtoaddress', [addresses.p2pkh, 0.05]);
    await recordWalletTx(prioritised);

    return {
      blocks,
      mempool,
      prioritisations: [[prioritised, 12_345]],
      mocktime: clock,
      addresses,
      descriptors: Object.values(publicDescriptors),
      bareScripts,
    };
  } finally {
    await node.stop();
  }
}

/** Replays the history into a node: blocks, then (at the builder's clock) pool transactions and prioritisations. */
export async function replayRichChain(chain: RichChain, call: (method: string, params: unknown[]) => Promise<unknown>): Promise<void> {
  await call('setmocktime', [chain.mocktime]);
  for (const hex of chain.blocks) {
    const result = await call('submitblock', [hex]);
    if (result !== null && result !== 'inconclusive') throw new Error(`submitblock answered ${JSON.stringify(result)}`);
  }
  for (const hex of chain.mempool) await call('sendrawtransaction', [hex, 0]);
  for (const [txid, delta] of chain.prioritisations) await call('prioritisetransaction', [txid, 0, delta]);
}
