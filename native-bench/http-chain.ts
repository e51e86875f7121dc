/**
 * The regtest chain and mempool `make bench-http` serves from both nodes, built once on a
 * builder bitcoind (its wallet signs everything) and cached in native-bench/.cache/
 * (built again when missing or of another HTTP_CHAIN_FORMAT):
 *
 *  - 130 coinbase blocks, then funding payments to the wallet's four address types
 *    (P2PKH, P2SH-P2WPKH, P2WPKH, P2TR key path) and to ranged 2-of-3 P2SH and P2WSH
 *    multisig descriptors: 800 coins for the big block, 5,000 for the mempool;
 *  - the big block: 600 signed transactions spending those coins (every third one two
 *    inputs), each paying 2 to 4 outputs of the six types, every tenth one an OP_RETURN;
 *  - coinbase-only blocks up to height 2,010 (a headers request of 2,000 from genesis);
 *  - 5,000 pool transactions, each spending one confirmed funding coin to two outputs,
 *    never mined: every node the benchmark starts gets them through sendrawtransaction.
 *
 * Block times are the builder's mock clock, one block every ten minutes from a fixed
 * start; nodes replay the history at `mocktime` (ten minutes after the tip), so entry
 * times in the pool and the initial-block-download state are the same on every node.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import { join } from 'node:path';
import { BitcoindProcess } from '../test/integration/bitcoind-process.js';

/** Bump whenever the built chain changes: a cached one of another format is built again. */
export const HTTP_CHAIN_FORMAT = 1;

const START_TIME = 1_780_000_000;
const BIG_BLOCK_TXS = 600;
const BIG_BLOCK_COINS = 800;
const MEMPOOL_TXS = 5000;
const CHAIN_HEIGHT = 2010;
const RANGE = 3000;
/** Satoshis per funding coin of the pool's transactions, and each one's fee. */
const POOL_COIN = 100_000;
const POOL_FEE = 1000;

export interface HttpChain {
  readonly format: number;
  /** Blocks at heights 1.. in order (hex). */
  readonly blocks: readonly string[];
  /** The pool's transactions (hex), independent of each other. */
  readonly mempool: readonly string[];
  readonly mocktime: number;
  readonly bigBlockHash: string;
  /** A confirmed transaction of the big block with inputs of two types (getrawtransaction's rows). */
  readonly confirmedTxid: string;
  /** 15 "txid-vout" outpoints for getutxos/checkmempool: unspent, spent in the pool, created in the pool. */
  readonly outpoints: readonly string[];
}

interface RpcCall {
  readonly method: string;
  readonly params: readonly unknown[];
}

/** One JSON-RPC batch (an array of calls in one POST); every call must succeed. */
export function rpcBatch<T = any>(port: number, cookie: string, calls: readonly RpcCall[]): Promise<T[]> {
  const body = JSON.stringify(calls.map((c, id) => ({ jsonrpc: '1.0', id, method: c.method, params: c.params })));
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/', agent: false, headers: { Authorization: `Basic ${Buffer.from(cookie).toString('base64')}`, 'Content-Type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          try {
            const replies = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; result: T; error: unknown }[];
            const failed = replies.find((r) => r.error !== null);
            if (failed) throw new Error(`${calls[failed.id]!.method}: ${JSON.stringify(failed.error)}`);
            resolve(replies.sort((a, b) => a.id - b.id).map((r) => r.result));
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('error', reject);
    req.setTimeout(600_000, () => req.destroy(new Error('JSON-RPC batch timed out')));
    req.end(body);
  });
}

/** `calls` in batches of `size`, one batch after the other. */
export async function rpcBatches<T = any>(port: number, cookie: string, calls: readonly RpcCall[], size = 250): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < calls.length; i += size) out.push(...(await rpcBatch<T>(port, cookie, calls.slice(i, i + size))));
  return out;
}

const btc = (sats: number): number => Number((sats / 1e8).toFixed(8));

interface Unspent {
  txid: string;
  vout: number;
  amount: number;
  address: string;
}

