/**
 * anchors.dat in running nodes, against bitcoind v31.0: the block-relay-only peers written
 * at a clean shutdown (the same bytes bitcoind writes for the same connection), read and
 * deleted at the next start and tried first, by either node reading the other's file; not
 * with -connect. All peers are scripted listeners on loopback.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { sha256d } from '../../src/primitives/index.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, sleep, tempDir, waitFor } from './daemon-harness.js';
import { buildChain, ChainServer } from './p2p-test-peer.js';

const reference = referenceBitcoind();
const NODE_ARGS = ['-dnsseed=0', '-fixedseeds=0', '-debug=net'];
let anchor: ChainServer;
let other: ChainServer;
const cleanups: (() => Promise<void> | void)[] = [];

before(async () => {
  const blocks = buildChain(1, Math.floor(Date.now() / 1000) - 10);
  anchor = await ChainServer.start(blocks, { serveBlocks: true });
  other = await ChainServer.start(blocks, { serveBlocks: true });
});

after(async () => {
  for (const c of cleanups.reverse()) await c();
  anchor?.close();
  other?.close();
});

async function startNode(args: readonly string[] = NODE_ARGS, datadir?: string): Promise<Daemon> {
  const node = await Daemon.start({ automaticOutbound: true, args, ...(datadir ? { datadir } : {}) });
  cleanups.push(() => node.cleanup());
  return node;
}

async function connection(node: { call<T>(m: string, p?: unknown[]): Promise<T> }, address: string, type: string): Promise<any> {
  return waitFor(`the ${type} connection to ${address}`, async () => (await node.call<any[]>('getpeerinfo')).find((p) => p.addr === address && p.connection_type === type && p.version > 0));
}

/** As Core's feature_anchors.py: the services byte of the first address set to NODE_NETWORK | NODE_WITNESS, checksum redone. */
function withServices(file: Uint8Array): Uint8Array {
  const body = Uint8Array.from(file.subarray(0, file.length - 32));
  body[4 + 1 + 4 + 4] = 9;
  return Uint8Array.from([...body, ...sha256d(body)]);
}

