/**
 * REST building blocks without a node: Core's ParseDataFormat, libevent's URI and query
 * parsing, the integer and hash parameters, BIP64 getutxos (Core's length-prefixed body
 * reading, the bitmap, the binary reply) and the backpressure streams against a fake uWS
 * response that accepts only part of each chunk.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import { wireHexEncoder } from '../../src/http/index.js';
import { hashToHex } from '../../src/primitives/index.js';
import {
  bytesBody,
  decodeUtxoBody,
  encodeUtxoResult,
  hexReply,
  hexEncodeInto,
  MEMPOOL_HEIGHT,
  parseDataFormat,
  parseHexLenient,
  parseInt32,
  parseQueryPairs,
  parseRestHash,
  parseTargetQuery,
  parseUnsigned,
  parseUriOutpoints,
  queryParameter,
  sanitizeUri,
  uriParts,
  utxoBitmap,
  UtxoRequestError,
  UriParseError,
} from '../../src/rest/index.js';

const G = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';

test('ParseDataFormat: last "?" cut, last "." decides; unknown suffixes stay in the parameter', () => {
  assert.deepEqual(parseDataFormat(`${G}.json`), { format: 'json', param: G });
  assert.deepEqual(parseDataFormat(`${G}.bin?x=1.hex`), { format: 'bin', param: G });
  assert.deepEqual(parseDataFormat(`${G}.hex?a=1?b=2`), { format: 'undef', param: `${G}.hex?a=1` });
  assert.deepEqual(parseDataFormat(`${G}`), { format: 'undef', param: G });
  assert.deepEqual(parseDataFormat(`${G}.`), { format: 'undef', param: G });
  assert.deepEqual(parseDataFormat(`${G}.JSON`), { format: 'undef', param: `${G}.JSON` });
  assert.deepEqual(parseDataFormat(`${G}.xml`), { format: 'undef', param: `${G}.xml` });
  assert.deepEqual(parseDataFormat('.json'), { format: 'json', param: '' });
  assert.deepEqual(parseDataFormat('5/a.b.hex'), { format: 'hex', param: '5/a.b' });
});

test('hashes and integers as Core’s FromHex and ToIntegral read them', () => {
  assert.equal(hashToHex(parseRestHash(G)!), G);
  assert.equal(hashToHex(parseRestHash(G.toUpperCase())!), G);
  assert.equal(parseRestHash(G.slice(1)), undefined);
  assert.equal(parseRestHash(`0x${G.slice(2)}`), undefined);
  assert.equal(parseInt32('0'), 0);
  assert.equal(parseInt32('-0'), 0);
  assert.equal(parseInt32('007'), 7);
  assert.equal(parseInt32('-1'), -1);
  assert.equal(parseInt32('+1'), undefined);
  assert.equal(parseInt32(' 1'), undefined);
  assert.equal(parseInt32(''), undefined);
  assert.equal(parseInt32('2147483647'), 2147483647);
  assert.equal(parseInt32('2147483648'), undefined);
  assert.equal(parseUnsigned('18446744073709551615', 0xffffffffffffffffn), 0xffffffffffffffffn);
  assert.equal(parseUnsigned('18446744073709551616', 0xffffffffffffffffn), undefined);
  assert.equal(parseUnsigned('4294967296', 0xffffffffn), undefined);
  assert.equal(parseUnsigned('-0', 0xffffffffn), undefined);
  assert.equal(sanitizeUri('a%20b'), 'a%20b');
  assert.equal(sanitizeUri('a b"<x>{|}\\^`'), 'abx');
});

test('libevent URI check and query parameters', () => {
  assert.equal(parseTargetQuery('/rest/headers/x.json'), undefined);
  assert.equal(parseTargetQuery('/rest/headers/x.json?count=3'), 'count=3');
  assert.equal(parseTargetQuery('/rest/headers/x.json?a=1?b#frag'), 'a=1?b');
  assert.equal(parseTargetQuery('/rest/x?'), '');
  for (const bad of ['/rest/x.json?count=%XY', '/rest/x y', '/rest/x?a=<', '/rest/x#a#b', '/rest/x?a=%4', '/rest/x"']) {
    assert.throws(() => parseTargetQuery(bad), UriParseError, bad);
  }
  assert.deepEqual(parseQueryPairs('count=1&count=2'), [['count', '1'], ['count', '2']]);
  assert.deepEqual(parseQueryPairs('count=+1'), [['count', ' 1']]);
  assert.deepEqual(parseQueryPairs('a=%41%4x%'), [['a', 'A%4x%']]);
  assert.deepEqual(parseQueryPairs('a=1&'), [['a', '1']]);
  assert.deepEqual(parseQueryPairs('a=1%002'), [['a', '1']]);
  // One malformed pair (no '=', empty key, empty pair) drops every parameter.
  assert.deepEqual(parseQueryPairs('count'), []);
  assert.deepEqual(parseQueryPairs('count=3&x'), []);
  assert.deepEqual(parseQueryPairs('=3'), []);
  assert.deepEqual(parseQueryPairs('&count=3'), []);
  assert.equal(queryParameter('/rest/h.json?count=3&count=4', 'count'), '3');
  assert.equal(queryParameter('/rest/h.json?co%75nt=3', 'count'), undefined);
  assert.equal(queryParameter('/rest/h.json?count', 'count'), undefined);
  assert.throws(() => queryParameter('/rest/h.json?count=%XY', 'count'), /URI parsing failed, it likely contained RFC 3986 invalid characters/);
});

test('getutxos URI outpoints: checkmempool, exactly <64 hex>-<u32>, else Parse error', () => {
  assert.deepEqual(uriParts(''), []);
  assert.deepEqual(uriParts('/'), []);
  assert.deepEqual(uriParts('/checkmempool'), ['checkmempool']);
  assert.deepEqual(uriParts('XYZ'), ['YZ']);
  const parsed = parseUriOutpoints(['checkmempool', `${G}-0`, `${G}-4294967295`, `${G}-007`, `${G.toUpperCase()}-0000000000001`]);
  assert.equal(parsed.checkMempool, true);
  assert.deepEqual(parsed.outpoints.map((o) => [hashToHex(o.txid), o.vout]), [[G, 0], [G, 4294967295], [G, 7], [G, 1]]);
  assert.deepEqual(parseUriOutpoints(['checkmempool']).outpoints, []);
  for (const bad of [`${G}-+1`, `${G}-0-1`, `${G}-04294967296`, `-${G}-0`, `${G}`, `${G}-4294967296`, `${G}--1`, `${G.slice(2)}-0`, '', `${G}-`]) {
    assert.throws(() => parseUriOutpoints([bad]), (e: unknown) => e instanceof UtxoRequestError && e.message === 'Parse error', bad);
  }
});

test('getutxos body: Core reads CompactSize(len) ‖ body as bool ‖ vector<COutPoint>', () => {
  const outpoint = (i: number) => {
    const b = Buffer.alloc(36);
    b.fill(i, 0, 32);
    b.writeUInt32LE(i, 32);
    return b;
  };
  // "01 <outpoint>": one outpoint, and checkmempool true whatever the client meant.
  const one = decodeUtxoBody(Buffer.concat([Buffer.of(1), outpoint(7)]));
  assert.equal(one.checkMempool, true);
  assert.deepEqual(one.outpoints.map((o) => [o.txid[0], o.vout]), [[7, 7]]);
  // A literal BIP64 body "01 01 <outpoint>" is read shifted by one byte.
  const bip64 = decodeUtxoBody(Buffer.concat([Buffer.of(1, 1), outpoint(7)]));
  assert.equal(bip64.outpoints.length, 1);
  assert.equal(bip64.outpoints[0]!.txid[0], 1);
  // Trailing bytes are ignored; short bodies and 253+ byte bodies (3-byte prefix) fail.
  assert.equal(decodeUtxoBody(Buffer.concat([Buffer.of(1), outpoint(1), Buffer.of(9, 9)])).outpoints.length, 1);
  const parseError = (e: unknown) => e instanceof UtxoRequestError && e.status === 400 && e.message === 'Parse error';
  assert.throws(() => decodeUtxoBody(Buffer.concat([Buffer.of(2), outpoint(1)])), parseError);
  const six = Buffer.concat([Buffer.of(6), ...[1, 2, 3, 4, 5, 6].map(outpoint)]);
  assert.equal(six.length, 217);
  assert.equal(decodeUtxoBody(six).outpoints.length, 6);
  const seven = Buffer.concat([Buffer.of(7), ...[1, 2, 3, 4, 5, 6, 7].map(outpoint)]);
  assert.equal(seven.length, 253);
  assert.throws(() => decodeUtxoBody(seven), parseError);
  assert.deepEqual(decodeUtxoBody(Buffer.of(0)).outpoints, []);
});

test('hex bodies: lowercase pairs as Buffer.toString gives them, any length and offset, LF when asked', () => {
  const source = Buffer.from(Array.from({ length: 301 }, (_, i) => (i * 97 + 13) & 0xff));
  for (let length = 0; length <= 300; length++) {
    for (const start of [0, 1]) {
      const bytes = source.subarray(start, start + length);
      const reply = hexReply(bytes);
      assert.equal(Buffer.from(reply.body as Uint8Array).toString('latin1'), `${bytes.toString('hex')}\n`);
      reply.release?.();
      const bare = Buffer.alloc(2 * length);
      hexEncodeInto(bytes, bare);
      assert.equal(bare.toString('latin1'), bytes.toString('hex'));
      // Into a view at any offset (a word boundary or not), leaving its neighbours alone.
      for (const at of [0, 1, 2, 4]) {
        const out = Buffer.alloc(at + 2 * length + 1, 0x2e);
        hexEncodeInto(bytes, out.subarray(at));
        assert.equal(out.toString('latin1'), `${'.'.repeat(at)}${bytes.toString('hex')}.`);
      }
    }
  }
});

test("the front-ends' native hex encoder: Buffer.toString's digits at every length and alignment, bad arguments refused", () => {
  const encode = wireHexEncoder();
  const source = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 131 + 7) & 0xff));
  for (let length = 0; length <= 260; length++) {
    for (const start of [0, 1, 3]) {
      const bytes = source.subarray(start, start + length);
      for (const at of [0, 1, 5]) {
        const out = Buffer.alloc(at + 2 * length + 1, 0x2e);
        encode(bytes, out.subarray(at, at + 2 * length));
        assert.equal(out.toString('latin1'), `${'.'.repeat(at)}${bytes.toString('hex')}.`);
      }
    }
  }
  const big = Buffer.from(Array.from({ length: 1 << 20 }, (_, i) => (i * 7919) & 0xff));
  const out = Buffer.alloc(2 << 20);
  encode(big, out);
  assert.equal(out.toString('latin1'), big.toString('hex'));
  assert.throws(() => encode(Buffer.alloc(4), Buffer.alloc(7)), /shorter than twice/);
  const shared = Buffer.alloc(64);
  assert.throws(() => encode(shared.subarray(0, 16), shared.subarray(8, 40)), /overlap/);
  assert.throws(() => encode('ab' as unknown as Uint8Array, out), TypeError);
});

test('ParseHex as Core: whitespace between pairs only, anything invalid gives nothing', () => {
  assert.deepEqual([...parseHexLenient('01 ab\nCD')], [1, 0xab, 0xcd]);
  assert.deepEqual([...parseHexLenient('zz')], []);
  assert.deepEqual([...parseHexLenient('012')], []);
  assert.deepEqual([...parseHexLenient('0 1')], []);
});

test('getutxos reply: bitmap LSB first, CCoin with its zero version, MEMPOOL_HEIGHT', () => {
  assert.deepEqual([...utxoBitmap([true, false, true])], [0b101]);
  assert.deepEqual([...utxoBitmap([false, false, false, false, false, false, false, false, true])], [0, 1]);
  assert.deepEqual([...utxoBitmap([])], []);
  const tip = Buffer.alloc(32, 0xaa);
  const script = Buffer.concat([Buffer.of(0x51, 0x20), Buffer.alloc(32, 1)]);
  const encoded = Buffer.from(
    encodeUtxoResult({
      chainHeight: 111,
      chaintipHash: tip,
      hits: [true, true],
      utxos: [
        { height: MEMPOOL_HEIGHT, value: 25_000_000n, scriptPubKey: script },
        { height: MEMPOOL_HEIGHT, value: 1n, scriptPubKey: script },
      ],
    }),
  ).toString('hex');
  // rest.md's observed sample: 6f000000 ‖ tip ‖ 01 03 ‖ 02 ‖ 00000000 ffffff7f 40787d0100000000 22 5120…
  assert.equal(encoded.slice(0, 8), '6f000000');
  assert.equal(encoded.slice(8, 72), 'aa'.repeat(32));
  assert.equal(encoded.slice(72, 80), '010302' + '00');
  assert.equal(encoded.slice(78, 78 + 8 + 8 + 16 + 2 + 4), '00000000ffffff7f40787d0100000000225120');
});

/** A uWS response that takes at most `perCall` bytes per tryEnd, like a full socket. */
class FakeResponse {
  written: Buffer[] = [];
  offset = 0;
  done = false;
  closed = false;
  writable: (() => boolean) | undefined;
  total = -1;
  constructor(private readonly perCall: number) {}
  getWriteOffset(): number {
    assert.ok(!this.done, 'access after the response ended');
    return this.offset;
  }
  onWritable(handler: () => boolean): this {
    this.writable = handler;
    return this;
  }
  tryEnd(chunk: Uint8Array, total: number): [boolean, boolean] {
    assert.ok(!this.done, 'write after the response ended');
    if (this.total >= 0) assert.equal(total, this.total);
    this.total = total;
    const take = Math.min(chunk.length, this.perCall);
    this.written.push(Buffer.from(chunk.subarray(0, take)));
    this.offset += take;
    if (this.offset === total) this.done = true;
    return [take === chunk.length, this.done];
  }
  end(): void {
    this.done = true;
  }
  close(): void {
    this.closed = true;
  }
  /** Drains the "socket" until the body is out (or `limit` writable events). */
  drain(limit = 1_000_000): number {
    let events = 0;
    while (!this.done && this.writable && events < limit) {
      this.writable();
      events++;
    }
    return events;
  }
}

test('streamed bytes arrive whole through backpressure; abort releases at once', () => {
  const block = Buffer.alloc(1_000_003);
  for (let i = 0; i < block.length; i++) block[i] = (i * 7919) & 0xff;
  for (const perCall of [4093, 65536, 10_000_000]) {
    const res = new FakeResponse(perCall);
    let finished = 0;
    const body = bytesBody(block);
    body.start(res as unknown as HttpResponse, () => finished++);
    res.drain();
    assert.equal(res.total, block.length);
    assert.ok(Buffer.concat(res.written).equals(block));
    assert.equal(finished, 1);
  }
  // A client that goes away mid-body: one finished() call, no further writes.
  const slow = new FakeResponse(1000);
  let finished = 0;
  const body = bytesBody(block);
  body.start(slow as unknown as HttpResponse, () => finished++);
  slow.drain(5);
  const sent = slow.offset;
  body.abort();
  body.abort();
  assert.equal(finished, 1);
  assert.equal(slow.writable!(), true);
  assert.equal(slow.offset, sent);
  assert.ok(sent < block.length);
});
