/**
 * tsbtcd as a peer of Bitcoin Core v31.0 on regtest, over real sockets. A bitcoind with a
 * wallet (A) builds a chain of more than 1,500 blocks whose transactions spend P2WPKH,
 * P2TR key-path, P2TR script-path and P2SH 2-of-2 multisig coins. Then, in order:
 *  - a fresh tsbtcd -connect'ed to A syncs it: same tip, same hash_serialized_3;
 *  - a fresh bitcoind (B) -connect'ed to tsbtcd syncs from it: same tip and UTXO hash;
 *  - transactions relay both ways by wtxid (A → tsbtcd → B, B → tsbtcd → A);
 *  - blocks relay both ways as BIP152 compact blocks rebuilt from the mempool (no
 *    getblocktxn, no full block), high-bandwidth mode on both sides;
 *  - a reorg made on A is followed, and the disconnected transactions return to
 *    tsbtcd's mempool;
 *  - getpeerinfo, getnetworkinfo, getnettotals, getaddednodeinfo and listbanned have
 *    bitcoind's keys, types and order.
 * Skipped with one line when there is no reference bitcoind.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { encodeExtPrivKey, extKeyFromSeed } from '../../src/script/index.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, waitFor } from './daemon-harness.js';

const reference = referenceBitcoind();
const skip = 'missing' in reference ? reference.missing : false;
/** BIP341's provably unspendable internal key: a tr() output with it spends by script path only. */
const NUMS = '50929b74c1a04954b78b4b6035e97a5e078a5a0f28ec96d547bfee9ace803ac0';
const TARGET_HEIGHT = 1510;

let a: BitcoindProcess | undefined;
let b: BitcoindProcess | undefined;
let ts: Daemon | undefined;

async function tsCall<T = any>(method: string, params: unknown[] = []): Promise<T> {
  const r = await ts!.rpc(method, params);
  if (r.json?.error) throw new Error(`${method}: ${JSON.stringify(r.json.error)}`);
  return r.json.result as T;
}

function tprv(seedByte: number): string {
  return encodeExtPrivKey(extKeyFromSeed(new Uint8Array(32).fill(seedByte))!, 'regtest');
}

/** Spend kinds seen in the chain's inputs, from bitcoind's getblock verbosity 3. */
async function spendKinds(node: BitcoindProcess, from: number, to: number): Promise<Map<string, number>> {
  const kinds = new Map<string, number>();
  for (let h = from; h <= to; h++) {
    const block = await node.call('getblock', [await node.call('getblockhash', [h]), 3]);
    for (const tx of block.tx.slice(1)) {
      for (const vin of tx.vin) {
        const type: string = vin.prevout.scriptPubKey.type;
        const kind = type === 'witness_v1_taproot' ? (vin.txinwitness.length > 1 ? 'p2tr-script' : 'p2tr-key') : type;
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
    }
  }
  return kinds;
}

async function sameTip(label: string, x: () => Promise<string>, y: () => Promise<string>, timeoutMs = 120_000): Promise<string> {
  return waitFor(label, async () => {
    const [p, q] = await Promise.all([x(), y()]);
    return p === q ? p : undefined;
  }, timeoutMs);
}

function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (value !== null && typeof value === 'object') return Object.entries(value).map(([k, v]) => [k, k.endsWith('_per_msg') ? 'object' : shape(v)]);
  return typeof value;
}

