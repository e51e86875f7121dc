/**
 * The front-end's HTTP pipeline on a real uWS server in this process, for what a
 * loopback-only machine cannot show through the daemon: clients outside -rpcallowip get
 * 403 (the daemon always allows 127.0.0.0/8 and ::1), -rpcallowip parsing, wallet-name
 * decoding, the 413 body limit, and REST routing when -rest is on.
 */
import { DEFAULT_MEMPOOL_POLICY } from '../../src/mempool/index.js';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import * as net from 'node:net';
import { after, before, test } from 'node:test';
import type { us_listen_socket } from '@trufflesuite/uws-js-unofficial';
import { LOOPBACK_SUBNETS, RestRouter, allowsEveryPeer, canonicalAddress, createApp, type AppDeps, formatAddress, loadUws, parseSubnet, subnetMatches, urlDecode, type FrontendState } from '../../src/http/index.js';
import type { FrontendSettings } from '../../src/ipc/index.js';
import { freePort, httpRequest } from './daemon-harness.js';

const uws = loadUws(30);
/** User `u` with password `pw`, stored as Core stores it: HMAC-SHA256 keyed with the salt. */
const PASSWORD = 'pw';
const CREDENTIALS = [{ user: 'u', salt: 's', hash: createHmac('sha256', 's').update(PASSWORD).digest('hex') }];
const sockets: us_listen_socket[] = [];
const wallets: (string | undefined)[] = [];

async function serve(overrides: Partial<FrontendSettings>, deps: Partial<Pick<AppDeps, 'log' | 'logsDebug'>> = {}): Promise<number> {
  const port = await freePort();
  const settings: FrontendSettings = {
    index: 0,
    binds: [{ host: '127.0.0.1', port }],
    allowSubnets: LOOPBACK_SUBNETS,
    credentials: CREDENTIALS,
    whitelists: [],
    whitelistDefault: false,
    rest: false,
    serverTimeout: 30,
    requestBound: null,
    warmup: null,
    tip: null,
    debugCategories: [],
    netDir: '',
    chain: 'regtest',
    chainArgs: {},
    nodeState: { ibd: false, mocktime: 0, warnings: [] },
    txindex: false,
    deprecatedRpc: [],
    pruneTarget: 0,
    mempoolPolicy: DEFAULT_MEMPOOL_POLICY,
    coinsCacheBytes: { db: 8 << 20, tip: 440 << 20 },
    sigBackend: 'native',
    ...overrides,
  };
  const state: FrontendState = { warmup: null, shuttingDown: false, inflight: 0 };
  const rest = new RestRouter();
  rest.register('/rest/chaininfo', (req) => ({ status: 200, contentType: 'application/json', body: `{"rest":"${req.rest}"}\n` }));
  const app = createApp(uws, {
    settings,
    state,
    rest,
    log: deps.log ?? (() => undefined),
    logsDebug: deps.logsDebug ?? (() => false),
    call: async (method, _params, wallet) => {
      wallets.push(wallet);
      return { result: JSON.stringify(method) };
    },
  });
  await new Promise<void>((resolve, reject) =>
    app.listen('127.0.0.1', port, (s) => {
      if (!s) return reject(new Error('listen failed'));
      sockets.push(s);
      resolve();
    }),
  );
  return port;
}


let open: number;
let closed: number;
let withRest: number;
before(async () => {
  open = await serve({});
  closed = await serve({ allowSubnets: [parseSubnet('10.0.0.0/8')!] });
  withRest = await serve({ rest: true });
});
after(() => {
  for (const s of sockets) uws.us_listen_socket_close(s);
});

test('a client outside the allowed networks gets 403 with an empty body, before anything else', async () => {
  const r = await httpRequest(closed, { body: '{"method":"uptime","id":1}', auth: `u:${PASSWORD}` });
  assert.equal(r.status, 403);
  assert.equal(r.body, '');
  assert.equal((await httpRequest(closed, { method: 'GET' })).status, 403);
  assert.equal((await httpRequest(open, { body: '{"method":"uptime","id":1}', auth: `u:${PASSWORD}` })).status, 200);
});

