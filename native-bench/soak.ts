/**
 * `make soak`: tsbtcd on regtest with -rest under 1,000 concurrent keep-alive connections
 * for SOAK_SECONDS (default 600) of mixed load, checking that it stays up, answers
 * everything, keeps its memory flat and replaces a killed front-end at once.
 *
 * - Chain: 2,010 blocks with a block of 2,000 transactions (http-block.ts), a new block
 *   every BLOCK_SECONDS (3) during the run.
 * - Load: wrk (Debian's) with 900 connections and a Lua script cycling through
 *   getblockcount, getblockhash, getbestblockhash, getblockchaininfo (4 each), REST
 *   block/<big>.bin, getblock <big> 2, REST headers/<genesis>.bin?count=2000 and
 *   getutxos/checkmempool of 15 outpoints (.json) (2 each; the block ones 1 each); and 100
 *   long polls held open at once from this process, each connection alternating
 *   waitfornewblock 10000 and waitforblockheight <next> 10000 (every one must return a
 *   newer block than the last it saw).
 * - wrk runs in three parts: the warm-up (10% of the run, at least 10 s), a 10 s part in
 *   which front-end 0 is killed with SIGKILL 3 s in, and the rest. Errors (non-2xx replies,
 *   socket errors, timeouts, long polls failing or returning no newer block) must be 0,
 *   except the deliberate ones: socket errors in the kill part and long polls cut by the kill.
 * - Every second each front-end pid (debug.log's list, restarts applied) and the
 *   coordinator must be alive. The killed front-end's replacement must answer a request on
 *   the port within 1 s of the kill (timed with probes every 10 ms: new connections until
 *   one that a new process of the daemon accepted, per /proc, is answered).
 * - RSS (VmRSS) of the coordinator and of each front-end every 5 s, reported at the end of
 *   the warm-up and at the end. Flat means, for each process: the mean over the last third
 *   of the run at most 10% above the mean over the second third, and the means of the four
 *   sixths of the last two thirds not rising at each step (monotonic growth).
 * Prints a summary and exits 1 if any criterion fails.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Daemon, pidAlive, sleep } from '../test/integration/daemon-harness.js';
import { acceptingPids, KeepAliveConnection, openFileLimit } from '../test/integration/load-http-client.js';
import { buildBigBlock } from './http-block.js';
import { fmt } from './measure.js';
import { currentRss, processTree } from './process-rss.js';
import { luaString, requireWrk, runWrk, type WrkResult } from './wrk.js';

const SECONDS = Number(process.env['SOAK_SECONDS'] ?? 600);
const CONNECTIONS = 1000;
const LONG_POLLS = 100;
const WRK_CONNECTIONS = CONNECTIONS - LONG_POLLS;
const WARM_UP_SECONDS = Math.max(10, Math.round(SECONDS / 10));
const KILL_PART_SECONDS = 10;
const KILL_AFTER_SECONDS = 3;
const BLOCK_SECONDS = 3;
const RSS_EVERY_MS = 5000;
const LONG_POLL_TIMEOUT_MS = 10_000;
const RESTART_LIMIT_MS = 1000;
const CHAIN_HEIGHT = 2010;
const MINER = 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk';
const MiB = 1024 * 1024;

interface RssSample {
  readonly at: number;
  readonly coordinator: number;
  /** Per front-end slot. */
  readonly frontends: (number | undefined)[];
}

/** The wrk script cycling through the request mix. */
function mixScript(auth: string, big: string, genesis: string, outpoints: readonly string[]): string {
  const rpc = (method: string, params: unknown[]) =>
    `wrk.format("POST", "/", headers, ${luaString(JSON.stringify({ jsonrpc: '1.0', id: 'soak', method, params }))})`;
  const get = (target: string) => `wrk.format("GET", ${luaString(target)})`;
  const light = [rpc('getblockcount', []), rpc('getblockhash', [1000]), rpc('getbestblockhash', []), rpc('getblockchaininfo', [])];
  const mix = [
    ...light,
    get(`/rest/headers/${genesis}.bin?count=2000`),
    ...light,
    get(`/rest/getutxos/checkmempool/${outpoints.join('/')}.json`),
    ...light,
    get(`/rest/block/${big}.bin`),
    get(`/rest/headers/${genesis}.bin?count=2000`),
    ...light,
    rpc('getblock', [big, 2]),
    get(`/rest/getutxos/checkmempool/${outpoints.join('/')}.json`),
  ];
  return [
    `local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Basic ${Buffer.from(auth).toString('base64')}" }`,
    'local requests = {}',
    'local n = 0',
    'init = function(args)',
    ...mix.map((r) => `  table.insert(requests, ${r})`),
    'end',
    'request = function()',
    '  n = n + 1',
    '  return requests[(n % #requests) + 1]',
    'end',
    '',
  ].join('\n');
}