async function build(bitcoind: string): Promise<HttpChain> {
  const node = await BitcoindProcess.start(bitcoind, ['-connect=0', '-fallbackfee=0.0002', `-keypool=${RANGE}`]);
  const cookie = readFileSync(join(node.datadir, 'regtest', '.cookie'), 'utf8').trim();
  const call = <T = any>(method: string, params: unknown[] = []) => node.call<T>(method, params);
  const batch = <T = any>(calls: readonly RpcCall[]) => rpcBatches<T>(node.rpc.port, cookie, calls);
  let clock = START_TIME;
  /** Mines `n` blocks, ten mock minutes apart. */
  const mine = async (n: number, address: string): Promise<string[]> => {
    const hashes: string[] = [];
    for (let done = 0; done < n; done += 100) {
      const k = Math.min(100, n - done);
      const calls: RpcCall[] = [];
      for (let i = 0; i < k; i++) {
        clock += 600;
        calls.push({ method: 'setmocktime', params: [clock] }, { method: 'generatetoaddress', params: [1, address] });
      }
      const results = await batch<unknown>(calls);
      for (let i = 1; i < results.length; i += 2) hashes.push(...(results[i] as string[]));
    }
    return hashes;
  };
  try {
    await call('setmocktime', [clock]);
    await call('createwallet', ['builder']);
    const miner = await call<string>('getnewaddress', ['', 'bech32m']);
    await mine(130, miner);

    // Addresses of six types: the wallet's own four, and two ranged multisig descriptors over its key.
    const own = await call<{ descriptors: { desc: string; internal: boolean }[] }>('listdescriptors', [true]);
    const tprv = /(tprv[1-9A-HJ-NP-Za-km-z]+)/.exec(own.descriptors[0]!.desc)![1]!;
    const multisig = [`sh(multi(2,${tprv}/10/*,${tprv}/11/*,${tprv}/12/*))`, `wsh(multi(2,${tprv}/13/*,${tprv}/14/*,${tprv}/15/*))`];
    const infos = await batch<{ descriptor: string; checksum: string }>(multisig.map((d) => ({ method: 'getdescriptorinfo', params: [d] })));
    const imported = await call<{ success: boolean }[]>('importdescriptors', [
      multisig.map((d, i) => ({ desc: `${d}#${infos[i]!.checksum}`, timestamp: 'now', range: [0, RANGE - 1], internal: false })),
    ]);
    if (!imported.every((r) => r.success)) throw new Error(`importdescriptors: ${JSON.stringify(imported)}`);
    const publicOwn = await call<{ descriptors: { desc: string; internal: boolean }[] }>('listdescriptors', [false]);
    const ranged = [...publicOwn.descriptors.filter((d) => !d.internal && !/multi\(/.test(d.desc)).map((d) => d.desc), ...infos.map((i) => i.descriptor)];
    if (ranged.length !== 6) throw new Error(`expected six receive descriptors, got ${ranged.join(' ')}`);
    const addresses = await batch<string[]>(ranged.map((d) => ({ method: 'deriveaddresses', params: [d, [0, RANGE - 1]] })));
    /** The n-th address, the type rotating with n. */
    const address = (n: number): string => addresses[n % 6]![Math.floor(n / 6) % RANGE]!;

    // Funding: 800 coins of every type for the big block, 5,000 for the pool, in payments of up to 500 outputs.
    const fundingTxids: string[] = [];
    const fund = async (from: number, count: number, sats: (i: number) => number) => {
      for (let start = 0; start < count; start += 500) {
        const outputs: Record<string, number> = {};
        for (let i = start; i < Math.min(count, start + 500); i++) outputs[address(from + i)] = btc(sats(i));
        const txid = await call<string>('sendmany', ['', outputs]);
        fundingTxids.push(txid);
        // Locked, so that later payments do not spend them (change included: coinbases pay).
        const { vout } = await call<{ vout: unknown[] }>('getrawtransaction', [txid, 1]);
        await call('lockunspent', [false, vout.map((_, n) => ({ txid, vout: n }))]);
        if (fundingTxids.length % 4 === 0) await mine(1, miner);
      }
    };
    await fund(0, BIG_BLOCK_COINS, (i) => 5_000_000 + i * 1000);
    const poolFrom = BIG_BLOCK_COINS;
    await fund(poolFrom, MEMPOOL_TXS, () => POOL_COIN);
    await mine(1, miner);
    await call('lockunspent', [true]);
    const unspent = await call<Unspent[]>('listunspent', [1, 9999]);
    const funded = new Set(fundingTxids);
    const byAddress = new Map(unspent.filter((u) => funded.has(u.txid)).map((u) => [u.address, u]));
    const coinAt = (n: number): Unspent => {
      const coin = byAddress.get(address(n));
      if (!coin) throw new Error(`no funding coin at address ${n} (${address(n)})`);
      return coin;
    };

    // The big block: 600 transactions of mixed inputs and outputs.
    const raws: RpcCall[] = [];
    let next = 0;
    let outputAddress = RANGE * 3;
    for (let t = 0; t < BIG_BLOCK_TXS; t++) {
      const inputs = Array.from({ length: t % 3 === 0 ? 2 : 1 }, () => coinAt(next++));
      const total = inputs.reduce((sum, c) => sum + Math.round(c.amount * 1e8), 0) - 1500 * inputs.length - 500;
      const count = 2 + (t % 3);
      const outputs: Record<string, number | string>[] = [];
      for (let o = 0; o < count; o++) {
        const share = o === count - 1 ? total - Math.floor(total / count) * (count - 1) : Math.floor(total / count);
        outputs.push({ [address(outputAddress++)]: btc(share) });
      }
      if (t % 10 === 0) outputs.push({ data: Buffer.from(`tsbtcd bench ${t}`).toString('hex') });
      raws.push({ method: 'createrawtransaction', params: [inputs.map((c) => ({ txid: c.txid, vout: c.vout })), outputs] });
    }
    const signBig = await batch<{ hex: string; complete: boolean }>((await batch<string>(raws)).map((hex) => ({ method: 'signrawtransactionwithwallet', params: [hex] })));
    if (!signBig.every((s) => s.complete)) throw new Error('the builder wallet could not sign a big-block transaction');
    const bigTxids = await batch<string>(signBig.map((s) => ({ method: 'sendrawtransaction', params: [s.hex, 0] })));
    const [bigBlockHash] = await mine(1, miner);
    const bigTxCount = (await call<{ nTx: number }>('getblockheader', [bigBlockHash])).nTx;
    if (bigTxCount !== BIG_BLOCK_TXS + 1) throw new Error(`the big block holds ${bigTxCount} transactions, not ${BIG_BLOCK_TXS + 1}`);
    const height = await call<number>('getblockcount');
    await mine(CHAIN_HEIGHT - height, miner);

    // The pool: one funding coin each, two outputs, built after the last block so none is mined.
    const poolRaws: RpcCall[] = [];
    for (let t = 0; t < MEMPOOL_TXS; t++) {
      const coin = coinAt(poolFrom + t);
      const pay = 40_000 + t;
      poolRaws.push({
        method: 'createrawtransaction',
        params: [[{ txid: coin.txid, vout: coin.vout }], [{ [address(outputAddress++)]: btc(pay) }, { [address(outputAddress++)]: btc(POOL_COIN - POOL_FEE - pay) }]],
      });
    }
    const signPool = await batch<{ hex: string; complete: boolean; errors?: unknown }>((await batch<string>(poolRaws)).map((hex) => ({ method: 'signrawtransactionwithwallet', params: [hex] })));
    const unsigned = signPool.findIndex((s) => !s.complete);
    if (unsigned >= 0) throw new Error(`the builder wallet could not sign pool transaction ${unsigned}: ${JSON.stringify(signPool[unsigned])}`);
    const poolTxids = await batch<string>(signPool.map((s) => ({ method: 'sendrawtransaction', params: [s.hex, 0] })));

    const hashes = await batch<string>(Array.from({ length: CHAIN_HEIGHT }, (_, i) => ({ method: 'getblockhash', params: [i + 1] })));
    const blocks = await batch<string>(hashes.map((h) => ({ method: 'getblock', params: [h, 0] })));
    // getutxos: five outpoints unspent in the big block, five spent by the pool, five the pool creates.
    const outpoints = [
      ...bigTxids.slice(1, 6).map((txid) => `${txid}-0`),
      ...Array.from({ length: 5 }, (_, i) => coinAt(poolFrom + i * 7)).map((c) => `${c.txid}-${c.vout}`),
      ...poolTxids.slice(10, 15).map((txid) => `${txid}-1`),
    ];
    return {
      format: HTTP_CHAIN_FORMAT,
      blocks,
      mempool: signPool.map((s) => s.hex),
      mocktime: clock + 600,
      bigBlockHash: bigBlockHash!,
      // The first transaction has two inputs (of two types: the coin order rotates them).
      confirmedTxid: bigTxids[0]!,
      outpoints,
    };
  } finally {
    await node.stop();
  }
}

/** The cached chain in `cacheDir`, built first on `bitcoind` when missing or of another format (undefined: no cache and no bitcoind). */
export async function ensureHttpChain(cacheDir: string, bitcoind: string | undefined): Promise<HttpChain | undefined> {
  const file = join(cacheDir, 'http-chain.json');
  if (existsSync(file)) {
    try {
      const cached = JSON.parse(readFileSync(file, 'utf8')) as HttpChain;
      if (cached.format === HTTP_CHAIN_FORMAT) {
        console.log(`Using the cached chain ${file} (format ${HTTP_CHAIN_FORMAT}).`);
        return cached;
      }
    } catch {
      // damaged: built again below
    }
  }
  if (bitcoind === undefined) return undefined;
  console.log(`No cached chain of format ${HTTP_CHAIN_FORMAT} in ${cacheDir}: building one on a builder bitcoind (once, about a minute).`);
  const started = performance.now();
  const chain = await build(bitcoind);
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(`${file}.partial`, JSON.stringify(chain));
  renameSync(`${file}.partial`, file);
  console.log(`  built ${chain.blocks.length} blocks and ${chain.mempool.length} pool transactions in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return chain;
}
