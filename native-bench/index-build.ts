/**
 * `make bench-index`: the address index (-addressindex) over the bench-import chain
 * (import-chain.ts: 3,118 blocks, 200,000 signed transactions), and the Esplora API's
 * /api/address/…/utxo from the front-ends.
 *
 *  1. Build throughput: tsbtcd imports the chain without indexes (-loadblock with
 *     -assumevalid), stops, and starts again with -addressindex; timed from the first RPC
 *     answer until getindexinfo reports the index synced at the tip. Printed as blocks/s,
 *     transactions/s and rows/s (funded outputs + spent inputs), with the index's size.
 *     For scale, bitcoind v31.0 builds its -txindex over the same chain the same way (the
 *     nearest index Core has: one row per transaction, where the address index writes
 *     history, unspent-output and spender rows for every input and output).
 *  2. Requests/s with 64 keep-alive connections (wrk): GET /api/address/<a>/utxo over up to 200
 *     addresses that hold coins, round robin, with p50/p99; every reply must be a 200.
 *     The server gets the first half of the cores and wrk the rest, as in bench-http.
 *
 * INDEX_BENCH_SECONDS per wrk run (default 10). bitcoind: BITCOIND, else
 * ../shared/bin/bitcoind; without one, a line says so and only tsbtcd is measured.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BitcoindProcess } from '../test/integration/bitcoind-process.js';
import { Daemon } from '../test/integration/daemon-harness.js';
import { ensureChain } from './import-chain.js';
import { fmt, pad } from './measure.js';
import { referenceBitcoind } from './reference-bitcoind.js';
import { cpuSplit, luaString, requireWrk, run, runWrk } from './wrk.js';

const CACHE_DIR = fileURLToPath(new URL('../../native-bench/.cache/', import.meta.url));
const SECONDS = Number(process.env['INDEX_BENCH_SECONDS'] ?? 10);
const ADDRESSES = 200;
const POLL_MS = 50;

interface Rpc {
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

async function imported(node: Rpc, tip: number): Promise<void> {
  await waitUntil('the import', async () => ((await node.call<number>('getblockcount')) >= tip ? true : undefined), 30 * 60_000);
}

/** Seconds from now until getindexinfo says `name` is synced at `tip`. */
async function indexSeconds(node: Rpc, name: string, tip: number): Promise<number> {
  const started = performance.now();
  await waitUntil(
    `${name} at the tip`,
    async () => {
      const info = (await node.call('getindexinfo', [name]))[name];
      return info?.synced && info.best_block_height === tip ? true : undefined;
    },
    30 * 60_000,
  );
  return (performance.now() - started) / 1000;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Addresses with coins, from the Esplora API's view of the chain's last transaction-bearing blocks. */
async function addressesWithCoins(base: string, node: Rpc, fromHeight: number): Promise<string[]> {
  const found = new Set<string>();
  for (let height = fromHeight; height > 0 && found.size < ADDRESSES; height--) {
    const hash = await node.call<string>('getblockhash', [height]);
    const txs = (await (await fetch(`${base}/block/${hash}/txs`)).json()) as { vout: { scriptpubkey_address?: string }[] }[];
    for (const tx of txs) for (const out of tx.vout) if (out.scriptpubkey_address && found.size < ADDRESSES) found.add(out.scriptpubkey_address);
  }
  return [...found];
}

async function main(): Promise<void> {
  await requireWrk('make bench-index');
  const { file, meta } = await ensureChain(CACHE_DIR);
  const tip = meta.blocks;
  const rows = meta.inputs + meta.transactions * 2; // spent inputs + roughly two outputs per transaction
  console.log(`\nChain: ${fmt(tip)} blocks, ${fmt(meta.transactions)} transactions, ${fmt(meta.inputs)} inputs, ${fmt(meta.bytes / 1e6, 1)} MB`);
  const importArgs = [`-loadblock=${file}`, `-assumevalid=${meta.lastHash}`, '-disablewallet', '-checkblockindex=0', '-checkmempool=0'];

  // 1. tsbtcd: import, then the address index built from the stored chain.
  let node = await Daemon.start({ args: importArgs, readyTimeoutMs: 120_000 });
  try {
    await imported(node, tip);
    await node.stop();
    const cores = availableParallelism();
    const { serverCores, serverCpus, wrkCpus, wrkThreads } = await cpuSplit(cores);
    node = await node.restart({ args: ['-disablewallet', '-addressindex', '-esplora', `-rpcfrontends=${serverCores}`], readyTimeoutMs: 120_000 });
    const seconds = await indexSeconds(node, 'addressindex', tip);
    const indexBytes = fileSize(join(node.netdir, 'indexes', 'data.mdb'));
    console.log('\nAddress index build (tsbtcd -addressindex, from the stored chain):');
    console.log(`  ${fmt(seconds, 2)} s: ${fmt(tip / seconds)} blocks/s, ${fmt(meta.transactions / seconds)} transactions/s, ~${fmt(rows / seconds)} rows/s; indexes/data.mdb ${fmt(indexBytes / 1e6, 1)} MB`);

    const reference = referenceBitcoind();
    if ('missing' in reference) {
      console.log(`  bitcoind: not measured, ${reference.missing}`);
    } else {
      const datadir = mkdtempSync(join(tmpdir(), 'bench-index-bitcoind-'));
      let core = await BitcoindProcess.start(reference.path, ['-connect=0', ...importArgs], datadir);
      try {
        await imported(core, tip);
        await core.stop();
        core = await BitcoindProcess.start(reference.path, ['-connect=0', '-disablewallet', '-txindex'], datadir);
        const coreSeconds = await indexSeconds(core, 'txindex', tip);
        console.log(`  bitcoind v31.0 -txindex over the same chain, for scale: ${fmt(coreSeconds, 2)} s, ${fmt(tip / coreSeconds)} blocks/s`);
        console.log(`  tsbtcd's address index ÷ bitcoind's txindex, blocks/s: ${fmt(coreSeconds / seconds, 2)}×`);
      } finally {
        await core.stop().catch(() => undefined);
        rmSync(datadir, { recursive: true, force: true });
      }
    }

    // 2. /api/address/…/utxo from the front-ends.
    const base = `http://127.0.0.1:${node.port}/api`;
    const addresses = await addressesWithCoins(base, node, tip - meta.tailBlocks);
    let coins = 0;
    for (const address of addresses) {
      const res = await fetch(`${base}/address/${address}/utxo`);
      if (res.status !== 200) throw new Error(`/address/${address}/utxo answered ${res.status}: ${await res.text()}`);
      coins += ((await res.json()) as unknown[]).length;
    }
    const script = join(tmpdir(), `bench-index-${process.pid}.lua`);
    const paths = addresses.map((a) => luaString(`/api/address/${a}/utxo`)).join(',\n  ');
    writeFileSync(script, `local paths = {\n  ${paths}\n}\nlocal i = 0\nrequest = function()\n  i = i % #paths + 1\n  return wrk.format("GET", paths[i])\nend\n`);
    // The node was started before the split: its processes move to the server CPUs now.
    if (serverCpus !== undefined) for (const pid of [node.proc.pid!, ...node.frontendPids()]) await run('taskset', ['-a', '-cp', serverCpus, String(pid)]);
    await runWrk({ url: `http://127.0.0.1:${node.port}/`, seconds: 2, connections: 64, threads: wrkThreads, script, ...(wrkCpus ? { cpus: wrkCpus } : {}) });
    const result = await runWrk({ url: `http://127.0.0.1:${node.port}/`, seconds: SECONDS, connections: 64, threads: wrkThreads, script, ...(wrkCpus ? { cpus: wrkCpus } : {}) });
    if (result.errors.length > 0) throw new Error(`utxo requests failed: ${result.errors.join('; ')}`);
    console.log(`\nGET /api/address/<a>/utxo, ${addresses.length} addresses (${fmt(coins / addresses.length, 1)} coins each on average), 64 connections, ${SECONDS} s:`);
    console.log(`  ${pad(`${fmt(result.rps)} req/s`, 14)} p50 ${fmt(result.p50, 2)} ms, p99 ${fmt(result.p99, 2)} ms; server ${serverCores} core(s)${serverCpus ? ` (cpus ${serverCpus})` : ''}, wrk ${wrkThreads} thread(s)`);
  } finally {
    await node.cleanup();
  }
}

main().catch((err: Error) => {
  console.error(err.stack ?? err.message);
  process.exit(1);
});
