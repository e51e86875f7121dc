/**
 * `make bench-http`: tsbtcd against the reference bitcoind v31.0 in the same run, over the
 * same regtest chain and mempool, request by request: requests/s, p50 and p99 latency of
 * each node, the ratio tsbtcd ÷ bitcoind, and whether the row meets its target.
 *
 * - Chain (http-chain.ts, built once on a builder bitcoind whose wallet signs, cached in
 *   native-bench/.cache/): 2,010 blocks; a big block of 600 signed transactions spending
 *   and paying P2PKH, P2SH-P2WPKH, P2WPKH, P2TR key path, 2-of-3 P2SH and P2WSH multisig
 *   (plus OP_RETURNs); a mempool of 5,000 transactions. Both nodes get it the same way:
 *   setmocktime to the builder's clock, submitblock of every block, sendrawtransaction of
 *   every pool transaction in the same order; the run stops unless both tips and both
 *   pools are the same.
 * - Nodes: bin/tsbtcd and bitcoind (BITCOIND, else ../shared/bin/bitcoind; without one, one
 *   line says so and tsbtcd is measured alone, from the cached chain), each with its
 *   defaults plus -rest (and bitcoind -checkblockindex=0 -checkmempool=0, which regtest
 *   turns on). getrawtransaction passes the block hash, so neither needs -txindex.
 * - Rows (JSON-RPC POSTs with the cookie, REST GETs):
 *     getblockhash 1000; getblockchaininfo;
 *     getblock <big> verbosity 0, 1, 2, 3; getblockstats <big>;
 *     getrawtransaction <a 2-input tx of the big block> verbose 1 and 2 (with its block hash);
 *     getrawmempool true (5,000 entries);
 *     REST chaininfo.json; block/<big>.bin, .hex, .json; block/notxdetails/<big>.json;
 *     headers/<genesis>.bin, .hex, .json ?count=2000;
 *     getutxos/checkmempool/<15 outpoints>.json and .bin (5 unspent, 5 spent in the pool,
 *     5 created by the pool).
 * - Same answers first: each row's reply is fetched from both nodes and must be the same
 *   (status, Content-Type, body bytes; members test/differential/node-local.ts lists, such
 *   as size_on_disk, compared for JSON type only). A difference is printed and fails the run.
 * - Load: wrk (Debian's), 64 keep-alive connections, a 1 s warm-up then HTTP_BENCH_SECONDS
 *   (default 5) measured, the same for both nodes; a row where either node completes fewer
 *   than 3 requests per connection is run again, on both, long enough for that (up to
 *   30 s). JSON-RPC through a Lua script setting the POST body and Basic auth. Any non-2xx
 *   reply or socket error (timeouts included) fails the run. After each run, what wrk
 *   left queued is waited out: a request on each of 8 new connections answered, then the
 *   daemon's processes idle.
 * - Fairness: the daemons (tsbtcd's coordinator and front-ends, bitcoind) run on the first
 *   half of the cores (started under that CPU affinity, so tsbtcd's default -rpcfrontends
 *   counts those cores), wrk on the other half (cpuSplit: 1 + 1 on two cores). tsbtcd and
 *   bitcoind alternate row by row (which goes first alternates too), so the machine's
 *   noise hits both.
 * - Targets: ratio ≥ 2.0 on every row, ≥ 3.0 on the getutxos and headers rows, and
 *   tsbtcd's p99 below bitcoind's. A missed target is reported, not a failure; errors and
 *   differences fail. RUNS (default 1) repeats the whole table, printing each run.
 * - For working on a row: HTTP_BENCH_ROWS=<regular expression> measures only the rows it
 *   matches; HTTP_BENCH_HOLD=1 keeps both nodes up afterwards for a profiler.
 */
import * as fs from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exchange, rpcCall, sameAnswer, type Answer } from '../test/differential/compare-nodes.js';
import type { DiffRequest } from '../test/differential/request-catalogue.js';
import { BitcoindProcess } from '../test/integration/bitcoind-process.js';
import { Daemon, sleep } from '../test/integration/daemon-harness.js';
import { KeepAliveConnection } from '../test/integration/load-http-client.js';
import { ensureHttpChain, rpcBatches, type HttpChain } from './http-chain.js';
import { fmt, pad } from './measure.js';
import { processTree } from './process-rss.js';
import { referenceBitcoind } from './reference-bitcoind.js';
import { cpuSplit, requireWrk, run, runWrk, writePostScript, type WrkResult } from './wrk.js';

