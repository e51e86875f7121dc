/**
 * The REST rows of `make bench-http`: requests/s and p50/p99 latency of tsbtcd's REST
 * endpoints under 64 keep-alive connections (wrk, GET), beside a bare uWS.js hello-world
 * server measured in the same run, with each row's rate relative to it.
 *
 * - Rows: chaininfo.json; block/<hash>.bin of a ~1 MB block (7,000 P2WSH(OP_TRUE) spends,
 *   http-block.ts); headers/<hash>.bin?count=2000 (2,000 headers, 160 kB); getutxos with 15
 *   outpoints (JSON).
 * - CPUs as in http.ts: the first half of the cores runs the server (the whole daemon with
 *   -rpcfrontends=<that many>, or as many hello-world processes), wrk runs on the other
 *   half with one thread per core; on one core everything shares it.
 * - Every reply is checked once before its run; non-2xx replies or socket errors during a
 *   run make the bench fail. HTTP_BENCH_SECONDS sets each run's length (default 5, after a
 *   1 s warm-up).
 */
import type { ChildProcess } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';
import { Daemon } from '../test/integration/daemon-harness.js';
import { restRequest } from '../test/support/rest-client.js';
import { buildBigBlock } from './http-block.js';
import { fmt, pad } from './measure.js';
import { cpuSplit, run, runWrk, startHello, type WrkResult } from './wrk.js';

const CONNECTIONS = 64;
const SECONDS = Number(process.env['HTTP_BENCH_SECONDS'] ?? 5);
/** The chain's length at least, so that a headers request from genesis returns 2,000 headers. */
const CHAIN_BLOCKS = 2000;
/** ~1 MB: 7,000 transactions of 142 bytes. */
const BIG_BLOCK_TXS = 7000;

async function main(): Promise<void> {
  const cores = availableParallelism();
  const { serverCores, serverCpus, wrkCpus, wrkThreads } = await cpuSplit(cores);
  const startLoad = loadavg().map((l) => l.toFixed(2)).join(' ');

  const d = await Daemon.start({ args: ['-rest', `-rpcfrontends=${serverCores}`], readyTimeoutMs: 30_000 });
  let hello: { port: number; procs: ChildProcess[] } | undefined;
  try {
    const started = performance.now();
    // The big block first, while coinbases still pay enough to split 7,000 ways (regtest halves every 150 blocks).
    const big = await buildBigBlock(d, BIG_BLOCK_TXS);
    while ((await d.call<number>('getblockcount')) < CHAIN_BLOCKS) await d.call('generatetoaddress', [250, 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk']);
    const tipHeight = await d.call<number>('getblockcount');
    console.log(`Chain of ${fmt(tipHeight)} blocks; big block at ${big.height}: ${fmt(big.txCount)} transactions, ${fmt(big.size)} bytes; built in ${fmt((performance.now() - started) / 1000, 1)} s`);
    if (serverCpus !== undefined) {
      for (const pid of [d.proc.pid!, ...d.frontendPids()]) await run('taskset', ['-a', '-cp', serverCpus, String(pid)]);
    }
    hello = await startHello(serverCores, serverCpus);

    const genesis = await d.call<string>('getblockhash', [0]);
    const txids = (await d.call<{ tx: string[] }>('getblock', [big.hash, 1])).tx.slice(1, 16);
    const cases: { name: string; target: string; check: (body: Buffer) => boolean }[] = [
      { name: 'chaininfo.json', target: '/rest/chaininfo.json', check: (b) => JSON.parse(b.toString()).blocks === tipHeight },
      { name: `block/<hash>.bin (${fmt(big.size / 1e6, 2)} MB)`, target: `/rest/block/${big.hash}.bin`, check: (b) => b.length === big.size },
      { name: 'headers/<hash>.bin?count=2000', target: `/rest/headers/${genesis}.bin?count=2000`, check: (b) => b.length === 2000 * 80 },
      { name: 'getutxos, 15 outpoints (json)', target: `/rest/getutxos/${txids.map((t) => `${t}-0`).join('/')}.json`, check: (b) => JSON.parse(b.toString()).bitmap === '1'.repeat(15) },
    ];

    const measure = async (url: string) => {
      const opts = { url, connections: CONNECTIONS, threads: wrkThreads, ...(wrkCpus !== undefined ? { cpus: wrkCpus } : {}) };
      await runWrk({ ...opts, seconds: 1 });
      return runWrk({ ...opts, seconds: SECONDS });
    };
    const baseline = await measure(`http://127.0.0.1:${hello.port}/rest/chaininfo.json`);
    const rows: { name: string; r: WrkResult; bytes: number }[] = [{ name: 'uWS.js hello world (bare)', r: baseline, bytes: 12 }];
    for (const c of cases) {
      const reply = await restRequest(d.port, c.target);
      if (reply.status !== 200 || !c.check(reply.body)) throw new Error(`${c.name}: wrong reply HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
      rows.push({ name: c.name, r: await measure(`http://127.0.0.1:${d.port}${c.target}`), bytes: reply.body.length });
    }

    const where =
      serverCpus === undefined
        ? `unpinned, ${cores} core(s) shared by server and wrk`
        : `server on CPU ${serverCpus} (tsbtcd -rpcfrontends=${serverCores}, or ${serverCores} hello-world), wrk -t${wrkThreads} on CPU ${wrkCpus}`;
    console.log(`\nHTTP REST (GET), ${CONNECTIONS} keep-alive connections; ${where}; load average at the start ${startLoad}, now ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const header = `${'server / endpoint'.padEnd(36)}${pad('req/s', 11)}${pad('p50 ms', 9)}${pad('p99 ms', 9)}${pad('reply B', 11)}${pad('vs hello', 10)}`;
    console.log(header);
    console.log('-'.repeat(header.length));
    for (const { name, r, bytes } of rows) {
      console.log(`${name.padEnd(36)}${pad(fmt(r.rps), 11)}${pad(fmt(r.p50, 2), 9)}${pad(fmt(r.p99, 2), 9)}${pad(fmt(bytes), 11)}${pad(fmt(r.rps / baseline.rps, 3), 10)}`);
    }
    const failed = rows.filter((row) => row.r.errors.length > 0);
    for (const row of failed) console.error(`${row.name}: ${row.r.errors.join(', ')}`);
    if (failed.length > 0) process.exitCode = 1;
  } finally {
    for (const p of hello?.procs ?? []) p.kill('SIGTERM');
    await d.cleanup();
  }
}

await main();
