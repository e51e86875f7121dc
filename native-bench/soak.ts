/**
 * `make soak`: tsbtcd on regtest with -rest under 1,000 concurrent keep-alive connections
 * for SOAK_SECONDS (default 600) of mixed load, checking that it stays up, answers
 * everything, keeps its memory flat and replaces a killed front-end at once.
 *
 * - Chain: 2,010 blocks with a block of 2,000 transactions (http-block.ts), a new block
 *   every BLOCK_SECONDS (3) during the run.
 * - Load: wrk (Debian's) with 900 connections, each sending a request every SOAK_PACE_MS
 *   (default 1000: about 900 requests/s offered, a steady load rather than saturation),
 *   cycling through 300 requests: getblockcount, getblockhash, getbestblockhash and
 *   getblockchaininfo, with six heavy ones spread among them (REST headers/<genesis>.bin
 *   ?count=2000 and getutxos/checkmempool of 15 outpoints twice each, REST
 *   block/<big>.bin, getblock <big> 2). And 100 long polls held open at once from this
 *   process, each connection alternating waitfornewblock 10000 and waitforblockheight
 *   <next> 10000.
 * - wrk runs in three parts: the warm-up (10% of the run, at least 10 s), a 10 s part in
 *   which front-end 0 is killed with SIGKILL 3 s in, and the rest. Errors must be 0:
 *   non-2xx replies, socket errors, timeouts (30 s), a long poll failing, unanswered 20 s
 *   after its own timeout, or returning no newer block though one was mined, a block not
 *   generated. Deliberate: socket errors in the kill part, long polls the kill cut.
 * - Every second each front-end pid (debug.log's list, restarts applied) and the
 *   coordinator must be alive. The killed front-end's replacement must answer a request
 *   within 1 s of the kill: probes every 10 ms look for a new process of the daemon
 *   listening on the port (/proc), then open connections until one it accepted is
 *   answered; both times are printed.
 * - RSS of the coordinator and of each front-end every 5 s, split as the kernel counts it
 *   (/proc status RssAnon and RssFile), printed at the end of the warm-up and at the end.
 *   The allocated part (RssAnon: heaps, buffers) is judged by rss-flat.ts's rule; the
 *   mapped-file part (LMDB's map pages the process touched, which grow with the database
 *   as the soak adds blocks, and are page cache the kernel may drop) is reported beside it.
 * Prints a summary and exits 1 if any criterion fails.
 */
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Daemon, pidAlive, sleep } from '../test/integration/daemon-harness.js';
import { acceptingPids, KeepAliveConnection, openFileLimit, type RawReply } from '../test/integration/load-http-client.js';
import { CookieRpc } from './cookie-rpc.js';
import { buildBigBlock } from './http-block.js';
import { fmt } from './measure.js';
import { currentRssParts, processTree } from './process-rss.js';
import { MiB, notFlat } from './rss-flat.js';
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
/** Each wrk connection's pause between requests (SOAK_PACE_MS): 900 connections offer about 900 requests/s. */
const PACE_MS = Number(process.env['SOAK_PACE_MS'] ?? 1000);
/** Requests in one turn of the mix, six of them heavy. */
const MIX_CYCLE = 300;
/** A long poll not answered this long after its timeout is a failure. */
const LONG_POLL_SLACK_MS = 20_000;

type RssParts = { anon: number; file: number };

interface RssSample {
  readonly at: number;
  readonly coordinator: RssParts | undefined;
  /** Per front-end slot. */
  readonly frontends: (RssParts | undefined)[];
}

/**
 * The wrk script: each connection sends one request every PACE_MS (wrk's delay()), cycling
 * through MIX_CYCLE requests of which the heavy ones are few, so the offered load is
 * steady and below what the node serves (a soak, not a saturation test).
 */
