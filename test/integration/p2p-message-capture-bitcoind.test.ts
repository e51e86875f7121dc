/**
 * -capturemessages on tsbtcd and on bitcoind v31.0 (Core's p2p_message_capture.py idea):
 * a scripted peer connects, completes the handshake, pings and leaves; each node has written
 * message_capture/<addr_port>/msgs_recv.dat and msgs_sent.dat in Core's format, and the
 * messages it received are the peer's, byte for byte, in the order sent.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, sleep, waitFor } from './daemon-harness.js';
import { TestPeer } from './p2p-test-peer.js';

const reference = referenceBitcoind();

interface Captured {
  readonly micros: bigint;
  readonly type: string;
  readonly payload: Buffer;
}

/** Core's format: int64 LE microseconds, the type NUL-padded to 12 bytes, uint32 LE size, payload. */
function parseCapture(file: string): Captured[] {
  const bytes = readFileSync(file);
  const out: Captured[] = [];
  let at = 0;
  while (at < bytes.length) {
    assert.ok(at + 24 <= bytes.length, 'a whole header');
    const micros = bytes.readBigInt64LE(at);
    const typeBytes = bytes.subarray(at + 8, at + 20);
    const type = typeBytes.subarray(0, typeBytes.indexOf(0) === -1 ? 12 : typeBytes.indexOf(0)).toString('ascii');
    assert.ok(typeBytes.subarray(type.length).every((b) => b === 0), 'NUL padding');
    const size = bytes.readUInt32LE(at + 20);
    assert.ok(at + 24 + size <= bytes.length, 'a whole payload');
    out.push({ micros, type, payload: bytes.subarray(at + 24, at + 24 + size) });
    at += 24 + size;
  }
  return out;
}

async function captureScenario(p2pPort: number, netDir: string): Promise<{ dirs: string[]; received: Captured[]; sent: Captured[] }> {
  const peer = await TestPeer.connect(p2pPort);
  await peer.sync();
  await sleep(500);
  peer.close();
  await peer.closedPromise;
  const captureDir = join(netDir, 'message_capture');
  await waitFor('the capture files', () => (existsSync(captureDir) && readdirSync(captureDir).length > 0 ? true : undefined), 10_000);
  await sleep(300);
  const dirs = readdirSync(captureDir);
  const here = join(captureDir, dirs[0]!);
  return { dirs, received: parseCapture(join(here, 'msgs_recv.dat')), sent: parseCapture(join(here, 'msgs_sent.dat')) };
}

test('-capturemessages writes each peer’s messages in Core’s format, as bitcoind does', async (t) => {
  const ours = await Daemon.start({ args: ['-capturemessages'] });
  let mine;
  try {
    mine = await captureScenario(ours.p2pPort, ours.netdir);
  } finally {
    await ours.cleanup();
  }
  // One directory, named after the peer's address with '_' for ':'.
  assert.equal(mine.dirs.length, 1);
  assert.match(mine.dirs[0]!, /^127\.0\.0\.1_\d+$/);
  const receivedTypes = mine.received.map((m) => m.type);
  assert.deepEqual(receivedTypes.slice(0, 2), ['version', 'wtxidrelay']);
  assert.ok(receivedTypes.includes('verack') && receivedTypes.includes('ping'), receivedTypes.join());
  assert.equal(mine.sent[0]!.type, 'version');
  assert.ok(mine.sent.some((m) => m.type === 'verack') && mine.sent.some((m) => m.type === 'pong'));
  const now = BigInt(Date.now()) * 1000n;
  for (const m of [...mine.received, ...mine.sent]) assert.ok(m.micros > now - 60_000_000n && m.micros <= now, String(m.micros));
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-disablewallet', '-capturemessages']);
  let theirs;
  try {
    theirs = await captureScenario(core.p2pPort, join(core.datadir, 'regtest'));
  } finally {
    await core.stop();
  }
  // The same peer script: the same messages received (the handshake in order; the peer's ping
  // and its pong to the node's ping race each other), the same bytes where nothing is random.
  assert.deepEqual(mine.received.slice(0, 4).map((m) => m.type), theirs.received.slice(0, 4).map((m) => m.type));
  assert.deepEqual(mine.received.map((m) => m.type).sort(), theirs.received.map((m) => m.type).sort());
  for (const type of ['wtxidrelay', 'sendaddrv2', 'verack']) {
    assert.deepEqual(mine.received.find((m) => m.type === type)!.payload, theirs.received.find((m) => m.type === type)!.payload, type);
  }
  assert.deepEqual(new Set(mine.sent.map((m) => m.type)), new Set(theirs.sent.map((m) => m.type)));
});
