/**
 * A scripted P2P peer for tests: connects to a node over a real socket, does the version
 * handshake through src/net's Handshake, answers pings, records every message it gets,
 * and sends whatever a test asks — well-formed messages, raw bytes, hostile frames.
 * Also builds regtest blocks on a given parent (coinbase, witness commitment, proof of work).
 */
import * as net from 'node:net';
import { blockSubsidy, selectParams } from '../../src/consensus/index.js';
import { addWitnessCommitment, createCoinbase, solveBlock } from '../../src/mining/index.js';
import {
  decodeInventory,
  decodeLocatorRequest,
  decodeNonce,
  encodeAddrV2,
  encodeHeaders,
  encodeFrame,
  encodeNonce,
  encodeVersion,
  FrameDecoder,
  FrameError,
  Handshake,
  NODE_NETWORK,
  NODE_WITNESS,
  PROTOCOL_VERSION,
  type Frame,
  type PeerAddress,
} from '../../src/net/index.js';
import { blockMerkleRoot, BlockHeader, bytesEqual, hashToHex, serializeBlock, type Block, type Transaction } from '../../src/primitives/index.js';
import { MESSAGE_START, waitFor } from './daemon-harness.js';

export const REGTEST = selectParams('regtest');
const MAGIC = MESSAGE_START.regtest;
/** OP_TRUE: anyone can spend it, standard enough for test coinbases. */
export const OP_TRUE_SCRIPT = Uint8Array.of(0x51);

export class TestPeer {
  readonly #decoder = new FrameDecoder(MAGIC);
  readonly received: Frame[] = [];
  closed = false;
  readonly closedPromise: Promise<void>;
  readonly handshake: Handshake;

  /** Called with every message after the handshake (pings are answered already). */
  readonly handlers: ((frame: Frame) => void)[] = [];

