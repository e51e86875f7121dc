/**
 * The v1 wire codecs (src/net) against a real Bitcoin Core v31.0 peer on regtest: a raw
 * socket does the version handshake, then ping/pong and getheaders. Every message bitcoind
 * sends is framed and decoded by our code, and what it says is checked against its RPC.
 * Skipped, with one line, when there is no reference bitcoind.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import * as net from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { CookieRpc, isUnreachable } from '../../native-bench/cookie-rpc.js';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import {
  decodeHeaders,
  decodeLocatorRequest,
  decodeNonce,
  encodeFrame,
  encodeLocatorRequest,
  encodeNonce,
  encodeVersion,
  FrameDecoder,
  FrameError,
  Handshake,
  type HandshakeAction,
  ipv4Mapped,
  locatorHeights,
  NODE_NETWORK,
  NODE_WITNESS,
  PROTOCOL_VERSION,
  type Frame,
} from '../../src/net/index.js';
import { fromHex, hashToHex } from '../../src/primitives/index.js';
import { freePort, sleep, tempDir, waitFor } from './daemon-harness.js';

const MAGIC = fromHex('fabfb5da');
const BLOCKS = 20;

/** Frames from a socket, awaited one command at a time. */
class Peer {
  readonly #decoder = new FrameDecoder(MAGIC);
  readonly #received: Frame[] = [];
  #closed = false;

  constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      for (const frame of this.#decoder.push(new Uint8Array(chunk))) {
        if (frame instanceof FrameError) throw frame;
        this.#received.push(frame);
      }
    });
    socket.on('close', () => (this.#closed = true));
  }

  send(command: string, payload: Uint8Array = new Uint8Array(0)): void {
    this.socket.write(encodeFrame(MAGIC, command, payload));
  }

  /** Commands received so far, in order. */
  get commands(): string[] {
    return this.#received.map((f) => f.command);
  }

  /** The first received message with this command (and, optionally, passing `accept`). */
  next(command: string, accept: (f: Frame) => boolean = () => true): Promise<Frame> {
    return waitFor(`a ${command} message from bitcoind`, () => {
      if (this.#closed) throw new Error(`bitcoind closed the connection; received ${this.commands.join(', ')}`);
      const at = this.#received.findIndex((f) => f.command === command && accept(f));
      return at < 0 ? undefined : this.#received.splice(at, 1)[0];
    });
  }
}

test('handshake, ping and getheaders with bitcoind v31.0 over a raw socket, every message through our codecs', async (t) => {
  const reference = referenceBitcoind();
  if ('missing' in reference) return t.skip(reference.missing);
  const dir = tempDir();
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  let child: ChildProcess | undefined;
  try {
    child = spawn(reference.path, ['-regtest', `-datadir=${dir}`, `-rpcport=${rpcPort}`, `-port=${p2pPort}`, `-bind=127.0.0.1:${p2pPort}`, '-listen=1', '-printtoconsole=0', '-checkblockindex=0'], { stdio: 'ignore' });
    const rpc = new CookieRpc(rpcPort, join(dir, 'regtest', '.cookie'));
    await waitFor('bitcoind RPC', async () => {
      try {
        return (await rpc.call<number>('getblockcount')) >= 0 ? true : undefined;
      } catch (err) {
        if (isUnreachable(err) || (err as { code?: number }).code === -28) return undefined;
        throw err;
      }
    }, 60_000);
    const { descriptor } = await rpc.call<{ descriptor: string }>('getdescriptorinfo', ['raw(51)']);
    await rpc.call('generatetodescriptor', [BLOCKS, descriptor]);
    // The height bitcoind announces in its version follows the tip through the validation
    // interface queue, which runs behind the RPC: wait for it before connecting.
    await rpc.call('syncwithvalidationinterfacequeue');

    const socket = net.connect(p2pPort, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const peer = new Peer(socket);
    const ourVersion = encodeVersion({
      version: PROTOCOL_VERSION,
      services: NODE_NETWORK | NODE_WITNESS,
      timestamp: BigInt(Math.floor(Date.now() / 1000)),
      receiver: { services: 0n, ip: ipv4Mapped(127, 0, 0, 1), port: p2pPort },
      sender: { services: NODE_NETWORK | NODE_WITNESS, ip: new Uint8Array(16), port: 0 },
      nonce: 0x1234_5678_9abc_def0n,
      userAgent: '/tsbtcd-wire-test:0.1.0/',
      startHeight: 0,
      relay: true,
    });
    // Our handshake state machine drives the exchange: bitcoind's messages in, its answers out.
    const handshake = new Handshake({ outbound: true, ourVersion, isOwnNonce: () => false, requiredServices: NODE_NETWORK | NODE_WITNESS });
    const act = (action: HandshakeAction): void => {
      assert.notEqual(action.kind, 'disconnect', JSON.stringify(action));
      if (action.kind === 'send') for (const m of action.messages) peer.send(m.command, m.payload);
    };
    act(handshake.opening());
    const theirVersion = await peer.next('version');
    act(handshake.receive('version', theirVersion.payload));
    const theirs = handshake.peerVersion!;
    assert.equal(theirs.version, PROTOCOL_VERSION);
    assert.equal(theirs.services & (NODE_NETWORK | NODE_WITNESS), NODE_NETWORK | NODE_WITNESS);
    assert.match(theirs.userAgent, /^\/Satoshi:31\.0\.0\/$/);
    assert.equal(theirs.startHeight, BLOCKS);
    assert.equal(theirs.relay, true);
    // BIP339 and BIP155 feature negotiation comes between version and verack.
    for (const command of ['wtxidrelay', 'sendaddrv2', 'verack']) act(handshake.receive(command, (await peer.next(command)).payload));
    assert.ok(handshake.complete && handshake.wtxidRelay && handshake.addrV2);

    // bitcoind asks us for headers with a locator from the parent of its best header (so
    // that the answer is never empty): the heights our locatorHeights gives, hash for hash.
    const request = decodeLocatorRequest((await peer.next('getheaders')).payload);
    const locatorHashes: string[] = [];
    for (const height of locatorHeights(BLOCKS - 1)) locatorHashes.push(await rpc.call<string>('getblockhash', [height]));
    assert.deepEqual(request.locator.map(hashToHex), locatorHashes);
    assert.equal(hashToHex(request.stop), '00'.repeat(32));

    peer.send('ping', encodeNonce(42n));
    assert.equal(decodeNonce((await peer.next('pong')).payload), 42n);

    const genesis = fromHex(await rpc.call<string>('getblockhash', [0])).reverse();
    peer.send('getheaders', encodeLocatorRequest({ version: PROTOCOL_VERSION, locator: [genesis], stop: new Uint8Array(32) }));
    const headers = decodeHeaders((await peer.next('headers', (f) => f.payload.length > 1)).payload);
    const expected: string[] = [];
    for (let height = 1; height <= BLOCKS; height++) expected.push(await rpc.call<string>('getblockhash', [height]));
    assert.deepEqual(headers.map((h) => h.hashHex), expected);
    assert.equal(hashToHex(headers[0]!.prevHash), hashToHex(genesis));

    // bitcoind lists us as a peer that finished the handshake, with what we said.
    const peers = await rpc.call<{ subver: string; version: number; relaytxes: boolean }[]>('getpeerinfo');
    assert.equal(peers.length, 1);
    assert.equal(peers[0]!.subver, '/tsbtcd-wire-test:0.1.0/');
    assert.equal(peers[0]!.version, PROTOCOL_VERSION);
    socket.destroy();
    await rpc.call('stop');
    await new Promise<void>((resolve) => child!.once('exit', () => resolve()));
    child = undefined;
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await sleep(200);
    }
    rmSync(dir, { recursive: true, force: true });
  }
});