before(async () => {
  if (skip) return;
  a = await BitcoindProcess.start((reference as { path: string }).path, ['-fallbackfee=0.0002', '-listen=1', '-debug=net', '-debug=cmpctblock']);
  await a.call('createwallet', ['w']);
  const descriptors = [`sh(multi(2,${tprv(1)}/0/*,${tprv(2)}/0/*))`, `tr(${NUMS},pk(${tprv(3)}/0/*))`];
  const withChecksum = await Promise.all(descriptors.map(async (d) => (await a!.call('getdescriptorinfo', [d])).checksum as string));
  const imported = await a.call('importdescriptors', [descriptors.map((d, i) => ({ desc: `${d}#${withChecksum[i]}`, timestamp: 'now', range: [0, 200], active: false }))]);
  assert.ok(imported.every((r: { success: boolean }) => r.success), JSON.stringify(imported));
  const [multisig, scriptPath] = await Promise.all(descriptors.map(async (d, i) => (await a!.call<string[]>('deriveaddresses', [`${d}#${withChecksum[i]}`, [0, 200]]))));
  const p2wpkh = await a.call<string>('getnewaddress', ['', 'bech32']);
  await a.call('generatetoaddress', [120, p2wpkh]);
  let next = 0;
  const destinations = async (): Promise<Record<string, number>> => {
    const out: Record<string, number> = {};
    for (let i = 0; i < 3; i++) {
      out[multisig![next % 200]!] = 0.3;
      out[scriptPath![next % 200]!] = 0.3;
      out[await a!.call<string>('getnewaddress', ['', 'bech32m'])] = 0.3;
      out[await a!.call<string>('getnewaddress', ['', 'bech32'])] = 0.3;
      next++;
    }
    return out;
  };
  // Rounds of fan-out, then spends of each kind by explicit inputs.
  for (let round = 0; round < 6; round++) {
    await a.call('sendmany', ['', await destinations()]);
    await a.call('generatetoaddress', [1, p2wpkh]);
    const unspent = await a.call<{ txid: string; vout: number; desc: string; amount: number }[]>('listunspent', [1]);
    const pick = (prefix: string) => unspent.filter((u) => u.desc.startsWith(prefix) && u.amount >= 0.2).slice(0, 2);
    for (const group of [pick('sh(multi('), pick('tr(' + NUMS), pick('tr(['), pick('wpkh(')]) {
      for (const u of group) {
        const to = await a.call<string>('getnewaddress', ['', round % 2 ? 'bech32m' : 'bech32']);
        // sendall spends exactly the given coin: the spend kind is the coin's.
        await a.call('sendall', [[to], null, 'unset', null, { inputs: [{ txid: u.txid, vout: u.vout }] }]);
      }
    }
    await a.call('generatetoaddress', [1, p2wpkh]);
  }
  const height = await a.call<number>('getblockcount');
  await a.call('generatetoaddress', [TARGET_HEIGHT - height, p2wpkh]);
  ts = await Daemon.start({ args: [`-connect=${a.p2pAddress}`, '-debug=net', '-debug=cmpctblock', '-debug=mempool'], readyTimeoutMs: 60_000 });
});

after(async () => {
  await ts?.cleanup();
  await Promise.all([a?.stop(), b?.stop()]);
});

test('a fresh tsbtcd syncs a 1,500-block chain of P2WPKH, P2TR key/script-path and P2SH multisig spends from bitcoind', { skip }, async () => {
  const kinds = await spendKinds(a!, 121, 135);
  for (const kind of ['witness_v0_keyhash', 'p2tr-key', 'p2tr-script', 'scripthash']) assert.ok((kinds.get(kind) ?? 0) > 0, `chain spends ${kind}: ${JSON.stringify([...kinds])}`);
  const tip = await sameTip('tsbtcd to reach bitcoind A\'s tip', () => a!.call('getbestblockhash'), () => tsCall('getbestblockhash'), 180_000);
  assert.equal(await tsCall('getblockcount'), TARGET_HEIGHT);
  assert.equal(tip, await a!.call('getblockhash', [TARGET_HEIGHT]));
  // Each RPC call may reach another front-end process: ask until one answers at the tip.
  const ours = await waitFor('gettxoutsetinfo at the tip', async () => {
    const info = await tsCall('gettxoutsetinfo');
    return info.bestblock === tip ? info : undefined;
  });
  const theirs = await a!.call('gettxoutsetinfo');
  if (ours.hash_serialized_3 !== theirs.hash_serialized_3) assert.fail(`UTXO sets differ: ${JSON.stringify(await utxoDifferences())}\nours ${JSON.stringify(ours)}\ntheirs ${JSON.stringify(theirs)}`);
  assert.equal(ours.txouts, theirs.txouts);
});

