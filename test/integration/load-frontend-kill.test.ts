/**
 * A front-end process killed (SIGKILL) in the middle of sustained load from many
 * keep-alive connections, with -rpcfrontends=2: the coordinator restarts it, the other
 * front-end keeps answering, and no request that reached a live front-end fails.
 *
 * Which process accepted each connection is read from /proc (the server-side socket's
 * inode among the front-ends' descriptors), so every outcome is classified exactly:
 * - an HTTP reply that is an error or a wrong result: failed (must be 0);
 * - no reply because the connection broke (reset or closed), on a connection the killed
 *   process had accepted: the request never reached a live front-end; it is retried on
 *   a new connection and must then succeed;
 * - no reply on a connection a live front-end had accepted: failed (must be 0).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon, pidAlive, sleep, waitFor } from './daemon-harness.js';
import { acceptingPids, ConnectionFailure, KeepAliveConnection, type RawReply } from './load-http-client.js';

const CONNECTIONS = 200;
const BLOCKS = 50;
/** Load before the kill, and after the restart (ms). */
const LOAD_BEFORE_MS = 1500;
const LOAD_AFTER_MS = 1500;
/** Fresh connections opened once the restarted front-end listens: some must land on it. */
const FRESH_CONNECTIONS = 64;
const ADDRESS = 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk';

let d: Daemon;
let hashes: string[];

before(async () => {
  d = await Daemon.start({ args: ['-rpcfrontends=2'] });
  const mined: string[] = await d.call('generatetoaddress', [BLOCKS, ADDRESS]);
  hashes = [await d.call<string>('getblockhash', [0]), ...mined];
});
after(async () => {
  await d?.cleanup();
});

interface Counts {
  requests: number;
  ok: number;
  /** HTTP replies that were errors or wrong results. */
  badReplies: string[];
  /** Requests whose connection broke on the killed front-end (then retried). */
  brokenOnKilled: number;
  /** Requests whose connection broke on a live front-end. */
  brokenOnLive: string[];
  retriedOk: number;
  reconnects: number;
  /** Requests answered on connections the restarted front-end accepted. */
  answeredByRestarted: number;
}

function isRight(reply: RawReply, height: number): boolean {
  try {
    const json = JSON.parse(reply.body) as { result?: unknown; error?: unknown };
    return reply.status === 200 && json.error === null && json.result === hashes[height];
  } catch {
    return false;
  }
}

/**
 * Learns which front-end accepted each connection: one /proc scan every few milliseconds
 * for all connections not yet placed (a new one may still sit in an accept queue).
 */
class AcceptTracker {
  readonly owner = new Map<KeepAliveConnection, number>();
  private readonly unplaced = new Set<KeepAliveConnection>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly pids: () => number[]) {}

  track(conn: KeepAliveConnection): void {
    this.unplaced.add(conn);
    this.timer ??= setTimeout(() => this.scan(), 10);
  }

  /** Waits until every tracked connection is placed. */
  async settled(): Promise<void> {
    await waitFor('the front-ends to accept every connection', () => (this.unplaced.size === 0 ? true : undefined), 10_000);
  }

  private scan(): void {
    this.timer = undefined;
    const accepted = acceptingPids(d.port, this.pids());
    for (const conn of this.unplaced) {
      const pid = accepted.get(conn.localPort);
      if (pid === undefined) continue;
      this.owner.set(conn, pid);
      this.unplaced.delete(conn);
    }
    if (this.unplaced.size > 0) this.timer = setTimeout(() => this.scan(), 20);
  }
}

