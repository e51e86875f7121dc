/**
 * Hostile P2P input never crashes the node. First every message decoder of src/net gets
 * mutated and random payloads and ends in a value or a typed error (DecodeError or
 * RangeError). Then 100,000 fuzzed messages — well framed, every known command and some
 * unknown ones, payloads mutated from valid samples — go to a real tsbtcd over four
 * sockets (reconnecting when the node drops one), while an honest peer's pings must keep
 * being answered; at the end the node is alive, on its chain, and its peak RSS is bounded.
 * Seeded, so a failure reproduces.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  decodeAddr,
  decodeAddrV2,
  decodeBlockTransactions,
  decodeBlockTransactionsRequest,
  decodeCompactBlock,
  decodeFeeFilter,
  decodeHeaders,
  decodeInventory,
  decodeLocatorRequest,
  decodeNonce,
  decodeSendCmpct,
  decodeVersion,
  encodeAddr,
  encodeAddrV2,
  encodeBlockTransactions,
  encodeBlockTransactionsRequest,
  encodeCompactBlock,
  encodeFeeFilter,
  encodeHeaders,
  encodeInventory,
  encodeLocatorRequest,
  encodeNonce,
  encodeSendCmpct,
  encodeVersion,
  MSG_BLOCK,
  MSG_WTX,
  PROTOCOL_VERSION,
} from '../../src/net/index.js';
import { buildCompactBlock } from '../../src/net/compact-relay.js';
import { DecodeError, parseBlock, parseTransaction, serializeBlock } from '../../src/primitives/index.js';
import { Daemon } from '../integration/daemon-harness.js';
import { buildBlock, REGTEST, TestPeer } from '../integration/p2p-test-peer.js';
import { seededRandom } from '../support/memo-signatures.js';
import { mutate } from '../support/mutate.js';

const SEED = 0x5eed_b10c;
const MESSAGES = 100_000;
const CONNECTIONS = 4;

/** Valid payloads for each command, from one real block. */
function samples(): Map<string, { payload: Uint8Array; decode?: (p: Uint8Array) => unknown }> {
  const block = buildBlock({ hash: REGTEST.genesisHash, height: 0, time: REGTEST.genesis.header.time });
  const parsed = parseBlock(serializeBlock(block));
  const tx = parsed.transactions[0]!;
  const addr = { time: 1_700_000_000, services: 9n, network: 1, address: Uint8Array.of(10, 0, 0, 1), port: 8333 };
  const compact = buildCompactBlock(parsed);
  const m = new Map<string, { payload: Uint8Array; decode?: (p: Uint8Array) => unknown }>();
  const zero = { services: 0n, ip: new Uint8Array(16), port: 0 };
  m.set('version', { payload: encodeVersion({ version: PROTOCOL_VERSION, services: 9n, timestamp: 1n, receiver: zero, sender: zero, nonce: 5n, userAgent: '/fuzz/', startHeight: 1, relay: true }), decode: decodeVersion });
  m.set('ping', { payload: encodeNonce(1n), decode: decodeNonce });
  m.set('pong', { payload: encodeNonce(2n), decode: decodeNonce });
  m.set('feefilter', { payload: encodeFeeFilter(1000n), decode: decodeFeeFilter });
  m.set('sendcmpct', { payload: encodeSendCmpct(true, 2n), decode: decodeSendCmpct });
  m.set('inv', { payload: encodeInventory([{ type: MSG_BLOCK, hash: block.header.hash }, { type: MSG_WTX, hash: tx.wtxid }]), decode: decodeInventory });
  m.set('getdata', { payload: encodeInventory([{ type: MSG_BLOCK, hash: REGTEST.genesisHash }]), decode: decodeInventory });
  m.set('notfound', { payload: encodeInventory([{ type: MSG_WTX, hash: tx.wtxid }]), decode: decodeInventory });
  const locator = encodeLocatorRequest({ version: PROTOCOL_VERSION, locator: [REGTEST.genesisHash], stop: new Uint8Array(32) });
  m.set('getheaders', { payload: locator, decode: decodeLocatorRequest });
  m.set('getblocks', { payload: locator, decode: decodeLocatorRequest });
  m.set('headers', { payload: encodeHeaders([block.header]), decode: decodeHeaders });
  m.set('addr', { payload: encodeAddr([addr]), decode: decodeAddr });
  m.set('addrv2', { payload: encodeAddrV2([addr]), decode: decodeAddrV2 });
  m.set('block', { payload: serializeBlock(block), decode: parseBlock });
  m.set('tx', { payload: tx.toBytes(), decode: parseTransaction });
  m.set('cmpctblock', { payload: encodeCompactBlock(compact), decode: decodeCompactBlock });
  m.set('getblocktxn', { payload: encodeBlockTransactionsRequest({ blockHash: block.header.hash, indexes: [0] }), decode: decodeBlockTransactionsRequest });
  m.set('blocktxn', { payload: encodeBlockTransactions({ blockHash: block.header.hash, transactions: [tx] }), decode: decodeBlockTransactions });
  for (const empty of ['verack', 'sendheaders', 'getaddr', 'mempool', 'wtxidrelay', 'sendaddrv2', 'filterclear', 'xyzzy', 'getcfilters']) m.set(empty, { payload: new Uint8Array(0) });
  return m;
}

