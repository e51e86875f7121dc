/**
 * The address manager in a running node, as Core's RPCs and peers see it: addpeeraddress,
 * getnodeaddresses and getaddrmaninfo (answers identical to bitcoind's for the same calls),
 * peers.dat kept across a restart, addr messages from a peer rate limited and stored,
 * getaddr answered once per inbound connection with at most 23% of the table, and
 * addconnection's outbound connection types (a feeler disconnects after its handshake).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { decodeAddrV2, encodeAddrV2, type PeerAddress } from '../../src/net/index.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, waitFor } from './daemon-harness.js';
import { buildChain, ChainServer, TestPeer } from './p2p-test-peer.js';

let node: Daemon;
const reference = referenceBitcoind();

async function call<T = any>(method: string, params: unknown[] = []): Promise<T> {
  const r = await node.rpc(method, params);
  if (r.json?.error) throw Object.assign(new Error(r.json.error.message), { code: r.json.error.code });
  return r.json.result as T;
}

before(async () => {
  // Mock time jumps (address relay) must not look like silence: as Core's tests, a huge -peertimeout.
  node = await Daemon.start({ args: ['-peertimeout=999999999'] });
});

after(async () => {
  await node?.cleanup();
});

// Addresses in distinct /16 groups, so no two can collide in a new-table slot (whose outcome depends on each node's random key).
const CALLS: unknown[][] = [['1.2.3.4', 8333], ['1.3.3.5', 8333, true], ['[2001:db8::1]', 8333], ['127.0.0.1', 8333], ['2.3.4.5', 18444, true]];

test('addpeeraddress, getnodeaddresses and getaddrmaninfo answer as bitcoind does; peers.dat survives a restart', async (t) => {
  const ours: unknown[] = [];
  for (const params of CALLS) ours.push(await call('addpeeraddress', params));
  const invalid = await node.rpc('addpeeraddress', ['notanip', 8333]);
  assert.deepEqual(invalid.json.error, { code: -30, message: 'Invalid IP address' });
  const info = await call('getaddrmaninfo');
  const addresses = await call<any[]>('getnodeaddresses', [0]);
  assert.deepEqual(addresses.map((a) => [a.address, a.port, a.services, a.network]).sort(), [['1.2.3.4', 8333, 9, 'ipv4'], ['1.3.3.5', 8333, 9, 'ipv4'], ['2.3.4.5', 18444, 9, 'ipv4']]);
  assert.deepEqual(await call('getnodeaddresses', [0, 'ipv6']), []);
  await node.stop();
  node = await node.restart({ args: ['-peertimeout=999999999'] });
  assert.deepEqual((await call<any[]>('getnodeaddresses', [0])).map((a) => a.address).sort(), ['1.2.3.4', '1.3.3.5', '2.3.4.5']);
  assert.deepEqual(await call('getaddrmaninfo'), info);
  if ('missing' in reference) return t.skip(reference.missing);
  // -connect=0: bitcoind would otherwise dial the routable addresses added here (off this
  // machine), and an attempt racing addpeeraddress made its answers vary.
  const core = await BitcoindProcess.start(reference.path, ['-disablewallet', '-connect=0']);
  try {
    const theirs: unknown[] = [];
    for (const params of CALLS) theirs.push(await core.call('addpeeraddress', params));
    assert.deepEqual(ours, theirs);
    assert.deepEqual(info, await core.call('getaddrmaninfo'));
    const coreAddresses = await core.call<any[]>('getnodeaddresses', [0]);
    assert.deepEqual(coreAddresses.map((a) => Object.keys(a)), addresses.map((a) => Object.keys(a)));
  } finally {
    await core.stop();
  }
});

test('addr from a peer: rate limited, stored, counted; getaddr answered once with at most 23% of the table', async () => {
  const now = Math.floor(Date.now() / 1000);
  const announced: PeerAddress[] = Array.from({ length: 300 }, (_, i) => ({ time: now - 60, services: 9n, network: 1, address: Uint8Array.of(11, 1, i >> 8, i & 0xff), port: 8333 }));
  const sender = await TestPeer.connect(node.p2pPort);
  sender.send('addrv2', encodeAddrV2(announced));
  await sender.sync();
  // A new inbound peer has one token: one address processed, the rest rate limited (Core's 0.1/s bucket).
  const info = (await call<any[]>('getpeerinfo')).find((p) => p.subver === '/tsbtcd-test-peer:0.1/');
  assert.equal(info.addr_processed + info.addr_rate_limited, 300);
  assert.ok(info.addr_processed >= 1 && info.addr_processed < 5, JSON.stringify(info));
  assert.equal(info.addr_relay_enabled, true);
  sender.close();
  // Fill the table through the RPC, then ask for addresses.
  for (let i = 0; i < 100; i++) await call('addpeeraddress', [`12.0.${i}.1`, 8333]);
  const asker = await TestPeer.connect(node.p2pPort);
  asker.send('getaddr');
  await asker.sync();
  const answers = asker.received.filter((f) => f.command === 'addrv2');
  assert.equal(answers.length, 1);
  const total = (await call('getaddrmaninfo')).all_networks.total;
  const got = decodeAddrV2(answers[0]!.payload);
  assert.ok(got.length > 0 && got.length <= Math.floor((total * 23) / 100), `${got.length} of ${total}`);
  // A second getaddr on the same connection is ignored.
  asker.send('getaddr');
  await asker.sync();
  assert.equal(asker.received.filter((f) => f.command === 'addrv2').length, 1);
  asker.close();
});

test('addconnection opens outbound connections of Core\'s test types; a feeler disconnects after the handshake', async () => {
  // One listener per connection: like Core, the node opens no second connection to an address it is connected to.
  const blocks = buildChain(3, Math.floor(Date.now() / 1000) - 10);
  const [server, relayServer, feelerServer] = await Promise.all([0, 1, 2].map(() => ChainServer.start(blocks, { serveBlocks: true })));
  try {
    assert.deepEqual(await call('addconnection', [server!.address, 'outbound-full-relay', false]), { address: server!.address, connection_type: 'outbound-full-relay' });
    await waitFor('the outbound connection', async () => ((await call<any[]>('getpeerinfo')).find((p) => p.connection_type === 'outbound-full-relay') ? true : undefined));
    await call('addconnection', [relayServer!.address, 'block-relay-only', false]);
    const blockRelay = await waitFor('the block-relay-only connection', async () => (await call<any[]>('getpeerinfo')).find((p) => p.connection_type === 'block-relay-only'));
    assert.equal(blockRelay.relaytxes, false);
    assert.equal(blockRelay.addr_relay_enabled, false);
    await call('addconnection', [feelerServer!.address, 'feeler', false]);
    await waitFor('the feeler to connect and go', () => (feelerServer!.peers.length === 1 && feelerServer!.peers[0]!.closed ? true : undefined));
    const bad = await node.rpc('addconnection', [server!.address, 'inbound', false]);
    assert.equal(bad.json.error.code, -8);
    const v2 = await node.rpc('addconnection', [server!.address, 'feeler', true]);
    assert.deepEqual(v2.json.error, { code: -8, message: 'Error: Adding v2transport connections requires -v2transport init flag to be set.' });
  } finally {
    for (const s of [server, relayServer, feelerServer]) s!.close();
  }
});

test('-seednode: an addr-fetch connection that takes the seed\'s addresses and leaves', async () => {
  const now = Math.floor(Date.now() / 1000);
  // One address per /16 group: addresses of one group share a new-table bucket, where two may
  // land on the same slot and one be dropped (Core's addrman does the same).
  const addresses: PeerAddress[] = Array.from({ length: 5 }, (_, i) => ({ time: now - 100, services: 9n, network: 1, address: Uint8Array.of(13, i + 1, 0, 1), port: 8333 }));
  const blocks = buildChain(1, now - 10);
  const seed = await ChainServer.start(blocks, { serveBlocks: true, addresses });
  // A -connect peer runs the outbound loop (as in Core) without automatic connections, so the
  // learned addresses are not dialed.
  const peer = await ChainServer.start(blocks, { serveBlocks: true });
  const seeded = await Daemon.start({ args: [`-seednode=${seed.address}`, `-connect=${peer.address}`] });
  try {
    await waitFor('the seed\'s addresses in the address manager', async () => {
      const r = await seeded.rpc('getnodeaddresses', [0]);
      return r.json.result.length === 5 ? true : undefined;
    }, 60_000);
    await waitFor('the addr-fetch connection to end', () => (seed.peers.length === 1 && seed.peers[0]!.closed ? true : undefined));
  } finally {
    seed.close();
    peer.close();
    await seeded.cleanup();
  }
});

test('a fresh address a peer announces is relayed to two other peers, not back to its sender', async () => {
  const peers = await Promise.all([0, 1, 2].map(() => TestPeer.connect(node.p2pPort)));
  try {
    // Each peer enables address relay with us (Core does so on the first addr-related message).
    for (const p of peers) p.send('addrv2', encodeAddrV2([]));
    await Promise.all(peers.map((p) => p.sync()));
    const now = Math.floor(Date.now() / 1000);
    const fresh: PeerAddress = { time: now, services: 9n, network: 1, address: Uint8Array.of(14, 1, 2, 3), port: 8333 };
    peers[0]!.send('addrv2', encodeAddrV2([fresh]));
    await peers[0]!.sync();
    // Addresses go out in Poisson-timed rounds on the node's clock: move it past them.
    await call('setmocktime', [now + 3600]);
    const got = (p: TestPeer) => p.received.filter((f) => f.command === 'addrv2').some((f) => decodeAddrV2(f.payload).some((a) => a.address.join('.') === '14.1.2.3'));
    await waitFor('the address at the two other peers', async () => {
      await Promise.all(peers.map((p) => p.sync()));
      return got(peers[1]!) && got(peers[2]!) ? true : undefined;
    }, 30_000);
    assert.equal(got(peers[0]!), false, 'not sent back to its sender');
  } finally {
    await call('setmocktime', [0]);
    for (const p of peers) p.close();
  }
});

/** Core's rpc_net.py seed_addrman: two of each network, some to tried; none collide under the deterministic key. */
const SEED_CALLS: unknown[][] = [
  ['1.2.3.4', 8333, true],
  ['2.0.0.0', 8333],
  ['1233:3432:2434:2343:3234:2345:6546:4534', 8333, true],
  ['2803:0:1234:abcd::1', 45324],
  ['fc00:1:2:3:4:5:6:7', 8333],
  ['pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion', 8333, true],
  ['nrfj6inpyf73gpkyool35hcmne5zwfmse3jl3aw23vk7chdemalyaqad.onion', 45324, true],
  ['c4gfnttsuwqomiygupdqqqyy5y5emnk5c73hrfvatri67prd7vyq.b32.i2p', 8333],
];

