/**
 * Outbound peer management against scripted peers over real sockets, each scenario run on
 * tsbtcd and on the reference bitcoind v31.0 with the same steps and expectations (Core's
 * net_processing.cpp ConsiderEviction):
 *
 * - an outbound peer whose chain stays behind ours gets a getheaders one second past
 *   CHAIN_SYNC_TIMEOUT and is disconnected one second past HEADERS_RESPONSE_TIME more,
 *   block-relay-only peers too; the first four full-relay peers that showed our tip's
 *   work are protected and stay.
 *
 * The node's clock is moved with setmocktime, with -peertimeout=999999999 as in Core's
 * functional tests.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { parseBlock, type Block } from '../../src/primitives/index.js';
import { sleep, waitFor } from './daemon-harness.js';
import { peerInfo, startBitcoind, startTsbtcd, waitForLog, type NodeOptions, type NodeUnderTest } from './node-under-test.js';
import { buildChain, ChainServer } from './p2p-test-peer.js';

const reference = referenceBitcoind();
const ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
/** Core's CHAIN_SYNC_TIMEOUT and HEADERS_RESPONSE_TIME (net_processing.cpp), seconds. */
const CHAIN_SYNC_TIMEOUT_S = 20 * 60;
const HEADERS_RESPONSE_TIME_S = 2 * 60;
const MOCK_ARGS = ['-peertimeout=999999999', '-debug=net'];

const cleanups: (() => unknown)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

type Starter = (options: NodeOptions) => Promise<NodeUnderTest>;
const starters: [string, Starter | undefined][] = [
  ['tsbtcd', startTsbtcd],
  ['bitcoind', 'path' in reference ? (options) => startBitcoind(reference.path, options) : undefined],
];

async function started(start: Starter, options: NodeOptions): Promise<NodeUnderTest> {
  const node = await start(options);
  cleanups.push(() => node.stop());
  return node;
}

function serve(blocks: readonly Block[]): Promise<ChainServer> {
  return ChainServer.start(blocks, { serveBlocks: true }).then((s) => (cleanups.push(() => s.close()), s));
}

/** Blocks 1..height of the node's active chain. */
async function blocksOf(node: NodeUnderTest, height: number): Promise<Block[]> {
  const out: Block[] = [];
  for (let h = 1; h <= height; h++) out.push(parseBlock(Buffer.from(await node.call<string>('getblock', [await node.call('getblockhash', [h]), 0]), 'hex')));
  return out;
}

/** The count of messages of a type a server's latest connection received. */
const received = (server: ChainServer, command: string) => server.peers.at(-1)!.received.filter((f) => f.command === command).length;

/** Every open connection answered a ping: what was sent before was processed (and a send round ran). */
async function settle(servers: readonly ChainServer[]): Promise<void> {
  await Promise.all(servers.filter((s) => !s.peers.at(-1)!.closed).map((s) => s.peers.at(-1)!.sync()));
  await sleep(400);
}

for (const [name, start] of starters) {
  test(`${name}: an outbound peer on an old chain gets a getheaders after CHAIN_SYNC_TIMEOUT and is dropped after HEADERS_RESPONSE_TIME; four protected peers stay`, { skip: start ? false : (reference as { missing: string }).missing }, async () => {
    const node = await started(start!, { args: MOCK_ARGS });
    const t0 = Math.floor(Date.now() / 1000);
    await node.call('setmocktime', [t0]);
    await node.call('generatetoaddress', [10, ADDRESS]);
    const ours = await blocksOf(node, 10);
    const current = await Promise.all([0, 1, 2, 3, 4].map(() => serve(ours)));
    const fork = buildChain(5, t0 - 1000);
    const behind = await serve(fork);
    const relayOnly = await serve(ours);

    const connect = async (server: ChainServer, type: string, headers: number): Promise<number> => {
      await node.call('addconnection', [server.address, type, false]);
      const info = await waitFor(`${server.address} to send its headers`, async () => (await peerInfo(node)).find((p) => p.addr === server.address && p.synced_headers === headers));
      return info.id as number;
    };
    const protectedIds: number[] = [];
    for (const server of current.slice(0, 4)) {
      const id = await connect(server, 'outbound-full-relay', 10);
      await waitForLog(node, new RegExp(`Protecting outbound peer=${id} from eviction`), `peer ${id} protected`);
      protectedIds.push(id);
    }
    // A fifth peer with our tip finds the protection slots taken; block-relay-only peers never get one.
    const fifthId = await connect(current[4]!, 'outbound-full-relay', 10);
    const behindId = await connect(behind, 'outbound-full-relay', 5);
    const relayId = await connect(relayOnly, 'block-relay-only', 10);
    assert.deepEqual([...node.log().matchAll(/Protecting outbound peer=(\d+) from eviction/g)].map((m) => Number(m[1])), protectedIds);

    // Our tip moves on: the fifth and the block-relay-only peer are behind now too.
    await node.call('generatetoaddress', [1, ADDRESS]);
    const all = [...current, behind, relayOnly];
    await settle(all);
    const lagging = [current[4]!, behind, relayOnly];
    const asked = new Map(all.map((s) => [s, received(s, 'getheaders')]));

    // Core's check is "now > timeout": at the timeout itself nothing happens.
    await node.call('setmocktime', [t0 + CHAIN_SYNC_TIMEOUT_S]);
    await settle(all);
    for (const s of all) assert.equal(received(s, 'getheaders'), asked.get(s), `no getheaders yet (${s.address})`);
    await node.call('setmocktime', [t0 + CHAIN_SYNC_TIMEOUT_S + 1]);
    await waitFor('a getheaders to each lagging peer', () => (lagging.every((s) => received(s, 'getheaders') === asked.get(s)! + 1) ? true : undefined));
    await settle(all);
    for (const s of current.slice(0, 4)) assert.equal(received(s, 'getheaders'), asked.get(s), 'protected peers are not asked');
    // Their answers show nothing better. At the response deadline itself they stay...
    await node.call('setmocktime', [t0 + CHAIN_SYNC_TIMEOUT_S + 1 + HEADERS_RESPONSE_TIME_S]);
    await settle(all);
    assert.ok(lagging.every((s) => !s.peers.at(-1)!.closed));
    // ...one second later they go, with Core's log line naming their best block.
    await node.call('setmocktime', [t0 + CHAIN_SYNC_TIMEOUT_S + 1 + HEADERS_RESPONSE_TIME_S + 1]);
    await waitFor('the lagging peers to be disconnected', () => (lagging.every((s) => s.peers.at(-1)!.closed) ? true : undefined));
    const log = node.log();
    const forkTip = fork.at(-1)!.header.hashHex;
    assert.match(log, new RegExp(`Outbound peer has old chain, best known block = ${forkTip}, disconnecting peer=${behindId}\\b`));
    for (const id of [fifthId, relayId]) assert.match(log, new RegExp(`Outbound peer has old chain, best known block = ${ours[9]!.header.hashHex}, disconnecting peer=${id}\\b`));
    assert.match(log, new RegExp(`sending getheaders to outbound peer=${behindId} to verify chain work \\(current best known block:${forkTip}, benchmark blockhash: ${ours[9]!.header.hashHex}\\)`));
    // The protected peers stay connected.
    await settle(current.slice(0, 4));
    assert.deepEqual((await peerInfo(node)).map((p) => p.id).sort((a, b) => a - b), protectedIds);
  });
}