test('every P2P message decoder turns mutated and random payloads into a value or a typed error', () => {
  const random = seededRandom(SEED);
  let decoded = 0;
  let refused = 0;
  for (const [command, { payload, decode }] of samples()) {
    if (!decode) continue;
    for (let i = 0; i < 2000; i++) {
      const input = i % 10 === 0 ? Uint8Array.from({ length: random() % 200 }, () => random() & 0xff) : mutate(payload, random, { compactSize: true });
      try {
        decode(input);
        decoded++;
      } catch (err) {
        if (!(err instanceof DecodeError) && !(err instanceof RangeError)) {
          assert.fail(`${command} iteration ${i} (seed ${SEED}): ${(err as Error).stack}\ninput ${Buffer.from(input).toString('hex')}`);
        }
        refused++;
      }
    }
  }
  assert.ok(decoded > 0 && refused > 0, `${decoded} decoded, ${refused} refused`);
});

function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

test('100,000 fuzzed messages over four sockets: no crash, bounded memory, an honest peer served throughout', async (t) => {
  const node = await Daemon.start({ args: ['-debug=0'] });
  try {
    await node.rpc('generatetoaddress', [110, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080']);
    const tipBefore = (await node.rpc('getbestblockhash')).json.result as string;
    const honest = await TestPeer.connect(node.p2pPort, 110);
    const random = seededRandom(SEED + 1);
    const sampleList = [...samples()];
    const fuzzers: (TestPeer | undefined)[] = new Array(CONNECTIONS).fill(undefined);
    let reconnects = 0;
    const started = performance.now();
    for (let sent = 0; sent < MESSAGES; ) {
      for (let c = 0; c < CONNECTIONS; c++) {
        let peer = fuzzers[c];
        if (!peer || peer.closed) {
          if (peer) reconnects++;
          peer = fuzzers[c] = await TestPeer.connect(node.p2pPort, 0);
        }
        // A burst per connection, then the honest peer must still get its pong.
        for (let i = 0; i < 250; i++, sent++) {
          const [command, { payload }] = sampleList[random() % sampleList.length]!;
          const body = random() % 8 === 0 ? payload : random() % 16 === 0 ? Uint8Array.from({ length: random() % 300 }, () => random() & 0xff) : mutate(payload, random, { compactSize: true });
          peer.send(command, body);
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      if (sent % 10_000 === 0) await honest.sync(60_000);
    }
    await honest.sync(120_000);
    const seconds = (performance.now() - started) / 1000;
    const rss = peakRssMiB(node.proc.pid!);
    t.diagnostic(`${MESSAGES} messages in ${seconds.toFixed(1)} s over ${CONNECTIONS} sockets, ${reconnects} reconnects after the node dropped one; coordinator peak RSS ${rss.toFixed(0)} MiB`);
    assert.equal((await node.rpc('getbestblockhash')).json.result, tipBefore);
    // Malformed payloads are logged under -debug=net only; an unexpected exception in a
    // message's asynchronous part would be logged unconditionally with its stack.
    const unexpected = node.debugLog().split('\n').filter((l) => l.includes('ProcessMessages('));
    assert.deepEqual(unexpected.slice(0, 3), []);
    assert.ok(rss < 1024, `peak RSS ${rss.toFixed(0)} MiB`);
    for (const f of fuzzers) f?.close();
    honest.close();
    assert.ok(node.running, 'the node is still running');
  } finally {
    await node.cleanup();
  }
});
