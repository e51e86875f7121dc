/**
 * Outbound peer management against scripted peers over real sockets, each scenario run on
 * tsbtcd and on the reference bitcoind v31.0 with the same steps and expectations (Core's
 * net_processing.cpp ConsiderEviction, CheckForStaleTipAndEvictPeers and
 * EvictExtraOutboundPeers; net.cpp's ThreadOpenConnections):
 *
 * - an outbound peer whose chain stays behind ours gets a getheaders one second past
 *   CHAIN_SYNC_TIMEOUT and is disconnected one second past HEADERS_RESPONSE_TIME more,
 *   block-relay-only peers too; the first four full-relay peers that showed our tip's
 *   work are protected and stay;
 * - a tip without a new block for three block intervals is reported stale and one extra
 *   full-relay connection is made (automatic connections to routable addresses from
 *   addpeeraddress, relayed by a SOCKS5 proxy to scripted peers on this machine); once
 *   the extra peer brought a new block, the youngest unprotected peer that announced
 *   nothing is evicted;
 * - once synced, extra block-relay-only connections are made; the youngest is evicted
 *   unless it gave us a block more recently than the second youngest, which then goes;
 *   none before MINIMUM_CONNECT_TIME.
 *
 * The node's clock is moved with setmocktime and its 45-second check with mockscheduler,
 * with -peertimeout=999999999 as in Core's functional tests.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseBlock, type Block } from '../../src/primitives/index.js';
import { sleep, waitFor } from './daemon-harness.js';
import { cleanupsAfterTests, NODE_STARTERS, peerInfo, skipUnless, waitForLog, type NodeOptions, type NodeUnderTest, type Starter } from './node-under-test.js';
import { buildBlock, buildChain, ChainServer } from './p2p-test-peer.js';
import { Socks5Server } from './socks5-server.js';

const ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
/** Core's CHAIN_SYNC_TIMEOUT and HEADERS_RESPONSE_TIME (net_processing.cpp), seconds. */
const CHAIN_SYNC_TIMEOUT_S = 20 * 60;
const HEADERS_RESPONSE_TIME_S = 2 * 60;
const MOCK_ARGS = ['-peertimeout=999999999', '-debug=net'];
/** Core's regtest DNS seed: with a proxy it becomes an addr-fetch connection through it (Core's AddAddrFetch). */
const REGTEST_DNS_SEED = 'dummySeed.invalid.';

const cleanups = cleanupsAfterTests();
const starters = NODE_STARTERS;

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

const tipOf = (blocks: readonly Block[]) => {
  const last = blocks[blocks.length - 1]!;
  return { hash: last.header.hash, height: blocks.length, time: last.header.time };
};

/** The count of messages of a type a server's latest connection received. */
const received = (server: ChainServer, command: string) => server.peers.at(-1)!.received.filter((f) => f.command === command).length;

/** Every open connection answered a ping: what was sent before was processed (and a send round ran). */
async function settle(servers: readonly ChainServer[]): Promise<void> {
  await Promise.all(servers.filter((s) => !s.peers.at(-1)!.closed).map((s) => s.peers.at(-1)!.sync()));
  await sleep(400);
}