test('-rpcallowip forms: address, CIDR, netmask, IPv6, IPv4-mapped clients', () => {
  const v4 = (s: string) => s.split('.').map(Number);
  assert.ok(subnetMatches(parseSubnet('1.2.3.4')!, v4('1.2.3.4')));
  assert.ok(!subnetMatches(parseSubnet('1.2.3.4')!, v4('1.2.3.5')));
  assert.ok(subnetMatches(parseSubnet('1.2.3.0/24')!, v4('1.2.3.77')));
  assert.ok(subnetMatches(parseSubnet('1.2.3.4/255.255.0.0')!, v4('1.2.200.1')));
  assert.ok(subnetMatches(parseSubnet('0.0.0.0/0')!, v4('8.8.8.8')));
  assert.ok(!subnetMatches(parseSubnet('::/0')!, v4('8.8.8.8')), 'IPv6 networks do not match IPv4 clients');
  const mapped = canonicalAddress([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1]);
  assert.deepEqual(mapped, [127, 0, 0, 1]);
  assert.ok(LOOPBACK_SUBNETS.some((s) => subnetMatches(s, mapped)));
  for (const bad of ['not-an-ip', '1.2.3.4/33', '1.2.3.4/255.0.255.0', 'localhost', '*', '1.2.3.4/']) assert.equal(parseSubnet(bad), undefined, bad);
  assert.equal(formatAddress([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), '[::1]');
  assert.equal(formatAddress([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]), '[2001:db8::1:0:0:1]');
});

test('every peer allowed only with a /0 for each family the binds can see', () => {
  const v4all = parseSubnet('0.0.0.0/0')!;
  const v6all = parseSubnet('::/0')!;
  assert.ok(allowsEveryPeer([...LOOPBACK_SUBNETS, v4all], ['0.0.0.0', '127.0.0.1']), 'IPv4 binds see only IPv4 peers');
  assert.ok(!allowsEveryPeer([...LOOPBACK_SUBNETS, v4all], ['0.0.0.0', '::']), 'an IPv6 bind sees IPv6 peers');
  assert.ok(allowsEveryPeer([v4all, v6all], ['::']));
  assert.ok(!allowsEveryPeer([v6all], ['::']), 'IPv4-mapped peers fold to IPv4');
  assert.ok(!allowsEveryPeer([...LOOPBACK_SUBNETS, parseSubnet('0.0.0.0/1')!, parseSubnet('128.0.0.0/1')!], ['127.0.0.1']), 'only a /0 counts');
  assert.ok(!allowsEveryPeer(LOOPBACK_SUBNETS, ['127.0.0.1']), 'the default admits loopback only: each peer is checked');
  assert.ok(!allowsEveryPeer([v4all], ['localhost']), 'a bind name may resolve to IPv6');
});

test('with every peer allowed, requests are served and the debug line still names the peer', async () => {
  const logged: string[] = [];
  const port = await serve({ allowSubnets: [...LOOPBACK_SUBNETS, parseSubnet('0.0.0.0/0')!] }, { log: (_l, _c, msg) => logged.push(msg), logsDebug: () => true });
  const r = await httpRequest(port, { body: '{"method":"uptime","id":1}', auth: `u:${PASSWORD}` });
  assert.equal(r.status, 200);
  assert.ok(logged.some((line) => line === 'Received a POST request for / from 127.0.0.1'), logged.join('\n'));
  // A wrong password is logged with the peer too (read while the request's callback runs).
  const denied = await httpRequest(port, { body: '{"method":"uptime","id":1}', auth: 'u:wrong' });
  assert.equal(denied.status, 401);
  assert.ok(logged.some((line) => line === 'ThreadRPCServer incorrect password attempt from 127.0.0.1'), logged.join('\n'));
});

test('wallet names: everything after /wallet/, %XX decoded, + kept', async () => {
  wallets.length = 0;
  for (const p of ['/wallet/w%31', '/wallet/a+b', '/wallet/', '/wallet/w1/', '/']) {
    assert.equal((await httpRequest(open, { path: p, body: '{"method":"uptime","id":1}', auth: `u:${PASSWORD}` })).status, 200, p);
  }
  assert.deepEqual(wallets, ['w1', 'a+b', '', 'w1/', undefined]);
  assert.equal(urlDecode('%zz%4'), '%zz%4');
});

test('a body over 32 MiB gets libevent\'s 413 page without being read', async () => {
  const r = await new Promise<string>((resolve, reject) => {
    const s = net.connect(open, '127.0.0.1', () => s.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${0x02000001}\r\n\r\n`));
    let out = '';
    s.on('data', (d) => (out += d.toString()));
    s.on('close', () => resolve(out));
    s.on('error', reject);
  });
  assert.match(r, /^HTTP\/1\.1 413 Request Entity Too Large\r\n/);
  assert.match(r, /<TITLE>413 Request Entity Too Large<\/TITLE>/);
});

test('REST: unknown endpoints 404 with an empty body; registered prefixes reach their handler', async () => {
  const unknown = await httpRequest(withRest, { method: 'GET', path: '/rest/nosuch' });
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body, '');
  const known = await httpRequest(withRest, { method: 'GET', path: '/rest/chaininfo.json' });
  assert.equal(known.status, 200);
  assert.equal(known.body, '{"rest":".json"}\n');
  assert.equal((await httpRequest(open, { method: 'GET', path: '/rest/chaininfo.json' })).status, 404, 'without -rest');
});