test('SIGKILL of a front-end under load: restarted, and no request that reached a live front-end fails', { timeout: 120_000 }, async (t) => {
  const initial = d.frontendPids();
  assert.equal(initial.length, 2);
  const victim = initial[0]!;
  const survivor = initial[1]!;
  let restarted: number | undefined;
  const frontendPids = () => (restarted === undefined ? initial : [survivor, restarted]);
  const counts: Counts = { requests: 0, ok: 0, badReplies: [], brokenOnKilled: 0, brokenOnLive: [], retriedOk: 0, reconnects: 0, answeredByRestarted: 0 };
  let killed = false;
  let stop = false;
  const tracker = new AcceptTracker(frontendPids);
  const owner = tracker.owner;
  const connect = async (): Promise<KeepAliveConnection> => {
    const conn = await KeepAliveConnection.open(d.port, d.cookie());
    tracker.track(conn);
    return conn;
  };

  /** One connection's loop: a request at a time until told to stop; a broken connection is replaced. */
  const worker = async (index: number): Promise<void> => {
    let conn = await connect();
    let retrying = false;
    for (let n = 0; !stop; n++) {
      const height = (index * 31 + n) % (BLOCKS + 1);
      counts.requests++;
      let reply: RawReply;
      try {
        reply = await conn.call('getblockhash', [height], `${index}-${n}`);
      } catch (err) {
        if (!(err instanceof ConnectionFailure)) throw err;
        // undefined: a connection opened after the victim exited, so accepted by a live front-end.
        const pid = owner.get(conn);
        if (pid === victim && killed) {
          counts.brokenOnKilled++;
        } else {
          counts.brokenOnLive.push(`connection ${index} (port ${conn.localPort}, front-end ${pid ?? 'new'}): ${err.code} ${err.message}`);
        }
        // Retry the same request on a new connection, once the killed process is gone.
        await waitFor(`pid ${victim} to exit`, () => (pidAlive(victim) ? undefined : true), 10_000);
        conn = await connect();
        counts.reconnects++;
        retrying = true;
        n--;
        continue;
      }
      if (isRight(reply, height)) {
        counts.ok++;
        if (retrying) counts.retriedOk++;
        if (owner.get(conn) === restarted) counts.answeredByRestarted++;
      } else {
        counts.badReplies.push(`${index}-${n}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
      }
      retrying = false;
    }
    conn.close();
  };

  const load = Array.from({ length: CONNECTIONS }, (_, i) => worker(i));
  await sleep(LOAD_BEFORE_MS);
  await tracker.settled();
  const requestsBeforeKill = counts.requests;
  const onVictim = [...owner.values()].filter((pid) => pid === victim).length;
  t.diagnostic(`before the kill: ${requestsBeforeKill} requests; connections on front-end ${victim}: ${onVictim}, on ${survivor}: ${owner.size - onVictim}`);
  assert.ok(onVictim > 0 && onVictim < owner.size, 'the kernel spreads connections over both front-ends');

  killed = true;
  process.kill(victim, 'SIGKILL');
  const line = await waitFor('the restart', () => /HTTP front-end 0 restarted \(pid (\d+)\)/.exec(d.debugLog()) ?? undefined, 20_000);
  restarted = Number(line[1]);
  assert.notEqual(restarted, victim);
  assert.ok(pidAlive(restarted), 'the restarted front-end runs');
  assert.match(d.debugLog(), new RegExp(`HTTP front-end 0 \\(pid ${victim}\\) exited \\(SIGKILL\\); restarting it`));
  assert.deepEqual(d.frontendPids(), [restarted, survivor], 'debug.log names the live front-ends after the restart');

  // The restarted process takes its share of new connections and answers them.
  for (let i = 0; i < FRESH_CONNECTIONS; i++) load.push(worker(CONNECTIONS + i));
  await sleep(LOAD_AFTER_MS);
  stop = true;
  await Promise.all(load);

  t.diagnostic(
    `connections ${CONNECTIONS} + ${FRESH_CONNECTIONS} fresh after the restart; requests ${counts.requests}, ok ${counts.ok}; ` +
      `failed: ${counts.badReplies.length} bad replies, ${counts.brokenOnLive.length} broken on a live front-end; ` +
      `broken on the killed front-end (no reply, retried): ${counts.brokenOnKilled}, retries ok ${counts.retriedOk}, reconnects ${counts.reconnects}; ` +
      `restarts 1 (pid ${victim} → ${restarted}), requests answered by the restarted front-end ${counts.answeredByRestarted}`,
  );
  assert.deepEqual(counts.badReplies.slice(0, 10), [], `${counts.badReplies.length} requests got a bad reply`);
  assert.deepEqual(counts.brokenOnLive.slice(0, 10), [], `${counts.brokenOnLive.length} requests broke on a live front-end`);
  assert.equal(counts.ok, counts.requests - counts.brokenOnKilled, 'every request but those that never reached a live front-end succeeded');
  assert.equal(counts.retriedOk, counts.brokenOnKilled, 'every retried request succeeded');
  assert.ok(counts.brokenOnKilled > 0, 'the kill broke requests in flight (the test killed a loaded process)');
  assert.ok(counts.answeredByRestarted > 0, 'the restarted front-end answered requests');
  assert.ok(counts.requests - requestsBeforeKill > counts.requests / 4, 'the load went on after the kill');
});