test('getrawaddrman: with -test=addrman every entry sits in the bucket and slot bitcoind puts it in, byte for byte', async (t) => {
  const args = ['-test=addrman', '-cjdnsreachable', '-connect=0'];
  const mockTime = 1_790_000_000;
  const ours = await Daemon.start({ args });
  try {
    await ours.call('setmocktime', [mockTime]);
    for (const params of SEED_CALLS) assert.deepEqual(await ours.call('addpeeraddress', params), { success: true }, JSON.stringify(params));
    const raw = await ours.rpc('getrawaddrman', []);
    const table = raw.json.result;
    assert.deepEqual(Object.keys(table), ['new', 'tried']);
    assert.equal(Object.keys(table.new).length, 4);
    assert.equal(Object.keys(table.tried).length, 4);
    for (const entry of [...Object.values<any>(table.new), ...Object.values<any>(table.tried)]) {
      assert.deepEqual(Object.keys(entry), ['address', 'port', 'services', 'time', 'network', 'source', 'source_network']);
      // addpeeraddress: the address is its own source, seen now.
      assert.deepEqual([entry.source, entry.source_network, entry.time], [entry.address, entry.network, mockTime]);
    }
    assert.deepEqual(Object.values<any>(table.tried).map((e) => e.network).sort(), ['ipv4', 'ipv6', 'onion', 'onion']);
    // Keys run bucket by bucket.
    for (const name of ['new', 'tried']) {
      const buckets = Object.keys(table[name]).map((k) => k.split('/').map(Number) as [number, number]);
      assert.deepEqual([...buckets].sort((a, b) => a[0] - b[0] || a[1] - b[1]), buckets);
    }
    if ('missing' in reference) return t.skip(reference.missing);
    const core = await BitcoindProcess.start(reference.path, ['-disablewallet', ...args]);
    try {
      await core.call('setmocktime', [mockTime]);
      for (const params of SEED_CALLS) await core.call('addpeeraddress', params);
      // Stringified, so key order counts too (none of these keys is an array index).
      assert.equal(JSON.stringify(table), JSON.stringify(await core.call('getrawaddrman')));
    } finally {
      await core.stop();
    }
  } finally {
    await ours.cleanup();
  }
});