const CACHE_DIR = fileURLToPath(new URL('../../native-bench/.cache/', import.meta.url));
const CONNECTIONS = 64;
const SECONDS = Number(process.env['HTTP_BENCH_SECONDS'] ?? 5);
const RUNS = Number(process.env['RUNS'] ?? 1);
const WARM_UP_SECONDS = 1;
const MIN_REQUESTS = 3 * CONNECTIONS;
const MAX_SECONDS = 30;
const RATIO_TARGET = 2.0;
const FAST_PATH_TARGET = 3.0;
/** HTTP_BENCH_ROWS: a regular expression choosing rows by name (all by default), to iterate on a few. */
const ROW_FILTER = process.env['HTTP_BENCH_ROWS'] ? new RegExp(process.env['HTTP_BENCH_ROWS']) : undefined;
/** HTTP_BENCH_HOLD=1: after the runs, keep both nodes up (ports and cookies printed) until interrupted, to profile them. */
const HOLD = process.env['HTTP_BENCH_HOLD'] === '1';

/** A node under load: where it listens and its cookie text. */
interface Served {
  readonly name: 'tsbtcd' | 'bitcoind';
  /** The daemon's process (tsbtcd's coordinator, whose children are the front-ends). */
  readonly pid: number;
  readonly port: number;
  readonly auth: string;
}

interface Row {
  readonly name: string;
  readonly request: DiffRequest;
  readonly target: number;
}

function rest(name: string, target: string, ratio = RATIO_TARGET): Row {
  return { name, target: ratio, request: { label: name, group: name.startsWith('chaininfo') ? 'rest chaininfo' : 'rest', method: 'GET', path: `/rest/${target}`, auth: false } };
}

function rpc(name: string, method: string, params: unknown[]): Row {
  return { name, target: RATIO_TARGET, request: rpcCall(method, params) };
}

function rows(chain: HttpChain): Row[] {
  const big = chain.bigBlockHash;
  const genesis = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';
  const outpoints = chain.outpoints.join('/');
  return [
    rpc('getblockhash 1000', 'getblockhash', [1000]),
    rpc('getblockchaininfo', 'getblockchaininfo', []),
    rest('chaininfo.json', 'chaininfo.json'),
    rest('block/<big>.bin', `block/${big}.bin`),
    rest('block/<big>.hex', `block/${big}.hex`),
    rest('block/<big>.json', `block/${big}.json`),
    rest('block/notxdetails/<big>.json', `block/notxdetails/${big}.json`),
    rest('headers/<genesis>.bin?count=2000', `headers/${genesis}.bin?count=2000`, FAST_PATH_TARGET),
    rest('headers/<genesis>.hex?count=2000', `headers/${genesis}.hex?count=2000`, FAST_PATH_TARGET),
    rest('headers/<genesis>.json?count=2000', `headers/${genesis}.json?count=2000`, FAST_PATH_TARGET),
    rest('getutxos/checkmempool 15 (.json)', `getutxos/checkmempool/${outpoints}.json`, FAST_PATH_TARGET),
    rest('getutxos/checkmempool 15 (.bin)', `getutxos/checkmempool/${outpoints}.bin`, FAST_PATH_TARGET),
    rpc('getblock <big> 0', 'getblock', [big, 0]),
    rpc('getblock <big> 1', 'getblock', [big, 1]),
    rpc('getblock <big> 2', 'getblock', [big, 2]),
    rpc('getblock <big> 3', 'getblock', [big, 3]),
    rpc('getrawtransaction <tx> 1', 'getrawtransaction', [chain.confirmedTxid, 1, big]),
    rpc('getrawtransaction <tx> 2', 'getrawtransaction', [chain.confirmedTxid, 2, big]),
    rpc('getblockstats <big>', 'getblockstats', [big]),
    rpc('getrawmempool true (5,000)', 'getrawmempool', [true]),
  ];
}

