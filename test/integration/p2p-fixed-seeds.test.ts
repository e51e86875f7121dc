/**
 * Fixed seeds and -signetseednode in a running node, as bitcoind v31.0 does them. The seeds
 * are public internet addresses: every node here runs with -networkactive=0 (Core adds the
 * seeds all the same, and dials nothing) and a -proxy to a local SOCKS5 server that records
 * and refuses every request, so not one connection can leave the machine; each test asserts
 * the proxy saw nothing it should not have.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { rmSync } from 'node:fs';
import { selectParams } from '../../src/consensus/index.js';
import { addressNetwork, bucketPosition, decodeFixedSeeds, formatAddress, internalAddress, networkName, newBucket, readPeersDat } from '../../src/net/index.js';
import { join } from 'node:path';
import { Daemon, freePort, runToExit, sleep, tempDir, waitFor } from './daemon-harness.js';
import { Socks5Server } from './socks5-server.js';

let proxy: Socks5Server;
/** Started first: the 60-second fallback is waited for while the other tests run. */
let patient: Daemon;
const started: Daemon[] = [];

async function mainNode(args: readonly string[]): Promise<Daemon> {
  const node = await Daemon.start({ chain: 'main', automaticOutbound: true, args: ['-networkactive=0', `-proxy=${proxy.address}`, '-debug=net', ...args] });
  started.push(node);
  return node;
}

async function logLine(node: Daemon, text: string, timeoutMs = 15_000): Promise<void> {
  await waitFor(`"${text}" in debug.log`, () => (node.debugLog().includes(text) ? true : undefined), timeoutMs);
}

before(async () => {
  proxy = await Socks5Server.start({ refuse: true });
  // DNS seeding on (the default): through the proxy it would be addr-fetch connections, and
  // with the network off Core waits for it to come back before asking any seed.
  patient = await mainNode([]);
});

after(async () => {
  for (const node of started) await node.cleanup();
  proxy?.close();
});

test('-dnsseed=0 and an empty address manager: the seeds of the reachable networks are added at once', async () => {
  const node = await mainNode(['-dnsseed=0']);
  await logLine(node, 'Added 1536 fixed seeds from reachable networks.');
  const log = node.debugLog();
  assert.match(log, /Adding fixed seeds as -dnsseed=0 \(or IPv4\/IPv6 connections are disabled via -onlynet\) and neither -addnode nor -seednode are provided\n/);
  // Every seed is logged as Core logs it, the unreachable ones (I2P, CJDNS) too.
  assert.equal(log.match(/\[net\] Added hardcoded seed: /g)?.length, 2059);
  assert.match(log, /Added hardcoded seed: 2\.121\.116\.198:8333\n/);
  // -proxy makes onion reachable besides IPv4 and IPv6 (bitcoind adds the same 1536). Some land
  // on taken slots, more for onion, whose network groups are few (bitcoind kept 483/403/265).
  const info = await node.call('getaddrmaninfo');
  for (const net of ['ipv4', 'ipv6', 'onion']) assert.ok(info[net].total > 200 && info[net].total <= 512, `${net}: ${JSON.stringify(info[net])}`);
  assert.equal(info.i2p.total, 0);
  assert.equal(info.cjdns.total, 0);
  const addresses = await node.call<any[]>('getnodeaddresses', [0]);
  assert.equal(addresses.length, info.all_networks.total);
  const week = 7 * 24 * 3600;
  const now = Math.floor(Date.now() / 1000);
  for (const a of addresses) {
    assert.equal(a.services, 9);
    assert.ok(a.time <= now - week + 5 && a.time > now - 2 * week - 5, JSON.stringify(a));
  }
  // Every one is a seed (which ones a random-keyed table keeps varies, as in bitcoind).
  const seeds = new Set(decodeFixedSeeds(selectParams('main').fixedSeeds).map((seed) => `${formatAddress(seed)} ${seed.port}`));
  for (const a of addresses) assert.ok(seeds.has(`${a.address} ${a.port}`), JSON.stringify(a));
  // Once a run: a second look a while later adds nothing.
  await sleep(1500);
  assert.equal(node.debugLog().match(/fixed seeds from reachable networks/g)?.length, 1);
  // peers.dat keeps them with Core's source for fixed seeds (an internal name); the restart adds none.
  await node.stop();
  const again = await node.restart({ args: ['-networkactive=0', `-proxy=${proxy.address}`, '-dnsseed=0', '-debug=net'], automaticOutbound: true });
  started.push(again);
  await sleep(1500);
  assert.equal((await again.call<any[]>('getnodeaddresses', [0])).length, addresses.length);
  assert.equal(again.debugLog().match(/Adding fixed seeds/g)?.length, 1);
  assert.deepEqual(proxy.connects, []);
});

