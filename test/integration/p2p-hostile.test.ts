/**
 * Hostile peers against a real tsbtcd over real sockets, each answered as Core v31 answers
 * it: an invalid block (mutated merkle root, a bad signature, an inflated coinbase) costs
 * the sender its connection and leaves the node on its valid chain; an oversized message
 * and wrong network magic end the connection; a bad checksum drops only that message (its
 * bytes counted as "*other*"); a flood of unconnecting headers gets at most one getheaders
 * per two minutes and no disconnection (Core v28+ no longer punishes it). An honest peer
 * is served throughout.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { encodeHeaders, encodeInventory, encodeNonce, MSG_BLOCK } from '../../src/net/index.js';
import { BlockHeader, hexToHash, serializeBlock, Transaction, type Block } from '../../src/primitives/index.js';
import { Daemon, MESSAGE_START, waitFor } from './daemon-harness.js';
import { buildBlock, resolve, TestPeer } from './p2p-test-peer.js';

/** The P2WPKH address of private key 1 (its public key is the generator point G). */
const KEY1_ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const G = Uint8Array.from(Buffer.from('0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex'));

let node: Daemon;
let honest: TestPeer;

async function call<T = any>(method: string, params: unknown[] = []): Promise<T> {
  const r = await node.rpc(method, params);
  if (r.json?.error) throw new Error(`${method}: ${JSON.stringify(r.json.error)}`);
  return r.json.result as T;
}

async function tip(): Promise<{ hash: Uint8Array; hashHex: string; height: number; time: number }> {
  const hashHex = await call<string>('getbestblockhash');
  const header = await call<any>('getblockheader', [hashHex]);
  return { hash: hexToHash(hashHex), hashHex, height: header.height, time: header.time };
}

before(async () => {
  node = await Daemon.start({ args: ['-debug=net'] });
  await call('generatetoaddress', [110, KEY1_ADDRESS]);
  honest = await TestPeer.connect(node.p2pPort, 110);
});

after(async () => {
  honest?.close();
  await node?.cleanup();
});

async function sendInvalidBlock(block: Block, label: string): Promise<void> {
  const before = await tip();
  const attacker = await TestPeer.connect(node.p2pPort, before.height);
  attacker.send('block', serializeBlock(block));
  await attacker.waitClosed();
  const after = await tip();
  assert.equal(after.hashHex, before.hashHex, `${label}: the node stays on its chain`);
  await honest.sync();
}

test('a block with a mutated merkle root ends the sender\'s connection', async () => {
  const t = await tip();
  const good = buildBlock(t);
  const h = good.header;
  const bad = resolve({ header: new BlockHeader({ version: h.version, prevHash: h.prevHash, merkleRoot: randomBytes(32), time: h.time, bits: h.bits, nonce: 0 }), transactions: good.transactions });
  await sendInvalidBlock(bad, 'bad merkle root');
  assert.match(node.debugLog(), /Misbehaving: peer=\d+: mutated block/);
});

test('a block with a bad signature ends the sender\'s connection', async () => {
  const t = await tip();
  const coinbase = await call<any>('getblock', [await call('getblockhash', [1]), 2]);
  const spend = new Transaction({
    version: 2,
    locktime: 0,
    inputs: [{ prevout: { txid: hexToHash(coinbase.tx[0].txid), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [Uint8Array.from([0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x01]), G] }],
    outputs: [{ value: 1_000_000_000n, scriptPubKey: Uint8Array.of(0x51) }],
  });
  await sendInvalidBlock(buildBlock(t, [spend], { fees: 4_000_000_000n }), 'bad signature');
  assert.match(node.debugLog(), /Misbehaving: peer=\d+: (mandatory-script-verify-flag-failed|block-script-verify-flag-failed)/);
});

test('a block whose coinbase pays too much ends the sender\'s connection', async () => {
  const t = await tip();
  await sendInvalidBlock(buildBlock(t, [], { coinbaseValue: 50_00000001n }), 'inflation');
  assert.match(node.debugLog(), /Misbehaving: peer=\d+: bad-cb-amount/);
  // The honest chain still grows.
  await call('generatetoaddress', [1, KEY1_ADDRESS]);
});

test('an oversized message and wrong magic end the connection; a bad checksum drops only its message', async () => {
  const oversized = await TestPeer.connect(node.p2pPort);
  const header = new Uint8Array(24);
  header.set(MESSAGE_START.regtest);
  header.set(new TextEncoder().encode('block'), 4);
  new DataView(header.buffer).setUint32(16, 4_000_001, true);
  oversized.sendRaw(header);
  await oversized.waitClosed();

  const wrongMagic = await TestPeer.connect(node.p2pPort);
  const frame = new Uint8Array(24);
  frame.set(Uint8Array.of(0xf9, 0xbe, 0xb4, 0xd9));
  frame.set(new TextEncoder().encode('ping'), 4);
  wrongMagic.sendRaw(frame);
  await wrongMagic.waitClosed();

  const corrupt = await TestPeer.connect(node.p2pPort);
  const ping = new Uint8Array(24 + 8);
  ping.set(MESSAGE_START.regtest);
  ping.set(new TextEncoder().encode('ping'), 4);
  new DataView(ping.buffer).setUint32(16, 8, true);
  ping.set(encodeNonce(7n), 24);
  ping.set([1, 2, 3, 4], 20); // not the checksum of the payload
  corrupt.sendRaw(ping);
  await corrupt.sync();
  const peers = await call<any[]>('getpeerinfo');
  const me = peers.find((p) => p.subver === '/tsbtcd-test-peer:0.1/' && p.bytesrecv_per_msg['*other*']);
  assert.equal(me?.bytesrecv_per_msg['*other*'], 32);
  corrupt.close();
  await honest.sync();
});

test('a flood of unconnecting headers gets rate-limited getheaders, not a disconnection; honest peers are served', async () => {
  const flooder = await TestPeer.connect(node.p2pPort);
  await flooder.sync();
  const before = flooder.received.filter((f) => f.command === 'getheaders').length;
  const t = await tip();
  for (let i = 0; i < 2000; i++) {
    const orphan = buildBlock({ hash: randomBytes(32), height: t.height, time: t.time });
    flooder.send('headers', encodeHeaders([orphan.header]));
  }
  await flooder.sync(60_000);
  const getheaders = flooder.received.filter((f) => f.command === 'getheaders').length - before;
  assert.ok(getheaders <= 1, `${getheaders} getheaders for 2,000 unconnecting headers`);
  assert.equal(flooder.closed, false);
  // The honest peer still gets answers, and the node's tip did not move.
  honest.send('getheaders', new Uint8Array([0x80, 0x11, 0x01, 0x00, 0x01, ...t.hash, ...new Uint8Array(32)]));
  await waitFor('headers for the honest peer', () => (honest.received.some((f) => f.command === 'headers') ? true : undefined));
  honest.send('inv', encodeInventory([{ type: MSG_BLOCK, hash: t.hash }]));
  await honest.sync();
  assert.equal((await tip()).hashHex, t.hashHex);
  flooder.close();
});
