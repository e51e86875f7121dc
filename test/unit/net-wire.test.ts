/**
 * The v1 wire format (src/net): framing fed in pieces of every size, the header checks
 * Core makes before reading a payload, and the message codecs' round trips and limits.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import {
  BIP155_NETWORK,
  decodeAddr,
  decodeAddrV2,
  encodeAddr,
  encodeAddrV2,
  decodeFeeFilter,
  decodeHeaders,
  decodeInventory,
  decodeLocatorRequest,
  decodeNonce,
  decodeSendCmpct,
  decodeVersion,
  encodeFeeFilter,
  encodeFrame,
  encodeHeaders,
  encodeInventory,
  encodeLocatorRequest,
  encodeNonce,
  encodeSendCmpct,
  encodeVersion,
  FrameDecoder,
  FrameError,
  ipv4Mapped,
  MAX_INV_SZ,
  MAX_PROTOCOL_MESSAGE_LENGTH,
  MSG_WTX,
  NODE_NETWORK,
  NODE_WITNESS,
  PROTOCOL_VERSION,
  type Frame,
} from '../../src/net/index.js';
import { ByteWriter, DecodeError, fromHex, sha256d, toHex } from '../../src/primitives/index.js';
import { readVectorText } from '../support/vectors.js';
import { parseBlock } from '../../src/primitives/index.js';

const REGTEST_MAGIC = fromHex('fabfb5da');

function frames(decoder: FrameDecoder, bytes: Uint8Array, piece: number): (Frame | FrameError)[] {
  const out: (Frame | FrameError)[] = [];
  for (let i = 0; i < bytes.length; i += piece) out.push(...decoder.push(bytes.subarray(i, i + piece)));
  return out;
}

test('frames survive any split of the byte stream, and a bad checksum drops only its own message', () => {
  const messages = [
    encodeFrame(REGTEST_MAGIC, 'verack', new Uint8Array(0)),
    encodeFrame(REGTEST_MAGIC, 'ping', encodeNonce(0x0123456789abcdefn)),
    encodeFrame(REGTEST_MAGIC, 'inv', encodeInventory([{ type: MSG_WTX, hash: sha256d(Uint8Array.of(1)) }])),
  ];
  const corrupt = encodeFrame(REGTEST_MAGIC, 'pong', encodeNonce(7n));
  corrupt[corrupt.length - 1]! ^= 1;
  const stream = new Uint8Array([...messages[0]!, ...corrupt, ...messages[1]!, ...messages[2]!]);
  for (const piece of [1, 2, 7, 23, 24, 25, 1000]) {
    const decoded = frames(new FrameDecoder(REGTEST_MAGIC), stream, piece);
    assert.deepEqual(
      decoded.map((f) => (f instanceof FrameError ? `error:${f.kind}:${f.command}` : f.command)),
      ['verack', 'error:checksum:pong', 'ping', 'inv'],
      `pieces of ${piece}`,
    );
    assert.equal(decodeNonce((decoded[2] as Frame).payload), 0x0123456789abcdefn);
  }
  // The header's layout, byte for byte: magic, NUL-padded command, length, checksum.
  assert.equal(toHex(messages[0]!), 'fabfb5da' + toHex(new TextEncoder().encode('verack')) + '000000000000' + '00000000' + '5df6e0e2');
});

test('a wrong magic, a malformed command or an oversized length fails the stream from the header alone', () => {
  const other = encodeFrame(fromHex('f9beb4d9'), 'ping', encodeNonce(1n));
  assert.throws(() => new FrameDecoder(REGTEST_MAGIC).push(other), (e: FrameError) => e.kind === 'magic');

  const badCommand = encodeFrame(REGTEST_MAGIC, 'ping', encodeNonce(1n));
  badCommand[4 + 5] = 0x41; // a byte after the NUL padding began
  assert.throws(() => new FrameDecoder(REGTEST_MAGIC).push(badCommand), (e: FrameError) => e.kind === 'command');
  const control = encodeFrame(REGTEST_MAGIC, 'ping', encodeNonce(1n));
  control[5] = 0x07;
  assert.throws(() => new FrameDecoder(REGTEST_MAGIC).push(control), (e: FrameError) => e.kind === 'command');

  const header = new Uint8Array(24);
  header.set(REGTEST_MAGIC);
  header.set(new TextEncoder().encode('block'), 4);
  new DataView(header.buffer).setUint32(16, MAX_PROTOCOL_MESSAGE_LENGTH + 1, true);
  const decoder = new FrameDecoder(REGTEST_MAGIC);
  assert.throws(() => decoder.push(header), (e: FrameError) => e.kind === 'oversized' && e.command === 'block');
  // The stream stays failed, and nothing of the claimed payload was buffered.
  assert.equal(decoder.bufferedBytes, 0);
  assert.throws(() => decoder.push(new Uint8Array(10)), (e: FrameError) => e.kind === 'oversized');
  // Exactly the limit is allowed.
  new DataView(header.buffer).setUint32(16, MAX_PROTOCOL_MESSAGE_LENGTH, true);
  assert.deepEqual(new FrameDecoder(REGTEST_MAGIC).push(header), []);
});

test('version: round trip, Core\'s optional tail, and the user agent limit', () => {
  const version = {
    version: PROTOCOL_VERSION,
    services: NODE_NETWORK | NODE_WITNESS,
    timestamp: 1_700_000_000n,
    receiver: { services: 0n, ip: ipv4Mapped(127, 0, 0, 1), port: 18444 },
    sender: { services: NODE_NETWORK | NODE_WITNESS, ip: new Uint8Array(16), port: 0 },
    nonce: 0xfeedfacecafebeefn,
    userAgent: '/tsbtcd:0.1.0/',
    startHeight: 123,
    relay: false,
  };
  const bytes = encodeVersion(version);
  assert.deepEqual(decodeVersion(bytes), version);
  // Without fRelay (pre-BIP37 peers) relay defaults to true; bytes after it are ignored.
  assert.equal(decodeVersion(bytes.subarray(0, bytes.length - 1)).relay, true);
  assert.equal(decodeVersion(new Uint8Array([...bytes, 1, 2, 3])).startHeight, 123);
  const long = new ByteWriter().i32(PROTOCOL_VERSION).u64(0n).i64(0n).bytes(new Uint8Array(26)).bytes(new Uint8Array(26)).u64(0n).compactSize(257).bytes(new Uint8Array(257)).finish();
  assert.throws(() => decodeVersion(long), DecodeError);
});

test('inventory, locators, headers, feefilter and sendcmpct: round trips and Core\'s count limits', () => {
  const items = Array.from({ length: 5 }, (_, i) => ({ type: i + 1, hash: sha256d(Uint8Array.of(i)) }));
  assert.deepEqual(decodeInventory(encodeInventory(items)), items);
  assert.throws(() => decodeInventory(new ByteWriter().compactSize(MAX_INV_SZ + 1).finish()), DecodeError);

  const request = { version: PROTOCOL_VERSION, locator: [sha256d(Uint8Array.of(1)), sha256d(Uint8Array.of(2))], stop: new Uint8Array(32) };
  assert.deepEqual(decodeLocatorRequest(encodeLocatorRequest(request)), request);
  assert.throws(() => decodeLocatorRequest(new ByteWriter().u32(PROTOCOL_VERSION).compactSize(102).finish()), DecodeError);

  const blocks = readVectorText('mainnet-blocks-0-255.hex').trim().split('\n').slice(0, 10).map((hex) => parseBlock(fromHex(hex.trim())).header);
  const decoded = decodeHeaders(encodeHeaders(blocks));
  assert.deepEqual(decoded.map((h) => h.hashHex), blocks.map((h) => h.hashHex));
  const withTx = encodeHeaders(blocks.slice(0, 1));
  withTx[withTx.length - 1] = 1;
  assert.throws(() => decodeHeaders(withTx), DecodeError);
  assert.throws(() => decodeHeaders(new ByteWriter().compactSize(2001).finish()), DecodeError);

  assert.equal(decodeFeeFilter(encodeFeeFilter(1000n)), 1000n);
  assert.deepEqual(decodeSendCmpct(encodeSendCmpct(true, 2n)), { highBandwidth: true, version: 2n });
  assert.throws(() => decodeNonce(new Uint8Array(9)), DecodeError);
});

test('random bytes and mutated messages end in a frame, a FrameError or a DecodeError, never anything else', () => {
  const decoders = [decodeVersion, decodeInventory, decodeLocatorRequest, decodeHeaders, decodeNonce, decodeFeeFilter, decodeSendCmpct];
  const seeds = [
    encodeInventory([{ type: 1, hash: new Uint8Array(32) }]),
    encodeLocatorRequest({ version: 1, locator: [new Uint8Array(32)], stop: new Uint8Array(32) }),
    encodeNonce(5n),
  ];
  let cases = 0;
  for (let i = 0; i < 3000; i++) {
    const seed = seeds[i % seeds.length]!;
    const bytes = i % 2 ? new Uint8Array(randomBytes(i % 90)) : seed.map((b, j) => (j === i % seed.length ? b ^ (1 << i % 8) : b));
    for (const decode of decoders) {
      try {
        decode(bytes);
      } catch (err) {
        assert.ok(err instanceof DecodeError, `${decode.name} threw ${(err as Error).name}: ${(err as Error).message}`);
      }
      cases++;
    }
    const stream = new Uint8Array([...REGTEST_MAGIC, ...randomBytes(40)]);
    try {
      new FrameDecoder(REGTEST_MAGIC).push(stream);
    } catch (err) {
      assert.ok(err instanceof FrameError);
    }
  }
  assert.equal(cases, 21000);
});

test('addr and addrv2: round trips, IPv4 mapped in addr, BIP155 lengths and the 1,000-entry limit', () => {
  const v4 = { time: 1_700_000_000, services: 0x409n, network: BIP155_NETWORK.IPV4, address: Uint8Array.of(10, 0, 0, 1), port: 8333 };
  const v6 = { time: 1_700_000_001, services: 1n, network: BIP155_NETWORK.IPV6, address: fromHex('20010db8000000000000000000000001'), port: 18444 };
  const tor = { time: 1_700_000_002, services: 0x409n, network: BIP155_NETWORK.TORV3, address: new Uint8Array(32).fill(7), port: 9050 };
  assert.deepEqual(decodeAddr(encodeAddr([v4, v6])), [v4, v6]);
  assert.deepEqual(decodeAddrV2(encodeAddrV2([v4, v6, tor])), [v4, v6, tor]);
  // The IPv4 entry travels as ::ffff:10.0.0.1, port big-endian.
  assert.equal(toHex(encodeAddr([v4])), '01' + '00f15365' + '0904000000000000' + '00000000000000000000ffff0a000001' + '208d');
  assert.throws(() => encodeAddr([tor]), RangeError);
  const wrongLength = new ByteWriter().compactSize(1).u32(0).compactSize(1).u8(BIP155_NETWORK.IPV4).varBytes(new Uint8Array(5)).u16(0).finish();
  assert.throws(() => decodeAddrV2(wrongLength), DecodeError);
  assert.throws(() => decodeAddr(new ByteWriter().compactSize(1001).finish()), DecodeError);
  assert.throws(() => decodeAddrV2(new ByteWriter().compactSize(1001).finish()), DecodeError);
  // An unknown network is kept for the caller to skip, as BIP155 asks.
  const unknown = { time: 1, services: 0n, network: 42, address: Uint8Array.of(1, 2, 3), port: 1 };
  assert.deepEqual(decodeAddrV2(encodeAddrV2([unknown])), [unknown]);
});