/** Every output of A's chain whose gettxout answer differs between A and tsbtcd (a diagnosis for a UTXO mismatch). */
async function utxoDifferences(): Promise<unknown[]> {
  const out: unknown[] = [];
  const height = await a!.call<number>('getblockcount');
  for (let h = 0; h <= height && out.length < 20; h++) {
    const block = await a!.call('getblock', [await a!.call('getblockhash', [h]), 2]);
    for (const tx of block.tx) {
      for (const vout of tx.vout) {
        const [mine, core] = await Promise.all([tsCall('gettxout', [tx.txid, vout.n]), a!.call('gettxout', [tx.txid, vout.n])]);
        if (JSON.stringify(mine?.scriptPubKey) !== JSON.stringify(core?.scriptPubKey) || mine?.value !== core?.value || mine?.coinbase !== core?.coinbase) {
          out.push({ height: h, txid: tx.txid, vout: vout.n, ours: mine, theirs: core });
        }
      }
    }
  }
  return out;
}

test('a fresh bitcoind syncs the same chain from tsbtcd', { skip }, async () => {
  b = await BitcoindProcess.start((reference as { path: string }).path, [`-connect=127.0.0.1:${ts!.p2pPort}`, '-disablewallet', '-debug=net', '-debug=cmpctblock']);
  const tip = await sameTip('bitcoind B to reach tsbtcd\'s tip', () => tsCall('getbestblockhash'), () => b!.call('getbestblockhash'), 180_000);
  const ours = await waitFor('gettxoutsetinfo at the tip', async () => {
    const info = await tsCall('gettxoutsetinfo');
    return info.bestblock === tip ? info : undefined;
  });
  const theirs = await b!.call('gettxoutsetinfo');
  assert.equal(theirs.bestblock, tip);
  assert.equal(theirs.hash_serialized_3, ours.hash_serialized_3);
  const peers = await tsCall<any[]>('getpeerinfo');
  assert.deepEqual(peers.map((p) => [p.inbound, p.connection_type]).sort(), [[false, 'manual'], [true, 'inbound']]);
});

test('transactions relay both ways by wtxid', { skip }, async () => {
  // Two relay hops, each waiting a Poisson-timed trickle (5 s on average to inbound peers): 60 s, as Core's tests allow.
  // A's wallet spends; the transaction reaches tsbtcd, then B.
  const txid = await a!.call<string>('sendtoaddress', [await a!.call('getnewaddress', ['', 'bech32m']), 1.5]);
  await waitFor('the transaction in tsbtcd\'s mempool', async () => ((await tsCall<string[]>('getrawmempool')).includes(txid) ? true : undefined), 60_000);
  await waitFor('the transaction in B\'s mempool', async () => ((await b!.call<string[]>('getrawmempool')).includes(txid) ? true : undefined), 60_000);
  // B (no wallet) broadcasts a transaction A signed without sending: B → tsbtcd → A.
  const unspent = (await a!.call<any[]>('listunspent', [1])).find((u) => u.desc.startsWith('wpkh(') && u.amount > 1);
  const raw = await a!.call<string>('createrawtransaction', [[{ txid: unspent.txid, vout: unspent.vout }], { [await a!.call('getnewaddress')]: unspent.amount - 0.001 }]);
  const signed = await a!.call<{ hex: string }>('signrawtransactionwithwallet', [raw]);
  const txid2 = await b!.call<string>('sendrawtransaction', [signed.hex]);
  await waitFor('B\'s transaction in tsbtcd\'s mempool', async () => ((await tsCall<string[]>('getrawmempool')).includes(txid2) ? true : undefined), 60_000);
  await waitFor('B\'s transaction in A\'s mempool', async () => ((await a!.call<string[]>('getrawmempool')).includes(txid2) ? true : undefined), 60_000);
  // wtxidrelay was negotiated with both, and announcements went by wtxid (MSG_WTX inv).
  for (const peer of await tsCall<any[]>('getpeerinfo')) {
    assert.ok(peer.bytesrecv_per_msg.wtxidrelay > 0 && peer.bytessent_per_msg.wtxidrelay > 0, JSON.stringify(peer.bytesrecv_per_msg));
    assert.ok(peer.bytesrecv_per_msg.tx > 0 || peer.bytessent_per_msg.tx > 0);
  }
});

