/**
 * WebSocket push (-websocket): 1,000 subscribers to blocks and mempool events on /ws,
 * authenticated as JSON-RPC, receive every event in order, numbered without a gap,
 * through a SIGKILL of the front-end they are connected to: each reconnects (to whichever
 * front-end takes it) and resumes after the last number it saw, while blocks and
 * transactions went on in between. What they receive is checked against the chain
 * (every connected block by hash and height) and the transactions sent.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { Daemon, waitFor, walletCaller, type WalletCaller } from './daemon-harness.js';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const WebSocket = require('ws') as any;

const SUBSCRIBERS = 1000;

interface PushMessage {
  seq?: number;
  topic?: string;
  op?: string;
  [key: string]: unknown;
}

/** One subscriber: connects, subscribes (resuming after its last event), records what it gets. */
class Subscriber {
  readonly events: PushMessage[] = [];
  readonly texts: string[] = [];
  epoch: string | undefined;
  errors: string[] = [];
  private socket: any;
  /** Whether its socket is open now. */
  open = false;
  private subscribedBefore = false;

  constructor(
    private readonly url: string,
    private readonly auth: string,
    private readonly topics: readonly string[],
    private readonly addresses: readonly string[] = [],
  ) {}

  get lastSeq(): number {
    return this.events.length > 0 ? this.events[this.events.length - 1]!.seq! : 0;
  }

  connect(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(this.url, { headers: { Authorization: this.auth } });
      this.socket = socket;
      socket.on('open', () => {
        this.open = true;
        // The first subscription takes events from now on; a reconnection resumes after the last one seen.
        const resume = this.subscribedBefore ? { since: this.lastSeq } : {};
        this.subscribedBefore = true;
        socket.send(JSON.stringify({ op: 'subscribe', topics: this.topics, addresses: this.addresses, ...resume }));
      });
      socket.on('message', (data: Buffer) => {
        const text = data.toString();
        const message = JSON.parse(text) as PushMessage;
        if (message.op === 'subscribed') {
          this.epoch = message.epoch as string;
          resolve();
        } else if (message.op === 'error') {
          this.errors.push(String(message.message));
        } else {
          this.events.push(message);
          this.texts.push(text);
        }
      });
      socket.on('error', (err: Error) => reject(err));
      socket.on('close', () => (this.open = false));
    });
  }

  close(): void {
    this.socket?.close();
  }
}

let d: Daemon;
let w: WalletCaller;
let auth: string;
let url: string;

before(async () => {
  d = await Daemon.start({ args: ['-websocket', '-rpcfrontends=2', '-fallbackfee=0.0002'] });
  auth = `Basic ${Buffer.from(d.cookie()).toString('base64')}`;
  url = `ws://127.0.0.1:${d.port}/ws`;
  await d.call('createwallet', ['w']);
  w = walletCaller(d, 'w');
});
after(async () => {
  await d?.cleanup();
});

test('the upgrade needs the JSON-RPC credentials, and bad requests get an error message', { timeout: 60_000 }, async () => {
  const refused = await new Promise<number>((resolve) => {
    const socket = new WebSocket(url, { headers: { Authorization: 'Basic ' + Buffer.from('nobody:wrong').toString('base64') } });
    socket.on('unexpected-response', (_req: unknown, res: { statusCode: number }) => resolve(res.statusCode));
    socket.on('open', () => resolve(101));
  });
  assert.equal(refused, 401);
  const replies = await new Promise<PushMessage[]>((resolve) => {
    const socket = new WebSocket(url, { headers: { Authorization: auth } });
    const got: PushMessage[] = [];
    socket.on('open', () => {
      socket.send('not json');
      socket.send(JSON.stringify({ op: 'subscribe', topics: ['nope'] }));
      socket.send(JSON.stringify({ op: 'subscribe', topics: ['block'], since: -1 }));
    });
    socket.on('message', (data: Buffer) => {
      got.push(JSON.parse(data.toString()));
      if (got.length === 3) {
        socket.close();
        resolve(got);
      }
    });
  });
  assert.deepEqual(
    replies.map((r) => r.op),
    ['error', 'error', 'error'],
  );
});