/** A data directory with this anchors.dat in its regtest folder. */
function datadirWithAnchors(bytes: Uint8Array): string {
  const dir = tempDir();
  mkdirSync(join(dir, 'regtest'));
  writeFileSync(join(dir, 'regtest', 'anchors.dat'), bytes);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

let written: Uint8Array;

test('a clean shutdown writes the block-relay-only peer to anchors.dat, byte for byte as bitcoind', async (t) => {
  const node = await startNode();
  assert.match(node.debugLog(), /0 block-relay-only anchors will be tried for connections\.\n/);
  await node.call('addconnection', [anchor.address, 'block-relay-only', false]);
  await node.call('addconnection', [other.address, 'outbound-full-relay', false]);
  await connection(node, anchor.address, 'block-relay-only');
  await connection(node, other.address, 'outbound-full-relay');
  await node.stop();
  assert.match(node.debugLog(), /DumpAnchors: Flush 1 outbound block-relay-only peer addresses to anchors\.dat started\n.*DumpAnchors: Flush 1 outbound block-relay-only peer addresses to anchors\.dat completed \(\d+\.\d\ds\)\n/s);
  written = new Uint8Array(readFileSync(join(node.netdir, 'anchors.dat')));
  // Magic, one CAddress (V2_DISK: version word, TIME_INIT, no services for a connection made by name), checksum.
  assert.equal(Buffer.from(written.subarray(0, 22)).toString('hex'), `fabfb5da01605b032000e1f5050001047f000001${anchor.port.toString(16).padStart(4, '0')}`);
  assert.equal(written.length, 54);
  if ('missing' in reference) return t.skip(reference.missing);
  const dir = tempDir();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const core = await BitcoindProcess.start(reference.path, ['-disablewallet', '-dnsseed=0', '-fixedseeds=0'], dir);
  try {
    await core.call('addconnection', [anchor.address, 'block-relay-only', false]);
    await core.call('addconnection', [other.address, 'outbound-full-relay', false]);
    await connection(core, anchor.address, 'block-relay-only');
    await connection(core, other.address, 'outbound-full-relay');
  } finally {
    await core.stop();
  }
  assert.deepEqual(new Uint8Array(readFileSync(join(dir, 'regtest', 'anchors.dat'))), written);
});

test('tsbtcd and bitcoind each read the other\'s anchors.dat, delete it and connect to the anchor first', async (t) => {
  assert.ok(written, 'the first test wrote anchors.dat');
  // Core will not make an anchor connection to an address without the services it wants.
  const file = withServices(written);
  const before = anchor.peers.length;
  const dir = datadirWithAnchors(file);
  const node = await startNode(NODE_ARGS, dir);
  const log = node.debugLog();
  assert.match(log, /Loaded 1 addresses from "anchors\.dat"\n/);
  assert.match(log, /1 block-relay-only anchors will be tried for connections\.\n/);
  assert.equal(existsSync(join(dir, 'regtest', 'anchors.dat')), false);
  const peer = await connection(node, anchor.address, 'block-relay-only');
  assert.equal(peer.id, 0);
  assert.match(node.debugLog(), new RegExp(`\\[net\\] Trying to make an anchor connection to 127\\.0\\.0\\.1:${anchor.port}\\n`));
  assert.equal(anchor.peers.length, before + 1);
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-disablewallet', '-dnsseed=0', '-fixedseeds=0', '-debug=net'], datadirWithAnchors(file));
  try {
    const corePeer = await connection(core, anchor.address, 'block-relay-only');
    assert.equal(corePeer.id, 0);
    assert.equal(existsSync(join(core.datadir, 'regtest', 'anchors.dat')), false);
    // The log lines tsbtcd writes are bitcoind's.
    const coreLog = readFileSync(join(core.datadir, 'regtest', 'debug.log'), 'utf8');
    for (const line of ['Loaded 1 addresses from "anchors.dat"', '1 block-relay-only anchors will be tried for connections.', `[net] Trying to make an anchor connection to 127.0.0.1:${anchor.port}`]) {
      assert.ok(coreLog.includes(`${line}\n`), line);
      assert.ok(node.debugLog().includes(`${line}\n`), line);
    }
  } finally {
    await core.stop();
  }
});

test('a restart reconnects the block-relay-only peer first; without its services (as written) Core\'s rule skips it', async () => {
  let node = await startNode();
  await node.call('addconnection', [anchor.address, 'block-relay-only', false]);
  await connection(node, anchor.address, 'block-relay-only');
  await node.stop();
  const before = anchor.peers.length;
  node = await node.restart({ args: NODE_ARGS, automaticOutbound: true });
  cleanups.push(() => node.cleanup());
  assert.match(node.debugLog(), /1 block-relay-only anchors will be tried for connections\.\n[^]*$/);
  await sleep(2000);
  assert.equal(anchor.peers.length, before, 'an anchor with no known services is not dialled');
  await node.call('addconnection', [anchor.address, 'block-relay-only', false]);
  await connection(node, anchor.address, 'block-relay-only');
  await node.stop();
  const path = join(node.netdir, 'anchors.dat');
  writeFileSync(path, withServices(new Uint8Array(readFileSync(path))));
  const count = anchor.peers.length;
  node = await node.restart({ args: NODE_ARGS, automaticOutbound: true });
  cleanups.push(() => node.cleanup());
  const peer = await connection(node, anchor.address, 'block-relay-only');
  assert.equal(peer.id, 0, 'the first connection of the run');
  assert.equal(anchor.peers.length, count + 1);
  assert.equal(existsSync(path), false);
});

test('-connect: anchors.dat is neither read nor written', async () => {
  const file = withServices(written);
  const dir = datadirWithAnchors(file);
  const node = await Daemon.start({ datadir: dir, args: [...NODE_ARGS, `-connect=${other.address}`] });
  cleanups.push(() => node.cleanup());
  await connection(node, other.address, 'manual');
  assert.doesNotMatch(node.debugLog(), /anchors/);
  await node.stop();
  assert.deepEqual(new Uint8Array(readFileSync(join(dir, 'regtest', 'anchors.dat'))), file);
});