/** Mean of `values` (NaN when empty). */
const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / values.length;

/** The flatness rule of the header comment over one process's samples; undefined when flat. */
function notFlat(samples: readonly { at: number; rss: number }[], seconds: number): string | undefined {
  const within = (from: number, to: number) => samples.filter((s) => s.at >= from * seconds * 1000 && s.at < to * seconds * 1000).map((s) => s.rss);
  const second = within(1 / 3, 2 / 3);
  const last = within(2 / 3, 1.01);
  if (second.length === 0 || last.length === 0) return 'too few samples';
  const problems: string[] = [];
  if (mean(last) > 1.1 * mean(second)) problems.push(`last third's mean ${fmt(mean(last) / MiB, 1)} MiB > 110% of the second third's ${fmt(mean(second) / MiB, 1)} MiB`);
  const sixths = [2, 3, 4, 5].map((k) => mean(within(k / 6, (k + 1) / 6 + (k === 5 ? 0.01 : 0))));
  if (sixths.every((m, i) => i === 0 || m > sixths[i - 1]!)) problems.push(`rising at every sixth: ${sixths.map((m) => fmt(m / MiB, 1)).join(' → ')} MiB`);
  return problems.length === 0 ? undefined : problems.join('; ');
}

/** The long-poll clients: each connection alternates waitfornewblock and waitforblockheight <next>. */
class LongPolls {
  completed = 0;
  readonly errors: string[] = [];
  /** Connections cut while a front-end was being killed (deliberate). */
  cut = 0;
  private stopping = false;
  private readonly loops: Promise<void>[] = [];

  constructor(
    private readonly port: number,
    private readonly auth: string,
    private readonly killWindow: () => { from: number; to: number } | undefined,
  ) {}

  start(count: number, height: number): void {
    for (let i = 0; i < count; i++) this.loops.push(this.loop(i, height));
  }

  private inKillWindow(): boolean {
    const w = this.killWindow();
    const now = performance.now();
    return w !== undefined && now >= w.from && now <= w.to;
  }

  private async loop(index: number, startHeight: number): Promise<void> {
    let seen = startHeight;
    let conn: KeepAliveConnection | undefined;
    for (let round = 0; !this.stopping; round++) {
      try {
        conn ??= await KeepAliveConnection.open(this.port, this.auth, LONG_POLL_TIMEOUT_MS * 3);
        const waitHeight = round % 2 === 1;
        const reply = waitHeight ? await conn.call('waitforblockheight', [seen + 1, LONG_POLL_TIMEOUT_MS]) : await conn.call('waitfornewblock', [LONG_POLL_TIMEOUT_MS]);
        if (reply.status !== 200) {
          this.errors.push(`long poll ${index}: HTTP ${reply.status} ${reply.body.slice(0, 120)}`);
          continue;
        }
        const { height } = (JSON.parse(reply.body) as { result: { height: number } }).result;
        if (height <= seen && !this.stopping) this.errors.push(`long poll ${index}: ${waitHeight ? 'waitforblockheight' : 'waitfornewblock'} returned height ${height}, not above ${seen}`);
        seen = Math.max(seen, height);
        this.completed++;
      } catch (err) {
        conn?.close();
        conn = undefined;
        if (this.stopping) return;
        if (this.inKillWindow()) this.cut++;
        else this.errors.push(`long poll ${index}: ${(err as Error).message}`);
        await sleep(50);
      }
    }
    conn?.close();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    // Each returns within its timeout: the next block ends them sooner.
    await Promise.all(this.loops);
  }
}

/**
 * Kills front-end `slot` with SIGKILL and times until a new process of the daemon answers
 * a request on the port: connections opened every 10 ms, each matched through /proc to
 * the process that accepted it, until one a process other than the coordinator and the
 * surviving front-ends accepted is answered. Milliseconds, with the old and new pids.
 */