  private constructor(readonly socket: net.Socket, startHeight: number, outbound = true) {
    const ourVersion = encodeVersion({
      version: PROTOCOL_VERSION,
      services: NODE_NETWORK | NODE_WITNESS,
      timestamp: BigInt(Math.floor(Date.now() / 1000)),
      receiver: { services: 0n, ip: new Uint8Array(16), port: 0 },
      sender: { services: NODE_NETWORK | NODE_WITNESS, ip: new Uint8Array(16), port: 0 },
      nonce: BigInt(Math.floor(Math.random() * 2 ** 48)) + 1n,
      userAgent: '/tsbtcd-test-peer:0.1/',
      startHeight,
      relay: true,
    });
    this.handshake = new Handshake({ outbound, ourVersion, isOwnNonce: () => false, requiredServices: 0n });
    this.closedPromise = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      let frames: (Frame | FrameError)[];
      try {
        frames = this.#decoder.push(new Uint8Array(chunk));
      } catch {
        socket.destroy();
        return;
      }
      for (const f of frames) {
        if (f instanceof FrameError) continue;
        this.received.push(f);
        const action = this.handshake.receive(f.command, f.payload);
        if (action.kind === 'send') for (const m of action.messages) this.send(m.command, m.payload);
        if (action.kind === 'deliver' && f.command === 'ping') this.send('pong', encodeNonce(decodeNonce(f.payload)));
        if (action.kind === 'deliver') for (const h of this.handlers) h(f);
      }
    });
  }

  /** Connects and completes the handshake. */
  static async connect(port: number, startHeight = 0): Promise<TestPeer> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const peer = new TestPeer(socket, startHeight);
    const opening = peer.handshake.opening();
    if (opening.kind === 'send') for (const m of opening.messages) peer.send(m.command, m.payload);
    await waitFor('the handshake', () => (peer.handshake.complete ? true : peer.closed ? Promise.reject(new Error('closed during handshake')) : undefined), 15_000);
    return peer;
  }

  /** The answering side of a connection the node opened to us. */
  static accepted(socket: net.Socket, startHeight: number): TestPeer {
    return new TestPeer(socket, startHeight, false);
  }

  send(command: string, payload: Uint8Array = new Uint8Array(0)): void {
    if (!this.closed) this.socket.write(encodeFrame(MAGIC, command, payload));
  }

  sendRaw(bytes: Uint8Array): void {
    if (!this.closed) this.socket.write(bytes);
  }

  /** Pings and waits for the pong: everything sent before was processed. */
  async sync(timeoutMs = 15_000): Promise<void> {
    const nonce = BigInt(Math.floor(Math.random() * 2 ** 48)) + 1n;
    this.send('ping', encodeNonce(nonce));
    await waitFor('pong', () => {
      if (this.closed) throw new Error('connection closed before the pong');
      return this.received.some((f) => f.command === 'pong' && decodeNonce(f.payload) === nonce) ? true : undefined;
    }, timeoutMs);
  }

  /** Resolves once the node has closed the connection. */
  async waitClosed(timeoutMs = 15_000): Promise<void> {
    await waitFor('the node to disconnect us', () => (this.closed ? true : undefined), timeoutMs);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** A solved regtest block on `prev` with these transactions (after the coinbase). */
export function buildBlock(prev: { hash: Uint8Array; height: number; time: number }, txs: readonly Transaction[] = [], options: { coinbaseValue?: bigint; fees?: bigint; version?: number } = {}): Block {
  const height = prev.height + 1;
  const value = options.coinbaseValue ?? blockSubsidy(height, REGTEST) + (options.fees ?? 0n);
  const coinbase = createCoinbase(height, OP_TRUE_SCRIPT, value);
  const fields = { version: options.version ?? 0x20000000, prevHash: prev.hash, time: prev.time + 1, bits: REGTEST.powLimitBits, nonce: 0 };
  const draft = new BlockHeader({ ...fields, merkleRoot: new Uint8Array(32) });
  const transactions = addWitnessCommitment({ header: draft, transactions: [coinbase, ...txs] });
  const header = new BlockHeader({ ...fields, merkleRoot: blockMerkleRoot({ header: draft, transactions }).root });
  const block = solveBlock({ header, transactions }, REGTEST, { remaining: 1 << 20 });
  if (!block) throw new Error('could not solve a regtest block');
  return block;
}

/** Re-solves a block whose header fields were changed (the proof of work must still hold). */
export function resolve(block: Block): Block {
  const solved = solveBlock(block, REGTEST, { remaining: 1 << 20 });
  if (!solved) throw new Error('could not solve a regtest block');
  return solved;
}

/**
 * A listening peer holding a chain (heights 1..n on regtest's genesis) that a node can
 * -connect to: it answers getheaders from the chain and, unless it is a staller, getdata
 * for blocks. A staller announces the chain and never sends a block.
 */
export class ChainServer {
  readonly peers: TestPeer[] = [];
  /** Blocks (hex hash) asked for and how often. */
  readonly requested = new Map<string, number>();

  private constructor(
    readonly server: net.Server,
    readonly port: number,
    private readonly blocks: readonly Block[],
    private readonly serveBlocks: boolean,
    /** What a getaddr gets (as addrv2). */
    private readonly addresses: readonly PeerAddress[],
    private readonly blockDelayMs: number,
  ) {}

  /** When the next delayed block may go out (ms). */
  #nextBlockAt = 0;

  /** `once`: the server stops listening after its first connection (a peer that goes away). */
  /** `blockDelayMs`: each block is sent this long after the one before (a slow peer). */
  static async start(blocks: readonly Block[], options: { serveBlocks: boolean; once?: boolean; addresses?: readonly PeerAddress[]; blockDelayMs?: number }): Promise<ChainServer> {
    let self!: ChainServer;
    const server = net.createServer((socket) => {
      if (options.once) server.close();
      const peer = TestPeer.accepted(socket, blocks.length);
      self.peers.push(peer);
      peer.handlers.push((f) => self.#answer(peer, f));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new ChainServer(server, (server.address() as net.AddressInfo).port, blocks, options.serveBlocks, options.addresses ?? [], options.blockDelayMs ?? 0);
    return self;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  #answer(peer: TestPeer, frame: Frame): void {
    if (frame.command === 'getheaders') {
      const request = decodeLocatorRequest(frame.payload);
      let start = 0;
      for (const hash of request.locator) {
        const at = this.blocks.findIndex((b) => bytesEqual(b.header.hash, hash));
        if (at !== -1) {
          start = at + 1;
          break;
        }
      }
      peer.send('headers', encodeHeaders(this.blocks.slice(start, start + 2000).map((b) => b.header)));
    } else if (frame.command === 'getaddr' && this.addresses.length > 0) {
      peer.send('addrv2', encodeAddrV2(this.addresses));
    } else if (frame.command === 'getdata') {
      for (const item of decodeInventory(frame.payload)) {
        const hex = hashToHex(item.hash);
        this.requested.set(hex, (this.requested.get(hex) ?? 0) + 1);
        if (!this.serveBlocks) continue;
        const block = this.blocks.find((b) => bytesEqual(b.header.hash, item.hash));
        if (!block) continue;
        if (this.blockDelayMs === 0) {
          peer.send('block', serializeBlock(block));
        } else {
          this.#nextBlockAt = Math.max(this.#nextBlockAt, Date.now()) + this.blockDelayMs;
          setTimeout(() => peer.send('block', serializeBlock(block)), this.#nextBlockAt - Date.now());
        }
      }
    }
  }

  close(): void {
    for (const p of this.peers) p.close();
    this.server.close();
  }
}

/** `count` coinbase-only blocks on regtest's genesis, a second apart from `startTime`. */
export function buildChain(count: number, startTime: number): Block[] {
  const blocks: Block[] = [];
  let prev = { hash: REGTEST.genesisHash, height: 0, time: startTime };
  for (let i = 0; i < count; i++) {
    const block = buildBlock(prev);
    blocks.push(block);
    prev = { hash: block.header.hash, height: prev.height + 1, time: block.header.time };
  }
  return blocks;
}