test('blocks relay both ways as compact blocks rebuilt from the mempool', { skip }, async () => {
  // A mines a block holding a transaction every node has: tsbtcd rebuilds it without asking for more.
  const before = Object.fromEntries((await tsCall<any[]>('getpeerinfo')).map((p) => [p.inbound ? 'B' : 'A', p]));
  const txid = await a!.call<string>('sendtoaddress', [await a!.call('getnewaddress'), 0.25]);
  await waitFor('the transaction everywhere', async () => ((await tsCall<string[]>('getrawmempool')).includes(txid) && (await b!.call<string[]>('getrawmempool')).includes(txid) ? true : undefined), 60_000);
  const [hash] = await a!.call<string[]>('generatetoaddress', [1, await a!.call('getnewaddress')]);
  await sameTip('tsbtcd to get A\'s block', async () => hash!, () => tsCall('getbestblockhash'), 30_000);
  await sameTip('B to get the block through tsbtcd', async () => hash!, () => b!.call('getbestblockhash'), 30_000);
  const after = Object.fromEntries((await tsCall<any[]>('getpeerinfo')).map((p) => [p.inbound ? 'B' : 'A', p]));
  const delta = (peer: 'A' | 'B', dir: 'bytesrecv_per_msg' | 'bytessent_per_msg', msg: string) => (after[peer][dir][msg] ?? 0) - (before[peer][dir][msg] ?? 0);
  assert.ok(delta('A', 'bytesrecv_per_msg', 'cmpctblock') > 0, 'A pushed a compact block');
  assert.equal(delta('A', 'bytesrecv_per_msg', 'block'), 0, 'no full block from A');
  assert.equal(delta('A', 'bytessent_per_msg', 'getblocktxn'), 0, 'nothing was missing');
  assert.equal(after.A.bip152_hb_to, true, 'tsbtcd chose A as a high-bandwidth peer');
  assert.ok(delta('B', 'bytessent_per_msg', 'cmpctblock') > 0, 'tsbtcd pushed the compact block to B');
  assert.equal(delta('B', 'bytessent_per_msg', 'block'), 0);
  // tsbtcd mines a block with a pooled transaction: B rebuilds it from its own mempool.
  const txid2 = await a!.call<string>('sendtoaddress', [await a!.call('getnewaddress'), 0.25]);
  await waitFor('the second transaction in B and tsbtcd', async () => ((await tsCall<string[]>('getrawmempool')).includes(txid2) && (await b!.call<string[]>('getrawmempool')).includes(txid2) ? true : undefined), 60_000);
  const bBefore = (await b!.call<any[]>('getpeerinfo'))[0];
  const [mined] = await tsCall<string[]>('generatetoaddress', [1, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080']);
  await sameTip('B to get tsbtcd\'s block', async () => mined!, () => b!.call('getbestblockhash'), 30_000);
  await sameTip('A to get tsbtcd\'s block', async () => mined!, () => a!.call('getbestblockhash'), 30_000);
  const bAfter = (await b!.call<any[]>('getpeerinfo'))[0];
  assert.ok((bAfter.bytesrecv_per_msg.cmpctblock ?? 0) > (bBefore.bytesrecv_per_msg.cmpctblock ?? 0), 'B got a compact block from tsbtcd');
  assert.equal(bAfter.bytesrecv_per_msg.block ?? 0, bBefore.bytesrecv_per_msg.block ?? 0, 'B needed no full block');
  assert.equal(bAfter.bytessent_per_msg.getblocktxn ?? 0, bBefore.bytessent_per_msg.getblocktxn ?? 0, 'B missed no transaction');
  // B chose tsbtcd (its source of blocks); tsbtcd had no reason to choose B, which never sent it one.
  assert.equal(bAfter.bip152_hb_to, true);
  assert.equal(bAfter.bip152_hb_from, false);
  assert.ok(!(await b!.call<string[]>('getrawmempool')).includes(txid2));
  // A got its first block from tsbtcd too: now it asks tsbtcd to push them (Core picks the peers that deliver first).
  await waitFor('A to choose tsbtcd as a high-bandwidth peer', async () => ((await tsCall<any[]>('getpeerinfo')).find((p) => !p.inbound)?.bip152_hb_from ? true : undefined), 30_000);
  assert.equal((await a!.call<any[]>('getpeerinfo'))[0].bip152_hb_to, true);
});

test('a reorg made on bitcoind is followed; the disconnected transactions return to the mempool', { skip }, async () => {
  const txid = await a!.call<string>('sendtoaddress', [await a!.call('getnewaddress'), 0.5]);
  await waitFor('the transaction in tsbtcd', async () => ((await tsCall<string[]>('getrawmempool')).includes(txid) ? true : undefined), 60_000);
  const address = await a!.call<string>('getnewaddress');
  const [confirming] = await a!.call<string[]>('generatetoaddress', [1, address]);
  await sameTip('tsbtcd to confirm it', async () => confirming!, () => tsCall('getbestblockhash'), 30_000);
  assert.ok(!(await tsCall<string[]>('getrawmempool')).includes(txid));
  // A drops the block and mines a longer branch without the transaction.
  await a!.call('invalidateblock', [confirming]);
  let tip = '';
  for (let i = 0; i < 3; i++) tip = (await a!.call<{ hash: string }>('generateblock', [address, []])).hash;
  await sameTip('tsbtcd to follow the reorg', async () => tip, () => tsCall('getbestblockhash'), 60_000);
  await waitFor('the transaction back in tsbtcd\'s mempool', async () => ((await tsCall<string[]>('getrawmempool')).includes(txid) ? true : undefined), 60_000);
  const tips = await tsCall<any[]>('getchaintips');
  assert.ok(tips.some((t) => t.hash === confirming && t.status === 'valid-fork'), JSON.stringify(tips));
});

test('getpeerinfo, getnetworkinfo, getnettotals, getaddednodeinfo and listbanned have bitcoind\'s keys, types and order', { skip }, async () => {
  // The same scenario on both: an added node, a ban, a manual outbound peer.
  for (const call of [tsCall, (m: string, p: unknown[] = []) => b!.call(m, p)]) {
    await call('addnode', ['127.0.0.1:1', 'add']);
    await call('setban', ['10.0.0.0/8', 'add']);
  }
  const ourPeer = (await tsCall<any[]>('getpeerinfo')).find((p) => !p.inbound);
  const theirPeer = (await b!.call<any[]>('getpeerinfo'))[0];
  // Both are manual outbound v1 connections (bitcoind fell back to v1 with tsbtcd).
  assert.equal(theirPeer.transport_protocol_type, 'v1');
  assert.deepEqual(shape(ourPeer), shape(theirPeer));
  for (const method of ['getnetworkinfo', 'getnettotals', 'getaddednodeinfo', 'listbanned']) {
    assert.deepEqual(shape(await tsCall(method)), shape(await b!.call(method)), method);
  }
});