/** Gives a fresh node the chain: the builder's clock, every block, every pool transaction in order. */
async function replay(port: number, auth: string, chain: HttpChain): Promise<void> {
  await rpcBatches(port, auth, [{ method: 'setmocktime', params: [chain.mocktime] }]);
  const submitted = await rpcBatches<string | null>(port, auth, chain.blocks.map((hex) => ({ method: 'submitblock', params: [hex] })), 50);
  const refused = submitted.findIndex((r) => r !== null);
  if (refused >= 0) throw new Error(`submitblock of height ${refused + 1} answered ${JSON.stringify(submitted[refused])}`);
  await rpcBatches(port, auth, chain.mempool.map((hex) => ({ method: 'sendrawtransaction', params: [hex, 0] })), 100);
}

async function state(node: Served): Promise<{ tip: string; pool: number }> {
  const [tip, pool] = await rpcBatches<any>(node.port, node.auth, [
    { method: 'getbestblockhash', params: [] },
    { method: 'getmempoolinfo', params: [] },
  ]);
  return { tip, pool: pool.size };
}

/** CPU time (clock ticks) used so far by `pid` and its descendants (tsbtcd's front-ends), 0 for a process gone. */
function treeCpuTicks(pid: number): number {
  let ticks = 0;
  for (const p of processTree(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // exited
    }
  }
  return ticks;
}

/**
 * Waits until `node` has finished what wrk left queued: one request on each of 8 new
 * connections answered, then its processes idle (under 5% of a core over 250 ms). The
 * reply alone is not enough: a tsbtcd front-end answers getblockcount at once while
 * the coordinator may still be working through forwarded calls on the same core.
 */
async function drain(node: Served): Promise<void> {
  const conns = await Promise.all(Array.from({ length: 8 }, () => KeepAliveConnection.open(node.port, node.auth, 300_000)));
  await Promise.all(conns.map((c) => c.call('getblockcount')));
  for (const c of conns) c.close();
  const deadline = performance.now() + 300_000;
  for (let before = treeCpuTicks(node.pid); performance.now() < deadline; ) {
    await sleep(250);
    const after = treeCpuTicks(node.pid);
    // Linux clock ticks are 1/100 s: 5% of 250 ms is 1.25 ticks.
    if (after - before <= 1) return;
    before = after;
  }
}

class Load {
  private readonly dir = fs.mkdtempSync(path.join(tmpdir(), 'tsbtcd-bench-http-'));
  private scripts = 0;

  constructor(
    readonly wrkCpus: string | undefined,
    readonly wrkThreads: number,
  ) {}

  /** A warm-up run then a measured one of `seconds` of `row` against `node`. */
  async measure(node: Served, row: Row, seconds: number): Promise<WrkResult> {
    const url = `http://127.0.0.1:${node.port}${row.request.path}`;
    let script: string | undefined;
    if (row.request.body !== undefined) {
      script = path.join(this.dir, `post-${this.scripts++}.lua`);
      writePostScript(script, row.request.body, node.auth);
    }
    const once = (s: number) =>
      runWrk({ url, seconds: s, connections: CONNECTIONS, threads: this.wrkThreads, timeout: '60s', ...(this.wrkCpus === undefined ? {} : { cpus: this.wrkCpus }), ...(script === undefined ? {} : { script }) });
    await once(WARM_UP_SECONDS);
    await drain(node);
    const result = await once(seconds);
    await drain(node);
    return result;
  }