async function killAndTimeRestart(d: Daemon, slot: number): Promise<{ ms: number; oldPid: number; newPid: number }> {
  const before = d.frontendPids();
  const oldPid = before[slot]!;
  const known = new Set([d.proc.pid!, ...before]);
  const auth = d.cookie().trim();
  const killedAt = performance.now();
  process.kill(oldPid, 'SIGKILL');
  for (;;) {
    if (performance.now() - killedAt > 30_000) throw new Error(`front-end ${slot} was not replaced within 30 s of the kill`);
    const candidates = processTree(d.proc.pid!).filter((pid) => !known.has(pid));
    if (candidates.length > 0) {
      const conns = (await Promise.all(Array.from({ length: 4 }, () => KeepAliveConnection.open(d.port, auth).catch(() => undefined)))).filter(
        (c): c is KeepAliveConnection => c !== undefined,
      );
      const acceptedBy = acceptingPids(d.port, candidates);
      const answers = await Promise.all(
        conns.map(async (c) => {
          const pid = acceptedBy.get(c.localPort);
          if (pid === undefined) return undefined;
          return (await c.call('getblockcount').catch(() => undefined))?.status === 200 ? pid : undefined;
        }),
      );
      for (const c of conns) c.close();
      const newPid = answers.find((pid) => pid !== undefined);
      if (newPid !== undefined) return { ms: performance.now() - killedAt, oldPid, newPid };
    }
    await sleep(10);
  }
}