function mixScript(auth: string, big: string, genesis: string, outpoints: readonly string[]): string {
  const rpc = (method: string, params: unknown[]) =>
    `wrk.format("POST", "/", headers, ${luaString(JSON.stringify({ jsonrpc: '1.0', id: 'soak', method, params }))})`;
  const get = (target: string) => `wrk.format("GET", ${luaString(target)})`;
  const light = [rpc('getblockcount', []), rpc('getblockhash', [1000]), rpc('getbestblockhash', []), rpc('getblockchaininfo', [])];
  const heavy = [
    get(`/rest/headers/${genesis}.bin?count=2000`),
    get(`/rest/getutxos/checkmempool/${outpoints.join('/')}.json`),
    get(`/rest/block/${big}.bin`),
    get(`/rest/headers/${genesis}.bin?count=2000`),
    rpc('getblock', [big, 2]),
    get(`/rest/getutxos/checkmempool/${outpoints.join('/')}.json`),
  ];
  // The heavy requests spread evenly over the cycle, light ones round-robin in between.
  const mix: string[] = [];
  const every = Math.floor(MIX_CYCLE / heavy.length);
  for (let i = 0; i < MIX_CYCLE; i++) mix.push(i % every === 0 && i / every < heavy.length ? heavy[i / every]! : light[i % light.length]!);
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
    `delay = function() return ${PACE_MS} end`,
    '',
  ].join('\n');
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
    /** The height of the last block the generator has seen mined. */
    private readonly generatedHeight: () => number,
  ) {}

  start(count: number, height: number): void {
    for (let i = 0; i < count; i++) this.loops.push(this.loop(i, height));
  }

  private inKillWindow(): boolean {
    const w = this.killWindow();
    const now = performance.now();
    return w !== undefined && now >= w.from && now <= w.to;
  }

  /** One call with a deadline: a long poll unanswered LONG_POLL_SLACK_MS after its own timeout fails. */
  private static async callWithin(conn: KeepAliveConnection, method: string, params: unknown[]): Promise<RawReply> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${method} unanswered ${LONG_POLL_TIMEOUT_MS + LONG_POLL_SLACK_MS} ms after it was sent`)), LONG_POLL_TIMEOUT_MS + LONG_POLL_SLACK_MS);
    });
    try {
      return await Promise.race([conn.call(method, params), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async loop(index: number, startHeight: number): Promise<void> {
    let seen = startHeight;
    let conn: KeepAliveConnection | undefined;
    for (let round = 0; !this.stopping; round++) {
      try {
        conn ??= await KeepAliveConnection.open(this.port, this.auth, LONG_POLL_TIMEOUT_MS);
        const method = round % 2 === 1 ? 'waitforblockheight' : 'waitfornewblock';
        const reply = await LongPolls.callWithin(conn, method, method === 'waitforblockheight' ? [seen + 1, LONG_POLL_TIMEOUT_MS] : [LONG_POLL_TIMEOUT_MS]);
        if (reply.status !== 200) {
          this.errors.push(`long poll ${index}: HTTP ${reply.status} ${reply.body.slice(0, 120)}`);
          continue;
        }
        const { height } = (JSON.parse(reply.body) as { result: { height: number } }).result;
        // No newer block is a failure only when one was mined meanwhile (a generator held up by the load is reported on its own).
        if (height <= seen && this.generatedHeight() > seen && !this.stopping) this.errors.push(`long poll ${index}: ${method} returned height ${height}, not above ${seen}, though ${this.generatedHeight()} was mined`);
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

/** Pids among `pids` with a listening TCP socket on 127.0.0.1:`port` (/proc/net/tcp state 0A, matched by inode). */
function listeningPids(port: number, pids: readonly number[]): number[] {
  const inodes = new Set<string>();
  for (const line of fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length >= 10 && f[3] === '0A' && parseInt(f[1]!.split(':')[1]!, 16) === port) inodes.add(f[9]!);
  }
  return pids.filter((pid) => {
    try {
      return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return inodes.has(/^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '');
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  });
}

interface Restart {
  readonly oldPid: number;
  readonly newPid: number;
  /** From the kill until the new process listens on the port. */
  readonly listeningMs: number;
  /** From the kill until it has answered a request. */
  readonly answeredMs: number;
}

/**
 * Kills front-end `slot` with SIGKILL and times its replacement: every 10 ms, the
 * daemon's processes other than the coordinator and the front-ends before the kill are
 * looked up in /proc; once one listens on the port, new connections (1 s to connect) are
 * opened until one that it accepted is answered.
 */
async function killAndTimeRestart(d: Daemon, slot: number): Promise<Restart> {
  const before = d.frontendPids();
  const oldPid = before[slot]!;
  const known = new Set([d.proc.pid!, ...before]);
  const auth = d.cookie().trim();
  const killedAt = performance.now();
  process.kill(oldPid, 'SIGKILL');
  let listeningMs: number | undefined;
  for (;;) {
    if (performance.now() - killedAt > 30_000) throw new Error(`front-end ${slot} was not replaced within 30 s of the kill`);
    const candidates = listeningPids(d.port, processTree(d.proc.pid!).filter((pid) => !known.has(pid)));
    if (candidates.length > 0) {
      listeningMs ??= performance.now() - killedAt;
      const conns = (await Promise.all(Array.from({ length: 4 }, () => KeepAliveConnection.open(d.port, auth, 1000).catch(() => undefined)))).filter(
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
      if (newPid !== undefined) return { oldPid, newPid, listeningMs, answeredMs: performance.now() - killedAt };
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
    for (let height = await d.call<number>('getblockcount'); height < CHAIN_HEIGHT; height = await d.call<number>('getblockcount')) {
      await d.call('generatetoaddress', [Math.min(250, CHAIN_HEIGHT - height), MINER]);
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
    let generatedHeight = CHAIN_HEIGHT;
    const rpc = new CookieRpc(d.port, d.cookiePath);
    generator = setInterval(() => {
      rpc.call<string[]>('generatetoaddress', [1, MINER], 60_000).then(
        () => {
          blocks++;
          generatedHeight++;
        },
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
    const sample = () => samples.push({ at: elapsed(), coordinator: currentRssParts(d.proc.pid!), frontends: d.frontendPids().map((pid) => currentRssParts(pid)) });
    sample();
    sampler = setInterval(sample, RSS_EVERY_MS);

    polls = new LongPolls(d.port, auth, () => killWindow, () => generatedHeight);
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
    console.log(
      `front-end ${killSlot} (pid ${restart.oldPid}) killed with SIGKILL; pid ${restart.newPid} listening on the port after ${fmt(restart.listeningMs)} ms, ` +
        `answering after ${fmt(restart.answeredMs)} ms (limit ${RESTART_LIMIT_MS} ms)`,
    );
    if (restart.answeredMs >= RESTART_LIMIT_MS) failures.push(`the killed front-end's replacement answered ${fmt(restart.answeredMs)} ms after the kill, not within ${RESTART_LIMIT_MS} ms`);
    if (deaths.length > 0) failures.push(`processes died: ${deaths.join('; ')}`);

    const mib = (bytes: number | undefined) => (bytes === undefined ? '-' : `${fmt(bytes / MiB, 1)} MiB`);
    const parts = (p: RssParts | undefined) => (p === undefined ? '-' : `${mib(p.anon + p.file)} (${mib(p.anon)} allocated + ${mib(p.file)} mapped files)`);
    console.log(`RSS at the end of the warm-up (${fmt(warmSample.at / 1000)} s): coordinator ${parts(warmSample.coordinator)}; front-ends ${warmSample.frontends.map(parts).join(', ')}`);
    console.log(`RSS at the end (${fmt(endSample.at / 1000)} s): coordinator ${parts(endSample.coordinator)}; front-ends ${endSample.frontends.map(parts).join(', ')}`);
    const totalSeconds = endSample.at / 1000;
    const series: [string, (RssParts | undefined)[]][] = [['coordinator', samples.map((s) => s.coordinator)]];
    for (let slot = 0; slot < frontendCount; slot++) series.push([`front-end ${slot}`, samples.map((s) => s.frontends[slot])]);
    for (const [name, points] of series) {
      const at = (part: keyof RssParts) => points.flatMap((p, i) => (p === undefined ? [] : [{ at: samples[i]!.at, rss: p[part] }]));
      // Judged: what the process allocated. Reported: the mapped database pages it touched,
      // which grow with the chain the soak extends (and which the kernel may drop).
      const problem = notFlat(at('anon'), totalSeconds);
      const fileProblem = notFlat(at('file'), totalSeconds);
      console.log(`RSS ${name}: allocated ${problem === undefined ? 'flat' : `NOT flat (${problem})`}; mapped files ${fileProblem === undefined ? 'flat' : `growing (${fileProblem})`}`);
      if (problem !== undefined) failures.push(`allocated RSS of the ${name} is not flat: ${problem}`);
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