  cleanup(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

interface Measured {
  readonly row: Row;
  readonly seconds: number;
  readonly tsbtcd: WrkResult;
  readonly bitcoind?: WrkResult;
}

/** Both nodes on `row`, in the order given, at the same length; again longer when a run was too short to mean much. */
async function measureRow(load: Load, row: Row, order: readonly Served[]): Promise<Measured> {
  const runAll = async (seconds: number) => {
    const results = new Map<string, WrkResult>();
    for (const node of order) results.set(node.name, await load.measure(node, row, seconds));
    return results;
  };
  let seconds = SECONDS;
  let results = await runAll(seconds);
  const fewest = Math.min(...[...results.values()].map((r) => r.requests));
  if (fewest < MIN_REQUESTS && seconds < MAX_SECONDS) {
    seconds = Math.min(MAX_SECONDS, Math.ceil((SECONDS * MIN_REQUESTS * 1.2) / Math.max(fewest, 1)));
    results = await runAll(seconds);
  }
  const bitcoind = results.get('bitcoind');
  return { row, seconds, tsbtcd: results.get('tsbtcd')!, ...(bitcoind ? { bitcoind } : {}) };
}

/** Milliseconds, and requests per second, with the digits that matter. */
const ms = (value: number): string => fmt(value, value < 10 ? 2 : value < 100 ? 1 : 0);
const rate = (value: number): string => fmt(value, value < 10 ? 1 : 0);

function verdict(m: Measured): { ratio?: number; met: boolean; why: string } {
  if (m.bitcoind === undefined) return { met: false, why: 'no bitcoind' };
  const ratio = m.tsbtcd.rps / m.bitcoind.rps;
  const missed: string[] = [];
  if (ratio < m.row.target) missed.push(`ratio < ${m.row.target.toFixed(1)}`);
  if (m.tsbtcd.p99 >= m.bitcoind.p99) missed.push('p99 ≥ bitcoind');
  if (m.tsbtcd.errors.length > 0 || m.bitcoind.errors.length > 0) missed.push('errors');
  return { ratio, met: missed.length === 0, why: missed.length === 0 ? 'met' : `NOT met: ${missed.join(', ')}` };
}

function printTable(measured: readonly Measured[], heading: string): void {
  console.log(`\n${heading}`);
  const header =
    `${'row'.padEnd(36)}${pad('ts req/s', 10)}${pad('p50', 8)}${pad('p99', 8)}` +
    `${pad('core req/s', 12)}${pad('p50', 8)}${pad('p99', 8)}${pad('ratio', 7)}${pad('target', 8)}${pad('s', 4)}  verdict`;
  console.log(header);
  console.log('-'.repeat(header.length + 20));
  for (const m of measured) {
    const v = verdict(m);
    const core = m.bitcoind ? `${pad(rate(m.bitcoind.rps), 12)}${pad(ms(m.bitcoind.p50), 8)}${pad(ms(m.bitcoind.p99), 8)}` : `${pad('-', 12)}${pad('-', 8)}${pad('-', 8)}`;
    console.log(
      `${m.row.name.padEnd(36)}${pad(rate(m.tsbtcd.rps), 10)}${pad(ms(m.tsbtcd.p50), 8)}${pad(ms(m.tsbtcd.p99), 8)}${core}` +
        `${pad(v.ratio === undefined ? '-' : fmt(v.ratio, 2), 7)}${pad(`≥${m.row.target.toFixed(1)}`, 8)}${pad(String(m.seconds), 4)}  ${v.why}`,
    );
  }
  const met = measured.filter((m) => verdict(m).met).length;
  console.log(`targets met on ${met} of ${measured.length} rows (latencies in ms; ratio = tsbtcd req/s ÷ bitcoind req/s)`);
}

function describe(answer: Answer): string {
  return `HTTP ${answer.status} ${answer.contentType}, ${answer.body.length} bytes: ${answer.body.toString('latin1').slice(0, 160)}`;
}

/** Where the two answers part, for the report of a difference. */
function firstDifference(a: Buffer, b: Buffer): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const at = Math.max(0, i - 60);
  return `bytes differ from offset ${i}:\n    tsbtcd:   …${a.subarray(at, i + 100).toString('latin1')}\n    bitcoind: …${b.subarray(at, i + 100).toString('latin1')}`;
}

async function setAffinity(cpus: string | undefined): Promise<void> {
  if (cpus !== undefined) await run('taskset', ['-a', '-cp', cpus, String(process.pid)]);
}

async function main(): Promise<void> {
  await requireWrk('make bench-http');
  const reference = referenceBitcoind();
  const bitcoindPath = 'path' in reference ? reference.path : undefined;
  if ('missing' in reference) console.log(`bench-http: tsbtcd only, ${reference.missing}`);
  const chain = await ensureHttpChain(CACHE_DIR, bitcoindPath);
  if (chain === undefined) throw new Error(`no cached chain in ${CACHE_DIR} and no reference bitcoind to build it (set BITCOIND once)`);

  const cores = availableParallelism();
  const { serverCores, serverCpus, wrkCpus, wrkThreads } = await cpuSplit(cores);
  const startLoad = loadavg().map((l) => l.toFixed(2)).join(' ');
  const allCpus = `0-${cores - 1}`;

  // Daemons inherit this process's CPU affinity: started under the server CPUs, their defaults count those.
  let tsbtcd: Daemon | undefined;
  let bitcoind: BitcoindProcess | undefined;
  // Stopped from the terminal: exit handlers (the harness kills tsbtcd there) run, and bitcoind is killed too.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      bitcoind?.child.kill('SIGKILL');
      process.exit(130);
    });
  }
  await setAffinity(serverCpus);
  const load = new Load(wrkCpus, wrkThreads);
  try {
    tsbtcd = await Daemon.start({ args: ['-rest'], readyTimeoutMs: 60_000 });
    if (bitcoindPath !== undefined) bitcoind = await BitcoindProcess.start(bitcoindPath, ['-rest', '-connect=0']);
    await setAffinity(wrkCpus ?? allCpus);
    const nodes: Served[] = [{ name: 'tsbtcd', pid: tsbtcd.proc.pid!, port: tsbtcd.port, auth: tsbtcd.cookie().trim() }];
    if (bitcoind) nodes.push({ name: 'bitcoind', pid: bitcoind.child.pid!, port: bitcoind.rpc.port, auth: fs.readFileSync(path.join(bitcoind.datadir, 'regtest', '.cookie'), 'utf8').trim() });

    const started = performance.now();
    await Promise.all(nodes.map((n) => replay(n.port, n.auth, chain)));
    const states = await Promise.all(nodes.map(state));
    for (const [i, s] of states.entries()) console.log(`${nodes[i]!.name}: tip ${s.tip}, ${s.pool} pool transactions (replayed in ${fmt((performance.now() - started) / 1000, 1)} s)`);
    if (states.some((s) => s.tip !== states[0]!.tip || s.pool !== chain.mempool.length)) throw new Error('the nodes do not hold the same chain and pool');

    const table = rows(chain).filter((row) => ROW_FILTER === undefined || ROW_FILTER.test(row.name));
    // Same answers from both before any timing.
    let differences = 0;
    for (const row of table) {
      const answers = await Promise.all(nodes.map((n) => exchange(n.port, n.auth, row.request)));
      const ts = answers[0]!;
      if (ts.status !== 200) throw new Error(`${row.name}: tsbtcd answered ${describe(ts)}`);
      const core = answers[1];
      if (core && !sameAnswer(row.request, ts, core)) {
        differences++;
        console.log(`DIFFERENT ${row.name}:\n  tsbtcd:   ${describe(ts)}\n  bitcoind: ${describe(core)}\n  ${firstDifference(ts.body, core.body)}`);
      }
    }
    if (differences > 0) throw new Error(`${differences} row(s) answered differently by tsbtcd and bitcoind: not timed`);
    console.log(`Every row's answer is the same from ${nodes.map((n) => n.name).join(' and ')}.`);

    const where = serverCpus === undefined ? `unpinned, ${cores} core(s) shared` : `daemons on CPU ${serverCpus} (${serverCores} core${serverCores > 1 ? 's' : ''}), wrk -t${wrkThreads} on CPU ${wrkCpus}`;
    let failed = false;
    for (let runIndex = 1; runIndex <= RUNS; runIndex++) {
      const measured: Measured[] = [];
      for (const [i, row] of table.entries()) {
        const order = i % 2 === 0 ? nodes : [...nodes].reverse();
        const m = await measureRow(load, row, order);
        measured.push(m);
        const line = (r: WrkResult | undefined) => (r === undefined ? '-' : `${rate(r.rps)} req/s p50 ${ms(r.p50)} p99 ${ms(r.p99)}`);
        console.log(`  ${row.name}: tsbtcd ${line(m.tsbtcd)}; bitcoind ${line(m.bitcoind)}`);
        for (const [name, r] of [['tsbtcd', m.tsbtcd], ['bitcoind', m.bitcoind]] as const) {
          if (r && r.errors.length > 0) {
            failed = true;
            console.error(`${row.name} on ${name}: ${r.errors.join(', ')}`);
          }
        }
      }
      const load1 = loadavg().map((l) => l.toFixed(2)).join(' ');
      printTable(measured, `Run ${runIndex} of ${RUNS}: ${CONNECTIONS} keep-alive connections, ${SECONDS} s per run after ${WARM_UP_SECONDS} s warm-up; ${where}; load average at the start ${startLoad}, now ${load1}`);
    }
    if (failed) process.exitCode = 1;
    if (HOLD) {
      for (const n of nodes) console.log(`holding ${n.name} (pid ${n.pid}): port ${n.port}, cookie ${n.auth}`);
      await new Promise(() => undefined);
    }
  } finally {
    load.cleanup();
    await tsbtcd?.cleanup();
    await bitcoind?.stop();
  }
}

await main();