test('1,000 subscribers get every block and mempool event in order, with no gap across a front-end SIGKILL', { timeout: 300_000 }, async () => {
  const miner = await w('getnewaddress');
  const payee = await w('getnewaddress', ['', 'bech32m']);
  await d.call('generatetoaddress', [101, miner]);

  const reference = new Subscriber(url, auth, ['block', 'mempool', 'tip', 'sequence']);
  const watcher = new Subscriber(url, auth, [], [payee]);
  const subscribers = Array.from({ length: SUBSCRIBERS }, () => new Subscriber(url, auth, ['block', 'mempool']));
  await Promise.all([reference.connect(), watcher.connect()]);
  for (let i = 0; i < SUBSCRIBERS; i += 100) await Promise.all(subscribers.slice(i, i + 100).map((s) => s.connect()));

  const sent: string[] = [];
  const activity = async (rounds: number) => {
    for (let r = 0; r < rounds; r++) {
      for (let i = 0; i < 3; i++) sent.push(await w('sendtoaddress', [payee, 0.1]));
      await d.call('generatetoaddress', [1, miner]);
    }
  };
  await activity(3);

  // The front-end half of them are on dies; they reconnect and resume while blocks go on.
  const victim = d.frontendPids()[0]!;
  process.kill(victim, 'SIGKILL');
  await waitFor('the front-end restarted', async () => (d.frontendPids().length === 2 && !d.frontendPids().includes(victim) ? true : undefined), 30_000);
  await activity(2);
  // Those whose socket closed reconnect with the last number they saw.
  const gone = [reference, watcher, ...subscribers].filter((s) => !s.open);
  assert.ok(gone.length > 0, 'some subscribers lost their front-end');
  for (let i = 0; i < gone.length; i += 100) await Promise.all(gone.slice(i, i + 100).map((s) => s.connect()));
  await activity(2);

  // Every subscriber reaches the reference's last block/mempool event.
  const tip = await d.call<number>('getblockcount');
  await waitFor('the reference saw the last block', async () => (reference.events.some((e) => e.topic === 'block' && e.height === tip) ? true : undefined), 30_000);
  const wanted = reference.events.filter((e) => e.topic === 'block' || e.topic === 'mempool');
  const lastWanted = wanted[wanted.length - 1]!.seq!;
  await waitFor('every subscriber caught up', async () => (subscribers.every((s) => s.lastSeq >= lastWanted) ? true : undefined), 60_000);

  // The reference's events are the chain's: every block connected since it subscribed, each pooled payment.
  const connected = wanted.filter((e) => e.topic === 'block' && e.event === 'connected');
  for (const e of connected) assert.equal(e.hash, await d.call('getblockhash', [e.height]));
  assert.deepEqual(
    connected.map((e) => e.height),
    Array.from({ length: 7 }, (_, i) => 102 + i),
  );
  const added = wanted.filter((e) => e.topic === 'mempool' && e.event === 'added').map((e) => e.txid);
  assert.deepEqual(added, sent);
  const seqs = reference.events.map((e) => e.seq!);
  assert.deepEqual(seqs, [...seqs].sort((a, b) => a - b), 'numbers only rise');
  assert.equal(new Set(seqs).size, seqs.length);

  // Each subscriber got exactly those events, same text, same order: none lost, none twice.
  const expected = reference.texts.filter((_, i) => reference.events[i]!.topic === 'block' || reference.events[i]!.topic === 'mempool');
  for (const s of subscribers) {
    const mine = s.texts.filter((_, i) => s.events[i]!.seq! >= wanted[0]!.seq!);
    assert.deepEqual(mine, expected);
    assert.deepEqual(s.errors, []);
    assert.equal(s.epoch, reference.epoch);
  }
  // The address watcher saw each payment pooled, then confirmed.
  for (const txid of sent) {
    const seen = watcher.events.filter((e) => e.txid === txid).map((e) => e.event);
    assert.deepEqual(seen, ['mempool', 'confirmed'], txid);
  }
  for (const s of [reference, watcher, ...subscribers]) s.close();
});
