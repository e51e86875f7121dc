/**
 * tsbtcd's HTTP layer against bitcoind v31.0's (libevent evhttp under Core's
 * httpserver.cpp), byte for byte where a client can tell: the same raw requests go to both
 * on fresh regtest chains, and the status lines, headers (Date's value aside), bodies and
 * whether the connection stayed open must match. Cases: HTTP/1.0 with and without
 * keep-alive, no Host, malformed request lines and headers, bad Content-Length, heads over
 * 8 KiB, bodies over 32 MiB, chunked bodies, Expect, every method, pipelined requests
 * whose first answer waits (a long poll, a call the coordinator answers), the idle
 * timeout (-rpcservertimeout, default 30 s), and Core's 503 when more requests run than
 * -rpcthreads plus -rpcworkqueue allow.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon } from './daemon-harness.js';
import { exchange, type RawExchange, type RawPart } from './http-raw-client.js';

const reference = referenceBitcoind();

interface Target {
  readonly port: number;
  readonly auth: string;
}

interface Pair {
  readonly tsbtcd: Target;
  readonly bitcoind: Target;
  stop(): Promise<void>;
}

const basic = (cookie: string): string => `Basic ${Buffer.from(cookie.trim()).toString('base64')}`;

async function startPair(args: readonly string[], tsbtcdOnly: readonly string[] = []): Promise<Pair> {
  const [daemon, core] = await Promise.all([
    Daemon.start({ args: ['-rest', ...args, ...tsbtcdOnly] }),
    BitcoindProcess.start((reference as { path: string }).path, ['-rest', '-disablewallet', '-connect=0', ...args]),
  ]);
  return {
    tsbtcd: { port: daemon.port, auth: basic(daemon.cookie()) },
    bitcoind: { port: core.rpc.port, auth: basic(readFileSync(join(core.datadir, 'regtest', '.cookie'), 'utf8')) },
    stop: async () => {
      await Promise.all([daemon.cleanup(), core.stop()]);
    },
  };
}

type Case = (auth: string) => readonly RawPart[];

const rpc = (text: string): string => text;
const GETBLOCKHASH = rpc('{"method":"getblockhash","params":[0],"id":7}');
const post = (auth: string, extra = '', body = GETBLOCKHASH, version = '1.1'): string =>
  `POST / HTTP/${version}\r\n${version === '1.1' ? 'Host: x\r\n' : ''}Authorization: ${auth}\r\n${extra}Content-Length: ${body.length}\r\n\r\n${body}`;
const postRaw = (auth: string, headers: string, body: string): string => `POST / HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\n${headers}\r\n${body}`;
const get = (path: string, version = '1.1', extra = ''): string => `GET ${path} HTTP/${version}\r\n${version === '1.1' ? 'Host: x\r\n' : ''}${extra}\r\n`;
const REST = '/rest/blockhashbyheight/0.hex';
const GENESIS = '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206';

const CASES: Record<string, Case> = {
  'HTTP/1.0 without keep-alive (reply to the end of the connection)': (a) => [post(a, '', GETBLOCKHASH, '1.0')],
  'HTTP/1.0 with Connection: keep-alive, twice on one connection': (a) => [post(a, 'Connection: keep-alive\r\n', GETBLOCKHASH, '1.0'), 200, post(a, 'Connection: Keep-Alive\r\n', GETBLOCKHASH, '1.0')],
  'HTTP/1.0 REST': () => [get(REST, '1.0')],
  'HTTP/1.0 REST block (a streamed body)': () => [get(`/rest/block/${GENESIS}.hex`, '1.0')],
  'HTTP/1.0 REST block with keep-alive': () => [get(`/rest/block/${GENESIS}.bin`, '1.0', 'Connection: keep-alive\r\n')],
  'HEAD on a REST block': () => [`HEAD /rest/block/${GENESIS}.hex HTTP/1.1\r\nHost: x\r\n\r\n`],
  'HTTP/1.0 not found, keep-alive': () => [get('/nothing', '1.0', 'Connection: keep-alive\r\n')],
  'HTTP/1.0 without credentials': () => [`POST / HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}`],
  'HTTP/1.0 with Expect: 100-continue (ignored)': (a) => [post(a, 'Expect: 100-continue\r\n', GETBLOCKHASH, '1.0')],
  // libevent's error pages keep their HTTP/1.1 form for an HTTP/1.0 client; Core's replies do not.
  'HTTP/1.0 bad Content-Length': () => ['POST / HTTP/1.0\r\nContent-Length: abc\r\n\r\n'],
  'HTTP/1.0 unknown method': () => ['FOO / HTTP/1.0\r\n\r\n'],
  'HTTP/1.0 OPTIONS': () => ['OPTIONS / HTTP/1.0\r\n\r\n'],
  'HTTP/1.0 Content-Length over 32 MiB': () => [`POST / HTTP/1.0\r\nContent-Length: ${0x02000001}\r\n\r\n`],
  'HTTP/1.0 URI that is no path': () => ['GET x HTTP/1.0\r\n\r\n'],
  'HTTP/1.0 head over 8 KiB': () => [`GET ${REST} HTTP/1.0\r\nX: ${'a'.repeat(8200)}\r\n\r\n`],
  'OPTIONS with Connection: close': () => ['OPTIONS / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
  'HTTP/0.9 version': () => [get(REST, '0.9')],
  'HTTP/1.2 version (echoed)': () => [get(REST, '1.2')],
  'HTTP/1.1 without Host': (a) => [`POST / HTTP/1.1\r\nAuthorization: ${a}\r\nContent-Length: ${GETBLOCKHASH.length}\r\n\r\n${GETBLOCKHASH}`],
  'HTTP/1.1 Connection: close': (a) => [post(a, 'Connection: close\r\n')],
  'malformed request line: one word': () => ['GARBAGE\r\n\r\n'],
  'malformed request line: no version': () => ['GET /\r\n\r\n'],
  'malformed request line: text after the version': () => ['GET / HTTP/1.1 extra\r\nHost: x\r\n\r\n'],
  'malformed request line: not HTTP': () => ['GET / FOO/1.1\r\nHost: x\r\n\r\n'],
  'malformed request line: HTTP/2.0': () => ['GET / HTTP/2.0\r\nHost: x\r\n\r\n'],
  'empty lines before the request line': () => [`\r\n\r\n${get(REST)}`],
  'header line without a colon': () => [`GET ${REST} HTTP/1.1\r\nHost: x\r\nBogus\r\n\r\n`],
  'header continuation line': () => [`GET ${REST} HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n`],
  'bare LF line ends': () => [`GET ${REST} HTTP/1.1\nHost: x\n\n`],
  'absolute URI': () => [`GET http://x${REST} HTTP/1.1\r\nHost: x\r\n\r\n`],
  'URI that is no path, then a GET on the same connection': () => [`GET x HTTP/1.1\r\nHost: x\r\n\r\n${get(REST)}`],
  'URI *': () => ['GET * HTTP/1.1\r\nHost: x\r\n\r\n'],
  'ftp URI': () => ['GET ftp://x/ HTTP/1.1\r\nHost: x\r\n\r\n'],
  'spaces around the URI': () => ['GET  /  HTTP/1.1\r\nHost: x\r\n\r\n'],
  'a space inside the path': () => [`GET ${REST} x HTTP/1.1\r\nHost: x\r\n\r\n`],
  'Content-Length: abc': (a) => [postRaw(a, 'Content-Length: abc\r\n', GETBLOCKHASH)],
  'Content-Length: -5': (a) => [postRaw(a, 'Content-Length: -5\r\n', GETBLOCKHASH)],
  'Content-Length: 0x2d': (a) => [postRaw(a, 'Content-Length: 0x2d\r\n', GETBLOCKHASH)],
  'Content-Length: +45': (a) => [postRaw(a, `Content-Length: +${GETBLOCKHASH.length}\r\n`, GETBLOCKHASH)],
  'Content-Length twice': (a) => [postRaw(a, `Content-Length: ${GETBLOCKHASH.length}\r\nContent-Length: ${GETBLOCKHASH.length}\r\n`, GETBLOCKHASH)],
  'Content-Length shorter than the body': (a) => [postRaw(a, 'Content-Length: 10\r\n', GETBLOCKHASH)],
  'request head over 8 KiB': () => [`GET ${REST} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(8200)}\r\n\r\n`],
  // The request line and header lines, line ends left out, may total 8192 bytes (libevent's count).
  'request head lines totalling 8192 bytes': () => [`GET ${REST} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(8192 - 56)}\r\n\r\n`],
  'request head lines totalling 8193 bytes': () => [`GET ${REST} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(8193 - 56)}\r\n\r\n`],
  'request head lines totalling 8193 bytes, in two writes': () => [`GET ${REST} HTTP/1.1\r\nHost: x\r\n`, 100, `X-Big: ${'a'.repeat(8193 - 56)}\r\n\r\n`],
  'sixty headers': () => [`GET ${REST} HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 60 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`],
  'Content-Length over 32 MiB': (a) => [postRaw(a, `Content-Length: ${0x02000001}\r\n`, '')],
  'chunked body': (a) => [postRaw(a, 'Transfer-Encoding: chunked\r\n', `${GETBLOCKHASH.length.toString(16)}\r\n${GETBLOCKHASH}\r\n0\r\n\r\n`)],
  'chunked body in two chunks and two writes': (a) => [
    postRaw(a, 'Transfer-Encoding: chunked\r\n', `10\r\n${GETBLOCKHASH.slice(0, 16)}\r\n`),
    100,
    `${(GETBLOCKHASH.length - 16).toString(16)}\r\n${GETBLOCKHASH.slice(16)}\r\n0\r\n\r\n`,
  ],
  'chunked body with a trailer, then another call': (a) => [postRaw(a, 'Transfer-Encoding: chunked\r\n', `${GETBLOCKHASH.length.toString(16)}\r\n${GETBLOCKHASH}\r\n0\r\nX-T: 1\r\n\r\n`) + post(a)],
  'chunked body with a chunk extension': (a) => [postRaw(a, 'Transfer-Encoding: chunked\r\n', `${GETBLOCKHASH.length.toString(16)};a=b\r\n${GETBLOCKHASH}\r\n0\r\n\r\n`)],
  'chunked body, text after a space in a size line': (a) => [postRaw(a, 'Transfer-Encoding: chunked\r\n', `${GETBLOCKHASH.length.toString(16)} x\r\n${GETBLOCKHASH}\r\n0\r\n\r\n`)],
  'Transfer-Encoding: Chunked': (a) => [postRaw(a, 'Transfer-Encoding: Chunked\r\n', `${GETBLOCKHASH.length.toString(16)}\r\n${GETBLOCKHASH}\r\n0\r\n\r\n`)],
  'Transfer-Encoding: gzip, chunked': (a) => [postRaw(a, 'Transfer-Encoding: gzip, chunked\r\n', `${GETBLOCKHASH.length.toString(16)}\r\n${GETBLOCKHASH}\r\n0\r\n\r\n`)],
  'Transfer-Encoding: gzip without a body': (a) => [postRaw(a, 'Transfer-Encoding: gzip\r\n', '')],
  'Transfer-Encoding with Content-Length': (a) => [postRaw(a, `Transfer-Encoding: chunked\r\nContent-Length: 3\r\n`, `${GETBLOCKHASH.length.toString(16)}\r\n${GETBLOCKHASH}\r\n0\r\n\r\n`)],
  'Transfer-Encoding twice': (a) => [postRaw(a, 'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n', `${GETBLOCKHASH.length.toString(16)}\r\n${GETBLOCKHASH}\r\n0\r\n\r\n`)],
  'HTTP/1.0 chunked body': (a) => [`POST / HTTP/1.0\r\nAuthorization: ${a}\r\nTransfer-Encoding: chunked\r\n\r\n${GETBLOCKHASH.length.toString(16)}\r\n${GETBLOCKHASH}\r\n0\r\n\r\n`],
  'chunked body with a bad chunk size': (a) => [postRaw(a, 'Transfer-Encoding: chunked\r\n', `zz\r\n${GETBLOCKHASH}\r\n0\r\n\r\n`)],
  'Expect: 100-continue, body after the interim reply': (a) => [postRaw(a, `Expect: 100-continue\r\nContent-Length: ${GETBLOCKHASH.length}\r\n`, ''), 300, GETBLOCKHASH],
  'Expect: something else': (a) => [post(a, 'Expect: something\r\n')],
  'Expect: 100-continue with the body in the same write': (a) => [post(a, 'Expect: 100-continue\r\n')],
  'Expect: 100-continue without a body': () => [`GET ${REST} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n\r\n`],
  'Expect: 100-continue with Content-Length: 0': (a) => [postRaw(a, 'Expect: 100-continue\r\nContent-Length: 0\r\n', '')],
  'HEAD on REST': () => [`HEAD ${REST} HTTP/1.1\r\nHost: x\r\n\r\n`],
  'HEAD on /': () => ['HEAD / HTTP/1.1\r\nHost: x\r\n\r\n'],
  'OPTIONS /': () => ['OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n'],
  'OPTIONS *': () => ['OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'],
  PATCH: () => ['PATCH / HTTP/1.1\r\nHost: x\r\n\r\n'],
  TRACE: () => ['TRACE / HTTP/1.1\r\nHost: x\r\n\r\n'],
  'CONNECT, then a GET on the same connection': () => ['CONNECT x:80 HTTP/1.1\r\nHost: x\r\n\r\n', 200, get(REST)],
  'unknown method': () => ['FOO / HTTP/1.1\r\nHost: x\r\n\r\n'],
  'lower-case method': () => [`get ${REST} HTTP/1.1\r\nHost: x\r\n\r\n`],
  PUT: () => ['PUT / HTTP/1.1\r\nHost: x\r\n\r\n'],
  DELETE: () => ['DELETE / HTTP/1.1\r\nHost: x\r\n\r\n'],
  'two pipelined calls in one write': (a) => [post(a) + post(a)],
  'ten pipelined calls in one write': (a) => [Array.from({ length: 10 }, () => post(a)).join('')],
  'HTTP/1.0 keep-alive, pipelined, then HTTP/1.0 without': (a) => [post(a, 'Connection: keep-alive\r\n', GETBLOCKHASH, '1.0') + post(a, '', GETBLOCKHASH, '1.0') + post(a, '', GETBLOCKHASH, '1.0')],
  'a call, then a malformed request, pipelined': (a) => [`${post(a)}GARBAGE\r\n\r\n`],
  'a call asking for close, then another, pipelined': (a) => [post(a, 'Connection: close\r\n') + post(a)],
  'a wrong password, then a call, pipelined': (a) => [post('Basic eDp5') + post(a)],
  'GET with a body, then another GET, pipelined': () => [`GET ${REST} HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello${get(REST)}`],
  'request line split between writes': (a) => ['POST / HT', 100, post(a).slice(9)],
  'body split between writes': (a) => [post(a).slice(0, -10), 200, post(a).slice(-10)],
  'pipelined REST, JSON-RPC and REST in one write': (a) => [get(REST) + post(a) + get(REST)],
  'a long poll pipelined before a call': (a) => [post(a, '', '{"method":"waitfornewblock","params":[300],"id":1}') + post(a)],
};

const SLOW_QUIET_MS = 1200;
// A wrong password's 401 comes after Core's 250 ms deterrent sleep: with every case at once on a
// loaded machine it may take longer than the default quiet time to arrive.
const slow = new Set(['a long poll pipelined before a call', 'a wrong password, then a call, pipelined']);

async function both(pair: Pair, parts: Case, opts: { quietMs?: number; minMs?: number } = {}): Promise<{ tsbtcd: RawExchange; bitcoind: RawExchange }> {
  const [tsbtcd, bitcoind] = await Promise.all([exchange(pair.tsbtcd.port, parts(pair.tsbtcd.auth), opts), exchange(pair.bitcoind.port, parts(pair.bitcoind.auth), opts)]);
  return { tsbtcd, bitcoind };
}

describe('HTTP layer compared with bitcoind', { skip: 'missing' in reference ? reference.missing : false }, () => {
  let pair: Pair;
  /** Also Core's smallest bound (one thread, a queue of one), on one front-end: the bound is per front-end. */
  let shortTimeout: Pair;
  before(async () => {
    [pair, shortTimeout] = await Promise.all([startPair([]), startPair(['-rpcservertimeout=2', '-rpcthreads=1', '-rpcworkqueue=1'], ['-rpcfrontends=1'])]);
  });
  after(async () => {
    await Promise.all([pair?.stop(), shortTimeout?.stop()]);
  });

  test('every case gets bitcoind’s reply and connection outcome', async () => {
    const names = Object.keys(CASES);
    const results = await Promise.all(names.map((name) => both(pair, CASES[name]!, slow.has(name) ? { quietMs: SLOW_QUIET_MS } : {})));
    const differences = names.flatMap((name, i) => {
      const { tsbtcd, bitcoind } = results[i]!;
      if (tsbtcd.replies === bitcoind.replies && tsbtcd.connection === bitcoind.connection) return [];
      return [`${name}\n--- bitcoind (${bitcoind.connection})\n${bitcoind.replies}\n--- tsbtcd (${tsbtcd.connection})\n${tsbtcd.replies}`];
    });
    assert.deepEqual(differences, []);
  });

  test('a call the coordinator answers, pipelined before another, is answered first and the connection stays', async () => {
    const mine = (a: string) => [post(a, '', '{"method":"generatetodescriptor","params":[1,"raw(51)"],"id":1}') + post(a, '', '{"method":"getblockcount","id":2}')];
    const { tsbtcd, bitcoind } = await both(pair, mine, { quietMs: SLOW_QUIET_MS });
    const hashless = (text: string) => text.replace(/[0-9a-f]{64}/g, '<hash>');
    assert.equal(tsbtcd.connection, bitcoind.connection);
    assert.equal(hashless(tsbtcd.replies), hashless(bitcoind.replies));
    assert.match(tsbtcd.replies, /\\"result\\":1,/);
  });

  test('an idle keep-alive connection outlives 15 s under the default -rpcservertimeout (uWS alone closes it after 10 s)', async () => {
    const { tsbtcd, bitcoind } = await both(pair, () => [get(REST), 15_000, get(REST)]);
    assert.equal(tsbtcd.connection, 'open');
    assert.deepEqual(tsbtcd, bitcoind);
  });

  test('-rpcservertimeout=2 closes an idle connection after 2 s', async () => {
    const { tsbtcd, bitcoind } = await both(shortTimeout, () => [get(REST)], { minMs: 3500 });
    assert.equal(bitcoind.connection, 'closed');
    assert.deepEqual(tsbtcd, bitcoind);
  });

  test('-rpcservertimeout=2 leaves a connection whose call runs longer (a 4 s long poll) to its answer', async () => {
    const poll = (a: string) => [post(a, '', '{"method":"waitfornewblock","params":[4000],"id":1}')];
    const { tsbtcd, bitcoind } = await both(shortTimeout, poll, { minMs: 4600 });
    assert.match(bitcoind.replies, /200 OK/);
    assert.equal(tsbtcd.replies, bitcoind.replies);
  });

  test('-rpcthreads=1 -rpcworkqueue=1: a third long poll at once gets Core’s 503 "Work queue depth exceeded", ', async () => {
    const poll = (a: string) => [post(a, '', '{"method":"waitfornewblock","params":[1500],"id":1}')];
    const staggered = (target: Target) =>
      Promise.all([0, 1, 2, 3].map((i) => new Promise((r) => setTimeout(r, i * 150)).then(() => exchange(target.port, poll(target.auth), { minMs: 3600 }))));
    const [tsbtcd, bitcoind] = await Promise.all([staggered(shortTimeout.tsbtcd), staggered(shortTimeout.bitcoind)]);
    assert.match(bitcoind[3]!.replies, /503 Service Unavailable[^]*Work queue depth exceeded/);
    // Whether each connection is still open depends on when -rpcservertimeout=2 met it.
    assert.deepEqual(tsbtcd.map((e) => e.replies), bitcoind.map((e) => e.replies));
  });
});