for (const [name, start] of starters) {
  test(`${name}: an outbound peer on an old chain gets a getheaders after CHAIN_SYNC_TIMEOUT and is dropped after HEADERS_RESPONSE_TIME; four protected peers stay`, { skip: skipUnless(start) }, async () => {
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

/**
 * Routable addresses (one /16 group each, regtest's port) that a SOCKS5 proxy relays to
 * scripted peers here: the node connects to them as to any address from its address
 * manager, and nothing leaves the machine.
 */
async function automaticPeers(servers: readonly ChainServer[]): Promise<{ proxy: Socks5Server; addresses: string[] }> {
  const routes = new Map<string, number>();
  const addresses = servers.map((s, i) => {
    const ip = `${20 + i}.${i + 1}.0.1`;
    routes.set(`${ip}:18444`, s.port);
    return ip;
  });
  const proxy = await Socks5Server.start({ routes });
  cleanups.push(() => proxy.close());
  return { proxy, addresses };
}

async function outboundOf(node: NodeUnderTest, type: string): Promise<any[]> {
  return (await peerInfo(node)).filter((p) => p.connection_type === type && p.version > 0);
}

/** Waits for 8 full-relay and 2 block-relay-only automatic connections and the node at `tipHash`. */
async function fullyConnected(node: NodeUnderTest, tipHash: string): Promise<void> {
  await waitFor(
    `${node.name}: 8 full-relay and 2 block-relay-only peers, synced`,
    async () => ((await outboundOf(node, 'outbound-full-relay')).length === 8 && (await outboundOf(node, 'block-relay-only')).length === 2 && (await node.call('getbestblockhash')) === tipHash ? true : undefined),
    90_000,
  );
}

for (const [name, start] of starters) {
  test(`${name}: a stale tip opens one extra full-relay connection; the youngest unprotected peer that announced nothing is evicted`, { skip: skipUnless(start) }, async () => {
    const t0 = Math.floor(Date.now() / 1000);
    // A tip five hours old: recent enough to be out of initial download, too old for the
    // extra block-relay-only connections (Core's CanDirectFetch), which stay out of this test.
    const blocks = buildChain(20, t0 - 5 * 3600);
    const newer = buildBlock(tipOf(blocks));
    const servers = await Promise.all(Array.from({ length: 10 }, () => serve(blocks)));
    const extraServer = await serve([...blocks, newer]);
    const { proxy, addresses } = await automaticPeers([...servers, extraServer]);
    const node = await started(start!, { automaticOutbound: true, args: [`-proxy=127.0.0.1:${proxy.port}`, ...MOCK_ARGS] });
    await node.call('setmocktime', [t0]);
    for (const ip of addresses.slice(0, 10)) assert.deepEqual(await node.call('addpeeraddress', [ip, 18444]), { success: true });
    await fullyConnected(node, blocks.at(-1)!.header.hashHex);
    const protectedIds = [...node.log().matchAll(/Protecting outbound peer=(\d+) from eviction/g)].map((m) => Number(m[1]));
    assert.equal(protectedIds.length, 4);
    const fullRelay = (await outboundOf(node, 'outbound-full-relay')).map((p) => p.id as number);
    // All connected at t0; only the peer that gave us the headers first announced anything new, and it is protected.
    const expected = Math.max(...fullRelay.filter((id) => !protectedIds.includes(id)));

    // No block for 31 minutes (three regtest block intervals and one more): the next check calls the tip stale.
    await node.call('setmocktime', [t0 + 31 * 60]);
    await node.call('mockscheduler', [45]);
    const stale = await waitForLog(node, /Potential stale tip detected, will try using extra outbound peer \(last tip update: (\d+) seconds ago\)/, 'the stale tip');
    assert.equal(stale[1], String(31 * 60));
    assert.match(node.log(), /setting try another outbound peer=true/);
    // A new address: the extra full-relay connection goes to it, and it brings a newer block.
    await node.call('addpeeraddress', [addresses[10], 18444]);
    await waitFor('the extra full-relay peer and its block', async () => ((await outboundOf(node, 'outbound-full-relay')).length === 9 && (await node.call('getbestblockhash')) === newer.header.hashHex ? true : undefined), 30_000);
    const extraId = Math.max(...(await outboundOf(node, 'outbound-full-relay')).map((p) => p.id as number));
    assert.ok(!fullRelay.includes(extraId));

    await node.call('mockscheduler', [45]);
    await waitForLog(node, new RegExp(`disconnecting extra outbound peer=${expected} \\(last block announcement received at time 0\\)`), `peer ${expected} evicted`);
    await waitFor('eight full-relay peers again', async () => ((await outboundOf(node, 'outbound-full-relay')).length === 8 ? true : undefined));
    const remaining = (await outboundOf(node, 'outbound-full-relay')).map((p) => p.id as number);
    assert.ok(remaining.includes(extraId) && !remaining.includes(expected), JSON.stringify(remaining));
    assert.match(node.log(), /setting try another outbound peer=false/);
    // The extra connection did its job: no further one is made.
    await node.call('mockscheduler', [45]);
    await sleep(1500);
    assert.equal((await outboundOf(node, 'outbound-full-relay')).length, 8);
    // Nothing but the routed addresses was reached (regtest's dummy DNS seed is asked for through the proxy, and refused).
    assert.ok(proxy.connects.every((c) => (addresses.includes(c.host) && c.port === 18444) || c.host === REGTEST_DNS_SEED), JSON.stringify(proxy.connects));
  });
}

for (const [name, start] of starters) {
  test(`${name}: extra block-relay-only connections once synced; the youngest goes unless it gave a block more recently than the second youngest; none before MINIMUM_CONNECT_TIME`, { skip: skipUnless(start) }, async () => {
    const t0 = Math.floor(Date.now() / 1000);
    const blocks = buildChain(20, t0 - 100);
    const newer = buildBlock(tipOf(blocks));
    const servers = await Promise.all(Array.from({ length: 10 }, () => serve(blocks)));
    const bringsBlock = await serve([...blocks, newer]);
    const bringsNothing = await serve([...blocks, newer]);
    const { proxy, addresses } = await automaticPeers([...servers, bringsBlock, bringsNothing]);
    const node = await started(start!, { automaticOutbound: true, args: [`-proxy=127.0.0.1:${proxy.port}`, ...MOCK_ARGS] });
    await node.call('setmocktime', [t0]);
    for (const ip of addresses.slice(0, 10)) await node.call('addpeeraddress', [ip, 18444]);
    await fullyConnected(node, blocks.at(-1)!.header.hashHex);
    // Close to the tip: the check turns extra block-relay-only connections on.
    await node.call('mockscheduler', [45]);
    await waitForLog(node, /enabling extra block-relay-only peers/, 'extra block-relay-only peers enabled');
    const blockRelay = async () => (await outboundOf(node, 'block-relay-only')).sort((a, b) => a.id - b.id);
    const [oldest] = await blockRelay();

    // Round one: the extra peer brings a new block; the second youngest goes.
    await node.call('addpeeraddress', [addresses[10], 18444]);
    await node.call('setmocktime', [t0 + 2 * 3600]);
    await waitFor('the extra block-relay-only peer and its block', async () => ((await blockRelay()).length === 3 && (await node.call('getbestblockhash')) === newer.header.hashHex ? true : undefined), 30_000);
    const [, second, youngest] = await blockRelay();
    assert.equal(youngest.last_block, t0 + 2 * 3600);
    assert.ok(second.last_block < youngest.last_block);
    await node.call('mockscheduler', [45]);
    await waitForLog(node, new RegExp(`disconnecting extra block-relay-only peer=${second.id} \\(last block received at time ${second.last_block}\\)`), 'the second youngest evicted');
    await waitFor('two block-relay-only peers again', async () => ((await blockRelay()).length === 2 ? true : undefined));
    assert.ok((await blockRelay()).some((p) => p.id === youngest.id));

    // Round two: a block of our own keeps the tip fresh; the next extra peer brings nothing new.
    // It may go to the new address or back to the one just evicted: every server but
    // bringsBlock has nothing past our tip's parent, so either brings nothing.
    const everyServer = [...servers, bringsBlock, bringsNothing];
    const connectionsBefore = everyServer.map((s) => s.peers.length);
    await node.call('addpeeraddress', [addresses[11], 18444]);
    await node.call('setmocktime', [t0 + 4 * 3600]);
    await node.call('generatetoaddress', [1, ADDRESS]);
    const idle = await waitFor('the second extra block-relay-only peer', async () => {
      const peers = await blockRelay();
      return peers.length === 3 && peers[2].conntime === t0 + 4 * 3600 ? peers[2] : undefined;
    }, 30_000);
    const reached = await waitFor('the server the extra peer reached', () => everyServer.find((s, i) => s.peers.length > connectionsBefore[i]!));
    assert.notEqual(reached, bringsBlock);
    // Its headers answer is in (empty: it has nothing past our best header's parent that we lack).
    await waitFor('the headers exchange', () => (reached.peers.at(-1)!.received.some((f) => f.command === 'getheaders') ? true : undefined));
    await settle([reached]);
    // Not yet MINIMUM_CONNECT_TIME: chosen, but kept.
    await node.call('mockscheduler', [45]);
    await waitForLog(node, new RegExp(`keeping block-relay-only peer=${idle.id} chosen for eviction \\(connect time: ${idle.conntime}, blocks_in_flight: 0\\)`), 'the young peer kept');
    assert.equal((await blockRelay()).length, 3);
    await node.call('setmocktime', [idle.conntime + 30]);
    await node.call('mockscheduler', [45]);
    await waitForLog(node, new RegExp(`disconnecting extra block-relay-only peer=${idle.id} \\(last block received at time 0\\)`), 'the youngest evicted');
    await waitFor('two block-relay-only peers again', async () => ((await blockRelay()).length === 2 ? true : undefined));
    assert.deepEqual((await blockRelay()).map((p) => p.id), [oldest.id, youngest.id]);
    assert.ok(proxy.connects.every((c) => (addresses.includes(c.host) && c.port === 18444) || c.host === REGTEST_DNS_SEED), JSON.stringify(proxy.connects));
  });
}

for (const [name, start] of starters) {
  test(`${name}: with every full-relay slot taken, one extra full-relay connection goes to a reachable network none of them is on (MaybePickPreferredNetwork), after EXTRA_NETWORK_PEER_INTERVAL`, { skip: skipUnless(start) }, async () => {
    const t0 = Math.floor(Date.now() / 1000);
    const blocks = buildChain(20, t0 - 100);
    const servers = await Promise.all(Array.from({ length: 10 }, () => serve(blocks)));
    const ipv6Server = await serve(blocks);
    const { proxy, addresses } = await automaticPeers(servers);
    const ipv6 = '2a01:4f8::1';
    proxy.routes!.set(`${ipv6}:18444`, ipv6Server.port);
    const node = await started(start!, { automaticOutbound: true, args: [`-proxy=127.0.0.1:${proxy.port}`, ...MOCK_ARGS] });
    await node.call('setmocktime', [t0]);
    for (const ip of addresses) await node.call('addpeeraddress', [ip, 18444]);
    await fullyConnected(node, blocks.at(-1)!.header.hashHex);
    // Only now an IPv6 address, in the tried table (so no feeler takes it: feelers test the new table).
    assert.deepEqual(await node.call('addpeeraddress', [ipv6, 18444, true]), { success: true });
    await sleep(1500);
    assert.equal(ipv6Server.peers.length, 0, 'no connection before the interval');
    // EXTRA_NETWORK_PEER_INTERVAL is a Poisson draw (mean 5 minutes): steps of 25 minutes, each
    // short of a stale tip (30), a block mined between them to keep the tip fresh. One step misses
    // with probability e^-5; four miss with e^-20.
    const networkSpecific = /Making network specific connection to \[2a01:4f8::1\]:18444 on ipv6\./;
    for (let step = 1; step <= 4 && !networkSpecific.test(node.log()); step++) {
      if (step > 1) await node.call('generatetoaddress', [1, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080']);
      await node.call('setmocktime', [t0 + step * 25 * 60]);
      await waitForLog(node, networkSpecific, 'the network-specific connection', 5_000).catch(() => undefined);
    }
    await waitForLog(node, networkSpecific, 'the network-specific connection');
    await waitFor('nine full-relay peers', async () => ((await outboundOf(node, 'outbound-full-relay')).length === 9 ? true : undefined), 30_000);
    assert.equal(ipv6Server.peers.length, 1);
    assert.ok(proxy.connects.some((c) => c.host === ipv6 && c.port === 18444));
    // One network-specific connection per interval, and IPv6 now has its peer: no second one.
    await sleep(1500);
    assert.equal((await outboundOf(node, 'outbound-full-relay')).length, 9);
    assert.equal(ipv6Server.peers.length, 1);
  });
}

for (const [name, start] of starters) {
  test(`${name}: an address added with addnode is not taken for an automatic connection (Core's AddedNodesContain)`, { skip: skipUnless(start) }, async () => {
    // The proxy routes nothing: the addnode connection keeps failing, so the address stays
    // free for the automatic loop to pick (and refuse) every round.
    const { proxy } = await automaticPeers([]);
    const added = '20.1.0.1';
    const node = await started(start!, { automaticOutbound: true, args: [`-proxy=127.0.0.1:${proxy.port}`, ...MOCK_ARGS] });
    assert.deepEqual(await node.call('addpeeraddress', [added, 18444]), { success: true });
    await node.call('addnode', [`${added}:18444`, 'add']);
    await waitForLog(node, /Not making automatic outbound-full-relay connection to ipv4 peer selected for manual \(addnode\) connection/, 'the automatic pick refused');
    assert.deepEqual(await peerInfo(node), []);
    assert.ok(proxy.connects.every((c) => (c.host === added && c.port === 18444) || c.host === REGTEST_DNS_SEED), JSON.stringify(proxy.connects));
  });
}