test('-onlynet=onion: no DNS seeding (parameter interaction), only onion seeds, networks reported as limited', async () => {
  const node = await mainNode(['-onlynet=onion']);
  await logLine(node, 'Added 512 fixed seeds from reachable networks.');
  assert.match(node.debugLog(), /parameter interaction: -onlynet excludes IPv4 and IPv6 -> setting -dnsseed=0\n/);
  const info = await node.call('getaddrmaninfo');
  assert.equal(info.ipv4.total, 0);
  assert.equal(info.ipv6.total, 0);
  // getrawaddrman shows where each one sits: new table only, every one an onion seed heard from
  // Core's internal "fixedseeds" source.
  const raw = await node.call('getrawaddrman');
  assert.deepEqual(raw.tried, {});
  const entries = Object.entries(raw.new as Record<string, any>);
  assert.equal(entries.length, info.onion.total);
  const fixedSeedsSource = formatAddress(internalAddress('fixedseeds'));
  const onionSeeds = decodeFixedSeeds(selectParams('main').fixedSeeds).filter((seed) => networkName(addressNetwork(seed)) === 'onion');
  assert.equal(onionSeeds.length, 512);
  const seedsByName = new Map(onionSeeds.map((seed) => [`${formatAddress(seed)} ${seed.port}`, seed]));
  for (const [, e] of entries) {
    assert.deepEqual([e.network, e.source, e.source_network, e.services], ['onion', fixedSeedsSource, 'internal', 9]);
    assert.ok(seedsByName.has(`${e.address} ${e.port}`), JSON.stringify(e));
  }
  const networks = (await node.call('getnetworkinfo')).networks as any[];
  assert.deepEqual(
    networks.map((n) => [n.name, n.reachable, n.limited]),
    [['ipv4', false, true], ['ipv6', false, true], ['onion', true, false], ['i2p', false, true], ['cjdns', false, true]],
  );
  // How many fit depends on the table's random key (16 onion groups share at most 16 buckets),
  // so the count is checked against the key itself: peers.dat keeps it. Each seed has one slot
  // under that key; the first to arrive takes it and the others are dropped, so the table holds
  // one seed per distinct slot, each where the key puts it.
  await node.stop();
  const key = readPeersDat(join(node.datadir, 'peers.dat'), selectParams('main').messageStart).key;
  const source = internalAddress('fixedseeds');
  const slotOf = (seed: (typeof onionSeeds)[number]): string => {
    const bucket = newBucket(key, seed, source);
    return `${bucket}/${bucketPosition(key, true, bucket, seed)}`;
  };
  assert.equal(new Set(onionSeeds.map(slotOf)).size, entries.length);
  for (const [slot, e] of entries) assert.equal(slotOf(seedsByName.get(`${e.address} ${e.port}`)!), slot, JSON.stringify(e));
  assert.deepEqual(proxy.connects, []);
});

test('an explicit -dnsseed=1 with -onlynet ruling out IPv4 and IPv6 stops start-up', async () => {
  const dir = tempDir();
  try {
    const r = await runToExit([`-datadir=${dir}`, `-rpcport=${await freePort()}`, '-listen=0', '-networkactive=0', `-proxy=${proxy.address}`, '-onlynet=onion', '-dnsseed=1'], 60_000);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: Incompatible options: -dnsseed=1 was explicitly specified, but -onlynet forbids connections to IPv4/IPv6\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('-fixedseeds=0: "Fixed seeds are disabled" and nothing added', async () => {
  const node = await mainNode(['-dnsseed=0', '-fixedseeds=0']);
  await logLine(node, 'Fixed seeds are disabled');
  await sleep(1500);
  assert.equal((await node.call('getaddrmaninfo')).all_networks.total, 0);
  assert.doesNotMatch(node.debugLog(), /Adding fixed seeds/);
});

test('-connect: no automatic connections, so no fixed seeds', async () => {
  const node = await Daemon.start({ chain: 'main', args: ['-networkactive=0', `-proxy=${proxy.address}`, '-dnsseed=0', '-connect=0'] });
  started.push(node);
  await sleep(1500);
  assert.equal((await node.call('getaddrmaninfo')).all_networks.total, 0);
  assert.doesNotMatch(node.debugLog(), /fixed seeds|anchors will be tried/);
});

test('-signetseednode replaces the signet\'s seeds: asked through the proxy (addr-fetch), the defaults never', async () => {
  const node = await Daemon.start({ chain: 'signet', automaticOutbound: true, args: [`-proxy=${proxy.address}`, '-signetseednode=seed.signet.test:38444', '-signetseednode=other.signet.test', '-debug=net'] });
  started.push(node);
  await waitFor('both seed nodes at the proxy', () => (proxy.connects.length >= 2 ? true : undefined));
  assert.deepEqual(
    proxy.connects.map((c) => `${c.host}:${c.port}`).sort(),
    ['other.signet.test:38333', 'seed.signet.test:38444'],
  );
  await node.stop();
  proxy.connects.length = 0;
  // A custom signet: no fixed seeds, and its seeds are those given.
  const custom = await Daemon.start({ chain: 'signet', automaticOutbound: true, args: ['-networkactive=0', `-proxy=${proxy.address}`, '-signetchallenge=51', '-dnsseed=0', '-debug=net'] });
  started.push(custom);
  await logLine(custom, 'Added 0 fixed seeds from reachable networks.');
  assert.deepEqual(proxy.connects, []);
});

test('60 seconds without addresses from DNS seeds, -seednode or -addnode: the fixed seeds are added', async () => {
  assert.match(patient.debugLog(), /Waiting for network to be reactivated before querying DNS seeds\.\n/);
  assert.doesNotMatch(patient.debugLog(), /Adding fixed seeds/);
  await logLine(patient, 'Adding fixed seeds as 60 seconds have passed and addrman is empty for at least one reachable network', 90_000);
  await logLine(patient, 'Added 1536 fixed seeds from reachable networks.');
  assert.ok((await patient.call('getaddrmaninfo')).all_networks.total > 1000);
  assert.deepEqual(proxy.connects, []);
});
