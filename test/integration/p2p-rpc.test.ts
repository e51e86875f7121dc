/**
 * The Network RPCs on a real node with real peers (scripted ones, so no bitcoind needed):
 * addnode add/remove/onetry and getaddednodeinfo, disconnectnode by address and by id,
 * setban (which disconnects the banned peer and refuses it after), listbanned and
 * clearbanned persisting across a restart, setnetworkactive, ping, getnettotals, and
 * Core's errors for each misuse.
 */
import assert from 'node:assert/strict';
import * as net from 'node:net';
import { after, before, test } from 'node:test';
import { encodeInventory, MSG_WTX } from '../../src/net/index.js';
import { Daemon, waitFor } from './daemon-harness.js';
import { buildChain, ChainServer, TestPeer } from './p2p-test-peer.js';

let node: Daemon;
let server: ChainServer;

async function call<T = any>(method: string, params: unknown[] = []): Promise<T> {
  const r = await node.rpc(method, params);
  if (r.json?.error) throw Object.assign(new Error(r.json.error.message), { code: r.json.error.code });
  return r.json.result as T;
}

async function rpcError(method: string, params: unknown[] = []): Promise<{ code: number; message: string }> {
  const r = await node.rpc(method, params);
  assert.ok(r.json?.error, `${method} ${JSON.stringify(params)} should fail`);
  return r.json.error;
}

before(async () => {
  server = await ChainServer.start(buildChain(5, Math.floor(Date.now() / 1000) - 60), { serveBlocks: true });
  node = await Daemon.start({ args: ['-debug=net'] });
});

after(async () => {
  server?.close();
  await node?.cleanup();
});

test('addnode, getaddednodeinfo, disconnectnode and their errors', async () => {
  await call('addnode', [server.address, 'add']);
  assert.deepEqual(await rpcError('addnode', [server.address, 'add']), { code: -23, message: 'Error: Node already added' });
  await waitFor('the added node to connect', async () => ((await call<any[]>('getaddednodeinfo'))[0]?.connected ? true : undefined));
  const [info] = await call<any[]>('getaddednodeinfo', [server.address]);
  assert.deepEqual(info, { addednode: server.address, connected: true, addresses: [{ address: server.address, connected: 'outbound' }] });
  assert.deepEqual(await rpcError('getaddednodeinfo', ['127.0.0.1:1']), { code: -24, message: 'Error: Node has not been added.' });
  const peer = (await call<any[]>('getpeerinfo')).find((p) => p.addr === server.address);
  assert.equal(peer.connection_type, 'manual');
  assert.deepEqual(await rpcError('disconnectnode', ['127.0.0.1:1']), { code: -29, message: 'Node not found in connected nodes' });
  assert.deepEqual(await rpcError('disconnectnode', [server.address, peer.id]), { code: -32602, message: 'Only one of address and nodeid should be provided.' });
  assert.equal(await call('disconnectnode', ['', peer.id]), null);
  await waitFor('the peer to be gone', async () => ((await call<any[]>('getpeerinfo')).some((p) => p.id === peer.id) ? undefined : true));
  assert.equal(await call('addnode', [server.address, 'remove']), null);
  assert.deepEqual(await rpcError('addnode', [server.address, 'remove']), { code: -24, message: 'Error: Node could not be removed. It has not been added previously.' });
  assert.equal((await rpcError('addnode', [server.address, 'bogus'])).code, -1);
  assert.deepEqual(await rpcError('addnode', [server.address, 'onetry', true]), { code: -8, message: 'Error: v2transport requested but not enabled (see -v2transport)' });
  // onetry connects once and is not listed.
  assert.equal(await call('addnode', [server.address, 'onetry']), null);
  await waitFor('the onetry connection', async () => ((await call<any[]>('getpeerinfo')).some((p) => p.addr === server.address) ? true : undefined));
  assert.deepEqual(await call('getaddednodeinfo'), []);
});

test('setban disconnects and refuses the peer; listbanned and clearbanned; bans survive a restart', async () => {
  const peer = await TestPeer.connect(node.p2pPort);
  await peer.sync();
  assert.deepEqual(await rpcError('setban', ['not-an-ip', 'add']), { code: -30, message: 'Error: Invalid IP/Subnet' });
  assert.equal(await call('setban', ['127.0.0.1', 'add', 3600]), null);
  await peer.waitClosed();
  assert.deepEqual(await rpcError('setban', ['127.0.0.1', 'add']), { code: -23, message: 'Error: IP/Subnet already banned' });
  // A banned address is refused at once.
  const refused = net.connect(node.p2pPort, '127.0.0.1');
  await new Promise<void>((resolve) => refused.once('close', () => resolve()).once('error', () => undefined));
  await call('setban', ['10.0.0.0/255.0.0.0', 'add', 2_000_000_000, true]);
  const banned = await call<any[]>('listbanned');
  assert.deepEqual(banned.map((b) => b.address).sort(), ['10.0.0.0/8', '127.0.0.1/32']);
  const local = banned.find((b) => b.address === '127.0.0.1/32');
  assert.equal(local.ban_duration, 3600);
  assert.equal(local.banned_until - local.ban_created, 3600);
  await node.stop();
  node = await node.restart();
  assert.deepEqual((await call<any[]>('listbanned')).map((b) => b.address).sort(), ['10.0.0.0/8', '127.0.0.1/32']);
  assert.equal(await call('setban', ['127.0.0.1', 'remove']), null);
  assert.deepEqual(await rpcError('setban', ['127.0.0.1', 'remove']), { code: -30, message: 'Error: Unban failed. Requested address/subnet was not previously manually banned.' });
  assert.equal(await call('clearbanned'), null);
  assert.deepEqual(await call('listbanned'), []);
});

