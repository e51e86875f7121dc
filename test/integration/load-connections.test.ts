/**
 * 1,000 simultaneous keep-alive connections against one daemon (default front-end count:
 * one per core), each asking getblockhash several times — first one request per
 * connection all at once, then four pipelined on every connection — with 0 errors and
 * every answer right. bitcoind refuses this load: its work queue holds 64 requests and
 * the rest get HTTP 503 "Work queue depth exceeded".
 *
 * The test process needs 1,000 sockets plus its own descriptors: it fails at once, with
 * the command that fixes it, when the open-file limit is lower (`make test` raises it).
 */
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { after, before, test } from 'node:test';
import { Daemon } from './daemon-harness.js';
import { acceptingPids, KeepAliveConnection, openFileLimit, type RawReply } from './load-http-client.js';

const CONNECTIONS = 1000;
const PIPELINED = 4;
const BLOCKS = 50;
/** Descriptors the test process needs besides the client sockets. */
const FD_MARGIN = 200;
const ADDRESS = 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk';

let d: Daemon;
/** Block hash by height, genesis included. */
let hashes: string[];

before(async () => {
  const limit = openFileLimit();
  assert.ok(
    limit >= CONNECTIONS + FD_MARGIN,
    `this test opens ${CONNECTIONS} sockets: the open-file limit is ${limit}; run it with \`ulimit -n 4096\` (make test raises it)`,
  );
  d = await Daemon.start({ defaultFrontends: true });
  const mined: string[] = await d.call('generatetoaddress', [BLOCKS, ADDRESS]);
  hashes = [await d.call<string>('getblockhash', [0]), ...mined];
});
after(async () => {
  await d?.cleanup();
});

test(`${CONNECTIONS} simultaneous keep-alive connections sending getblockhash: 0 errors, every answer right`, { timeout: 180_000 }, async (t) => {
  const frontends = d.frontendPids();
  assert.equal(frontends.length, availableParallelism(), 'one front-end per core by default');

  const conns = await Promise.all(Array.from({ length: CONNECTIONS }, () => KeepAliveConnection.open(d.port, d.cookie())));
  // All of them are open at once on the server side, spread over the front-ends.
  const accepted = await waitAccepted(conns, frontends);
  const perFrontend = frontends.map((pid) => conns.filter((c) => accepted.get(c.localPort) === pid).length);
  t.diagnostic(`connections accepted per front-end (pids ${frontends.join(', ')}): ${perFrontend.join(', ')}`);

  let requests = 0;
  const errors: string[] = [];
  const check = (height: number, id: string, reply: RawReply | Error): void => {
    requests++;
    if (reply instanceof Error) return void errors.push(`${id}: ${reply.message}`);
    let json: { result?: unknown; error?: unknown; id?: unknown } | undefined;
    try {
      json = JSON.parse(reply.body);
    } catch {
      /* reported below */
    }
    if (reply.status !== 200 || json?.error !== null || json.result !== hashes[height] || json.id !== id) {
      errors.push(`${id}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
    }
  };
  const ask = (conn: KeepAliveConnection, height: number, id: string): Promise<void> =>
    conn.call('getblockhash', [height], id).then(
      (reply) => check(height, id, reply),
      (err: Error) => check(height, id, err),
    );

  // Round 1: one request on every connection, all 1,000 in flight together.
  await Promise.all(conns.map((conn, i) => ask(conn, i % (BLOCKS + 1), `${i}-0`)));
  // Round 2: several requests pipelined on every connection; the replies must come back in order.
  await Promise.all(
    conns.flatMap((conn, i) => Array.from({ length: PIPELINED }, (_, k) => ask(conn, (i * 7 + k * 13) % (BLOCKS + 1), `${i}-${k + 1}`))),
  );

  t.diagnostic(`${CONNECTIONS} connections, ${requests} requests, ${errors.length} errors`);
  assert.deepEqual(errors.slice(0, 10), [], `${errors.length} of ${requests} requests failed`);
  assert.equal(requests, CONNECTIONS * (1 + PIPELINED));
  // Keep-alive held throughout: no connection was closed, each answered every request.
  assert.equal(conns.filter((c) => !c.open || c.answered !== 1 + PIPELINED).length, 0);
  for (const conn of conns) conn.close();
});

/** Waits until the front-ends have accepted every connection; returns client port → front-end pid. */
async function waitAccepted(conns: readonly KeepAliveConnection[], pids: readonly number[]): Promise<Map<number, number>> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const accepted = acceptingPids(d.port, pids);
    const missing = conns.filter((c) => !accepted.has(c.localPort)).length;
    if (missing === 0) return accepted;
    if (Date.now() > deadline) throw new Error(`${missing} of ${conns.length} connections not accepted by a front-end`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