async function main(): Promise<void> {
  await requireWrk('make soak');
  const limit = openFileLimit();
  if (limit < CONNECTIONS + 200) throw new Error(`the open-file limit is ${limit}: ${CONNECTIONS} connections need more (ulimit -n 4096; make soak raises it)`);
  const workDir = fs.mkdtempSync(path.join(tmpdir(), 'tsbtcd-soak-'));
  const d = await Daemon.start({ args: ['-rest'], readyTimeoutMs: 60_000 });
  const failures: string[] = [];
  let generator: NodeJS.Timeout | undefined;
  let watcher: NodeJS.Timeout | undefined;
  let sampler: NodeJS.Timeout | undefined;
  let polls: LongPolls | undefined;
  try {
    const built = performance.now();
    const big = await buildBigBlock(d);
    while ((await d.call<number>('getblockcount')) < CHAIN_HEIGHT) {
      const missing = CHAIN_HEIGHT - (await d.call<number>('getblockcount'));
      await d.call('generatetoaddress', [Math.min(250, missing), MINER]);
    }
    const genesis = await d.call<string>('getblockhash', [0]);
    const outpoints = (await d.call<{ tx: string[] }>('getblock', [big.hash, 1])).tx.slice(1, 16).map((txid) => `${txid}-0`);
    console.log(`Chain of ${CHAIN_HEIGHT} blocks, big block ${big.hash} (${fmt(big.txCount)} transactions, ${fmt(big.size)} bytes), built in ${fmt((performance.now() - built) / 1000, 1)} s`);
    const auth = d.cookie().trim();
    const script = path.join(workDir, 'mix.lua');
    fs.writeFileSync(script, mixScript(auth, big.hash, genesis, outpoints));

    const t0 = performance.now();
    const elapsed = () => performance.now() - t0;
    let killWindow: { from: number; to: number } | undefined;
    const frontendCount = d.frontendPids().length;
    const killSlot = 0;
    let killedPid: number | undefined;

    // A block every few seconds, so the long polls complete.
    let blocks = 0;
    generator = setInterval(() => {
      d.call('generatetoaddress', [1, MINER]).then(
        () => blocks++,
        (err: Error) => failures.push(`generatetoaddress: ${err.message}`),
      );
    }, BLOCK_SECONDS * 1000);

    // Every second: the coordinator and each front-end alive.
    const deaths: string[] = [];
    watcher = setInterval(() => {
      if (!pidAlive(d.proc.pid!)) deaths.push(`coordinator ${d.proc.pid} gone at ${fmt(elapsed() / 1000, 1)} s`);
      for (const [slot, pid] of d.frontendPids().entries()) {
        if (pid !== killedPid && !pidAlive(pid)) deaths.push(`front-end ${slot} (pid ${pid}) gone at ${fmt(elapsed() / 1000, 1)} s`);
      }
    }, 1000);

    const samples: RssSample[] = [];
    const sample = () => samples.push({ at: elapsed(), coordinator: currentRss(d.proc.pid!) ?? 0, frontends: d.frontendPids().map((pid) => currentRss(pid)) });
    sample();
    sampler = setInterval(sample, RSS_EVERY_MS);

    polls = new LongPolls(d.port, auth, () => killWindow);
    polls.start(LONG_POLLS, await d.call<number>('getblockcount'));

    const wrk = (seconds: number) => runWrk({ url: `http://127.0.0.1:${d.port}/`, seconds, connections: WRK_CONNECTIONS, threads: 1, script, timeout: '30s' });
    console.log(`Soak: ${SECONDS} s, ${WRK_CONNECTIONS} wrk connections + ${LONG_POLLS} long polls, ${frontendCount} front-ends, a block every ${BLOCK_SECONDS} s`);
    const warm = await wrk(WARM_UP_SECONDS);
    sample();
    const warmSample = samples.at(-1)!;

    // The kill part: front-end 0 killed KILL_AFTER_SECONDS in, while wrk runs.
    const killPart = wrk(KILL_PART_SECONDS);
    await sleep(KILL_AFTER_SECONDS * 1000);
    killedPid = d.frontendPids()[killSlot];
    const killStart = performance.now();
    killWindow = { from: killStart, to: killStart + 30_000 };
    const restart = await killAndTimeRestart(d, killSlot);
    // Connections cut by the kill show up within a moment of the replacement answering.
    killWindow = { from: killStart, to: performance.now() + 2000 };
    const killed = await killPart;

    const rest = await wrk(Math.max(1, SECONDS - WARM_UP_SECONDS - KILL_PART_SECONDS));
    sample();
    clearInterval(sampler);
    clearInterval(watcher);
    clearInterval(generator);
    // The long polls end with the next block.
    const stopping = polls.stop();
    await d.call('generatetoaddress', [1, MINER]);
    await stopping;
    const endSample = samples.at(-1)!;

    // The verdicts.
    const describeWrk = (name: string, r: WrkResult) =>
      `${name}: ${fmt(r.requests)} requests, ${fmt(r.rps)} req/s, p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms${r.errors.length > 0 ? `, ${r.errors.join(', ')}` : ''}`;
    console.log(`\n${describeWrk('warm-up', warm)}\n${describeWrk('kill part', killed)}\n${describeWrk('main part', rest)}`);
    for (const [name, r] of [['warm-up', warm], ['main part', rest]] as const) if (r.errors.length > 0) failures.push(`${name}: ${r.errors.join(', ')}`);
    // In the kill part only the connections the dead front-end held may fail, as socket errors.
    const killErrors = killed.errors.filter((e) => !/^socket errors: connect \d+, read \d+, write \d+, timeout 0$/.test(e));
    if (killErrors.length > 0) failures.push(`kill part: ${killErrors.join(', ')}`);
    console.log(`long polls: ${fmt(polls.completed)} completed, ${polls.cut} cut by the kill (deliberate), ${polls.errors.length} errors; ${blocks} blocks generated`);
    if (polls.errors.length > 0) failures.push(`${polls.errors.length} long-poll errors, the first: ${polls.errors.slice(0, 3).join(' | ')}`);
    console.log(`front-end ${killSlot} (pid ${restart.oldPid}) killed with SIGKILL; pid ${restart.newPid} answering on the port after ${fmt(restart.ms)} ms (limit ${RESTART_LIMIT_MS} ms)`);
    if (restart.ms >= RESTART_LIMIT_MS) failures.push(`the killed front-end was replaced after ${fmt(restart.ms)} ms, not within ${RESTART_LIMIT_MS} ms`);
    if (deaths.length > 0) failures.push(`processes died: ${deaths.join('; ')}`);

    const mib = (bytes: number | undefined) => (bytes === undefined ? '-' : `${fmt(bytes / MiB, 1)} MiB`);
    console.log(`RSS at the end of the warm-up (${fmt(warmSample.at / 1000)} s): coordinator ${mib(warmSample.coordinator)}, front-ends ${warmSample.frontends.map(mib).join(', ')}`);
    console.log(`RSS at the end (${fmt(endSample.at / 1000)} s): coordinator ${mib(endSample.coordinator)}, front-ends ${endSample.frontends.map(mib).join(', ')}`);
    const totalSeconds = endSample.at / 1000;
    const series: [string, { at: number; rss: number }[]][] = [['coordinator', samples.map((s) => ({ at: s.at, rss: s.coordinator }))]];
    for (let slot = 0; slot < frontendCount; slot++) {
      series.push([`front-end ${slot}`, samples.flatMap((s) => (s.frontends[slot] === undefined ? [] : [{ at: s.at, rss: s.frontends[slot]! }]))]);
    }
    for (const [name, points] of series) {
      const problem = notFlat(points, totalSeconds);
      console.log(`RSS ${name}: ${problem === undefined ? 'flat' : `NOT flat (${problem})`}`);
      if (problem !== undefined) failures.push(`RSS of the ${name} is not flat: ${problem}`);
    }
    console.log(failures.length === 0 ? '\nsoak: every criterion met' : `\nsoak: FAILED\n  ${failures.join('\n  ')}`);
    if (failures.length > 0) process.exitCode = 1;
  } finally {
    clearInterval(generator);
    clearInterval(watcher);
    clearInterval(sampler);
    const ending = polls?.stop();
    await d.cleanup();
    await ending;
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