test('setnetworkactive, ping and getnettotals', async () => {
  const peer = await TestPeer.connect(node.p2pPort);
  await peer.sync();
  const pings = peer.received.filter((f) => f.command === 'ping').length;
  assert.equal(await call('ping'), null);
  await waitFor('a ping from the node', () => (peer.received.filter((f) => f.command === 'ping').length > pings ? true : undefined));
  const totals = await call('getnettotals');
  assert.ok(totals.totalbytesrecv > 0 && totals.totalbytessent > 0);
  assert.equal(await call('setnetworkactive', [false]), false);
  await peer.waitClosed();
  assert.equal((await call('getnetworkinfo')).networkactive, false);
  assert.equal(await call('getconnectioncount'), 0);
  const refused = net.connect(node.p2pPort, '127.0.0.1');
  await new Promise<void>((resolve) => refused.once('close', () => resolve()).once('error', () => undefined));
  assert.equal(await call('setnetworkactive', [true]), true);
  const again = await TestPeer.connect(node.p2pPort);
  await again.sync();
  assert.equal(await call('getconnectioncount'), 1);
  again.close();
});

test('-blocksonly: no transaction relay asked for, and a peer announcing one anyway is dropped', async () => {
  const blocksOnly = await Daemon.start({ args: ['-blocksonly', '-debug=net'] });
  try {
    assert.equal((await blocksOnly.rpc('getnetworkinfo')).json.result.localrelay, false);
    const peer = await TestPeer.connect(blocksOnly.p2pPort);
    assert.equal(peer.handshake.peerVersion!.relay, false, 'our version message asks for no transactions');
    peer.send('inv', encodeInventory([{ type: MSG_WTX, hash: new Uint8Array(32).fill(7) }]));
    await peer.waitClosed();
    assert.match(blocksOnly.debugLog(), /transaction \(0707070707070707070707070707070707070707070707070707070707070707\) inv sent in violation of protocol|disconnecting peer=\d+: transaction inv in violation of protocol/);
  } finally {
    await blocksOnly.cleanup();
  }
});

test('sendmsgtopeer puts any message on the wire as given, and answers Core\'s errors', async () => {
  const peer = await TestPeer.connect(node.p2pPort);
  try {
    await peer.sync();
    const peers = await call<any[]>('getpeerinfo');
    const id = peers.find((p) => p.subver === '/tsbtcd-test-peer:0.1/' && p.inbound)!.id as number;
    const raw: Buffer[] = [];
    peer.socket.on('data', (chunk: Buffer) => raw.push(chunk));
    const seen = peer.received.length;
    assert.deepEqual(await call('sendmsgtopeer', [id, 'addr', 'FFFFFF']), {});
    // A zero-length type, an unknown type and an empty body are all sent as they are.
    assert.deepEqual(await call('sendmsgtopeer', [id, '', '']), {});
    assert.deepEqual(await call('sendmsgtopeer', [id, 'unknown', 'ff']), {});
    await waitFor('the three messages', () => (peer.received.length >= seen + 3 ? true : undefined), 10_000);
    assert.deepEqual(
      peer.received.slice(seen, seen + 3).map((f) => [f.command, Buffer.from(f.payload).toString('hex')]),
      [['addr', 'ffffff'], ['', ''], ['unknown', 'ff']],
    );
    // Counted per type as sent, the unknown one under its own name as Core counts it.
    const sent = (await call<any[]>('getpeerinfo')).find((p) => p.id === id).bytessent_per_msg;
    assert.equal(sent.unknown, 24 + 1);
    assert.deepEqual(await rpcError('sendmsgtopeer', [100, 'addr', 'FF']), { code: -1, message: 'Error: Could not send message to peer' });
    assert.deepEqual(await rpcError('sendmsgtopeer', [id, 'long_msg_type', 'FF']), { code: -8, message: 'Error: msg_type too long, max length is 12' });
    assert.deepEqual(await rpcError('sendmsgtopeer', [id, 'addr', 'F']), { code: -8, message: 'Error parsing input for msg' });
    assert.deepEqual(await rpcError('sendmsgtopeer', [id, 'addr', 'zz']), { code: -8, message: 'Error parsing input for msg' });
    const missing = await rpcError('sendmsgtopeer', [id, 'addr']);
    assert.equal(missing.code, -1);
    assert.ok(missing.message.startsWith('sendmsgtopeer peer_id "msg_type" "msg"\n'), missing.message);
    // Over the protocol's limit too: the receiver, not the sender, judges a message.
    raw.length = 0;
    assert.deepEqual(await call('sendmsgtopeer', [id, 'addr', '00'.repeat(4_000_001)]), {});
    await waitFor('the oversized message\'s header', () => (Buffer.concat(raw).length >= 24 ? true : undefined), 10_000);
    const header = Buffer.concat(raw).subarray(0, 24);
    assert.equal(header.subarray(4, 16).toString('latin1'), 'addr'.padEnd(12, '\0'));
    assert.equal(header.readUInt32LE(16), 4_000_001);
    // The scripted peer refuses it and hangs up, as a bitcoind receiving it would: the node sees it go.
    await waitFor('the peer to be gone', async () => ((await call<any[]>('getpeerinfo')).some((p) => p.id === id) ? undefined : true), 10_000);
  } finally {
    peer.close();
  }
});
