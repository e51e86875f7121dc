/**
 * The address manager (src/net/addrman.ts) and peers.dat (src/net/addrman-file.ts) against
 * Core v31.0: the network groups and bucket numbers of Core's netbase and addrman unit
 * tests, its deterministic addrman scenarios (collisions, test-before-evict, GetAddr's 23%,
 * multiplicity) replayed with Core's deterministic random context, IsTerrible's rules, the
 * file format's failures with Core's reasons; and, with the reference bitcoind, a peers.dat
 * written by bitcoind read into the same tables, and one written by us loaded by bitcoind,
 * whose deterministic addrman then answers getnodeaddresses in the order ours does.
 * The bitcoind tests skip with one line when there is no reference bitcoind.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  ADDRESS_TIME_INIT,
  AddrMan,
  AddrManVersionError,
  BIP155_NETWORK,
  addressNetClass,
  bucketPosition,
  decodePeersDat,
  encodePeersDat,
  FastRandomContext,
  formatAddress,
  formatAddressPort,
  getChance,
  internalAddress,
  isRoutableAddress,
  isTerrible,
  loadAddrman,
  NET_CJDNS,
  NET_I2P,
  NET_IPV4,
  NET_IPV6,
  NET_ONION,
  netGroup,
  networkName,
  newBucket,
  NO_SOURCE,
  parseAddress,
  PeersDatError,
  readPeersDat,
  triedBucket,
  writePeersDat,
  type NetAddress,
  type PeerAddress,
  type ServiceAddress,
} from '../../src/net/index.js';
import { concatBytes, fromHex, sha256d, toHex } from '../../src/primitives/index.js';
import { BitcoindProcess } from '../integration/bitcoind-process.js';
import { tempDir } from '../integration/daemon-harness.js';
import { referenceBitcoind } from '../support/bitcoind.js';

const REGTEST_MAGIC = fromHex('fabfb5da');
const NODE_NETWORK = 1n;
const NODE_WITNESS = 8n;
const NODE_NETWORK_LIMITED = 1n << 10n;
const NODE_P2P_V2 = 1n << 11n;

function ip(text: string): NetAddress {
  const a = parseAddress(text);
  assert.ok(a, `parses: ${text}`);
  return a;
}

function svc(text: string, port = 0): ServiceAddress {
  return { ...ip(text), port };
}

/** Core's CAddress(ResolveService(text, port), services): time TIME_INIT unless given. */
function caddr(text: string, port = 0, time = ADDRESS_TIME_INIT, services = 0n): PeerAddress {
  return { ...svc(text, port), time, services };
}

/** Core's (HashWriter{} << n).GetHash(), the keys of its bucket tests. */
const keyOf = (n: number) => sha256d(Uint8Array.of(n, 0, 0, 0));

/** A mock clock as Core's SetMockTime. */
function mockClock(start = 1_700_000_000) {
  const clock = { now: start, fn: () => clock.now };
  return clock;
}

/** An addrman as Core's unit tests make one: deterministic, consistency-checked 1 in 100 operations. */
function coreTestAddrman(now: () => number): AddrMan {
  return new AddrMan({ deterministic: true, consistencyCheckRatio: 100, now });
}

const addrPort = (s: { address: PeerAddress } | null) => (s ? formatAddressPort(s.address) : '[::]:0');

test('network groups: the /16 of IPv4 (also embedded in IPv6), /32 of IPv6, /36 of he.net, 4 bits of onion and I2P, internal names', () => {
  const group = (t: string) => Array.from(netGroup(ip(t)));
  assert.deepEqual(group('127.0.0.1'), [0]); // local: unroutable
  assert.deepEqual(group('10.0.0.1'), [0]); // RFC1918
  assert.deepEqual(group('169.254.1.1'), [0]); // RFC3927
  assert.deepEqual(Array.from(netGroup(NO_SOURCE)), [0]); // [::], invalid
  assert.deepEqual(group('1.2.3.4'), [NET_IPV4, 1, 2]);
  assert.deepEqual(group('::FFFF:0:102:304'), [NET_IPV4, 1, 2]); // RFC6145
  assert.deepEqual(group('64:FF9B::102:304'), [NET_IPV4, 1, 2]); // RFC6052
  assert.deepEqual(group('2002:102:304:9999:9999:9999:9999:9999'), [NET_IPV4, 1, 2]); // RFC3964 (6to4)
  assert.deepEqual(group('2001:0:9999:9999:9999:9999:FEFD:FCFB'), [NET_IPV4, 1, 2]); // RFC4380 (Teredo)
  assert.deepEqual(group('2001:470:abcd:9999:9999:9999:9999:9999'), [NET_IPV6, 32, 1, 4, 112, 175]); // he.net
  assert.deepEqual(group('2001:2001:9999:9999:9999:9999:9999:9999'), [NET_IPV6, 32, 1, 32, 1]);
  // Core's netbase test: SHA-256("baz.net") begins 12929400eb4607c4ac07.
  assert.deepEqual(Array.from(netGroup(internalAddress('baz.net'))), [6, 0x12, 0x92, 0x94, 0x00, 0xeb, 0x46, 0x07, 0xc4, 0xac, 0x07]);
  const onion = ip('pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion');
  assert.deepEqual(Array.from(netGroup(onion)), [NET_ONION, onion.address[0]! | 0x0f]);
  const i2p = ip('udhdrtrcetjm5sxzskjyr5ztpeszydbh4dpl3pl4utgqqw2v4jna.b32.i2p');
  assert.deepEqual(Array.from(netGroup(i2p)), [NET_I2P, i2p.address[0]! | 0x0f]);
  const cjdns: NetAddress = { network: BIP155_NETWORK.CJDNS, address: fromHex('fc000001000200030004000500060007') };
  assert.deepEqual(Array.from(netGroup(cjdns)), [NET_CJDNS, 0xfc, 0x0f]);
});

test('addresses: routability as v31 has it, text forms and parsing', () => {
  for (const t of ['1.2.3.4', '240.1.2.3', '3fff::1', '2001:4860::8888']) assert.ok(isRoutableAddress(ip(t)), t);
  for (const t of ['0.0.0.0', '255.255.255.255', '127.0.0.1', '10.1.1.1', '192.168.0.1', '172.16.0.1', '100.64.0.1', '169.254.0.1', '198.18.0.1', '192.0.2.1', '198.51.100.1', '203.0.113.1', '::', '::1', 'fe80::1', 'fc00::1', '2001:db8::1', '2001:10::1', '2001:20::1']) {
    assert.ok(!isRoutableAddress(ip(t)), t);
  }
  assert.equal(isRoutableAddress({ network: BIP155_NETWORK.CJDNS, address: fromHex('fd000001000200030004000500060007') }), false);
  assert.equal(formatAddress(ip('::ffff:1.2.3.4')), '1.2.3.4'); // mapped IPv4 is IPv4
  assert.equal(formatAddressPort(svc('2001:0db8:0:0:1:0:0:1', 8333)), '[2001:db8::1:0:0:1]:8333');
  assert.equal(formatAddress(ip('pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion')), 'pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion');
  assert.equal(formatAddressPort(svc('udhdrtrcetjm5sxzskjyr5ztpeszydbh4dpl3pl4utgqqw2v4jna.b32.i2p', 0)), 'udhdrtrcetjm5sxzskjyr5ztpeszydbh4dpl3pl4utgqqw2v4jna.b32.i2p:0');
  assert.equal(parseAddress('pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscrye.onion'), null); // bad checksum
  assert.equal(parseAddress('1.2.3.256'), null);
  assert.equal(networkName(addressNetClass(ip('2002:102:304::1'))), 'ipv4');
  assert.equal(networkName(addressNetClass(ip('10.0.0.1'))), 'not_publicly_routable');
});

test('bucket math: the numbers of Core\'s addrman tests (legacy grouping)', () => {
  const [key1, key2] = [keyOf(1), keyOf(2)];
  const a1 = svc('250.1.1.1', 8333);
  assert.equal(triedBucket(key1, a1), 40);
  assert.notEqual(triedBucket(key1, a1), triedBucket(key2, a1));
  assert.notEqual(triedBucket(key1, a1), triedBucket(key1, svc('250.1.1.1', 9999)));
  const sameGroup = new Set<number>();
  for (let i = 0; i < 255; i++) sameGroup.add(triedBucket(key1, svc(`250.1.1.${i}`)));
  assert.equal(sameGroup.size, 8); // one /16: at most 8 tried buckets
  const groups = new Set<number>();
  for (let j = 0; j < 255; j++) groups.add(triedBucket(key1, svc(`250.${j}.1.1`)));
  assert.equal(groups.size, 160);

  const n1 = ip('250.1.2.1');
  assert.equal(newBucket(key1, n1, n1), 786);
  assert.notEqual(newBucket(key1, n1, n1), newBucket(key2, n1, n1));
  const oneSource = new Set<number>();
  for (let i = 0; i < 255; i++) oneSource.add(newBucket(key1, ip(`250.1.1.${i}`), ip(`250.1.1.${i}`)));
  assert.equal(oneSource.size, 1);
  const fromOneGroup = new Set<number>();
  for (let j = 0; j < 4 * 255; j++) fromOneGroup.add(newBucket(key1, ip(`${250 + Math.floor(j / 255)}.${j % 256}.1.1`), ip('251.4.1.1')));
  assert.ok(fromOneGroup.size <= 64);
  const fromManyGroups = new Set<number>();
  for (let p = 0; p < 255; p++) fromManyGroups.add(newBucket(key1, ip('250.1.1.1'), ip(`250.${p}.1.1`)));
  assert.ok(fromManyGroups.size > 64);
  // Positions depend on the port and the table.
  const positions = new Set([bucketPosition(key1, true, 786, svc('250.1.2.1', 8333)), bucketPosition(key1, true, 786, svc('250.1.2.1', 9999)), bucketPosition(key1, false, 786, svc('250.1.2.1', 8333))]);
  assert.ok(positions.size >= 2);
});

test('FastRandomContext: the deterministic one is the zero-key ChaCha20 keystream (RFC 8439), read as Core\'s RandomMixin does', () => {
  const rng = FastRandomContext.deterministic();
  // RFC 8439 A.1 test vector 1: 76b8e0ada0f13d90 405d6ae55386bd28 ...
  assert.equal(rng.rand64(), 0x903df1a0ade0b876n);
  const bits = FastRandomContext.deterministic();
  // randbits takes the low bits of a 64-bit draw first, then the rest.
  assert.equal(bits.randbits(8), 0x76);
  assert.equal(bits.randbits(8), 0xb8);
  assert.equal(bits.randbits(0), 0);
  assert.equal(bits.randrange(1), 0);
  const r = new FastRandomContext(new Uint8Array(32).fill(7));
  for (let i = 0; i < 1000; i++) {
    const v = r.randrange(1000);
    assert.ok(v >= 0 && v < 1000);
  }
});

test('IsTerrible and GetChance: Core\'s rules', () => {
  const now = 1_700_000_000;
  const q = (o: Partial<{ time: number; lastTry: number; lastSuccess: number; attempts: number }>) => ({ time: now - 100, lastTry: 0, lastSuccess: 0, attempts: 0, ...o });
  assert.equal(isTerrible(q({}), now), false);
  assert.equal(isTerrible(q({ time: now + 601 }), now), true); // from the future
  assert.equal(isTerrible(q({ time: now + 600 }), now), false);
  assert.equal(isTerrible(q({ time: now - 30 * 86400 - 1 }), now), true); // older than 30 days
  assert.equal(isTerrible(q({ time: now - 30 * 86400 }), now), false);
  assert.equal(isTerrible(q({ attempts: 3 }), now), true); // 3 tries, never a success
  assert.equal(isTerrible(q({ attempts: 3, lastSuccess: now - 100 }), now), false);
  assert.equal(isTerrible(q({ attempts: 10, lastSuccess: now - 7 * 86400 - 1 }), now), true); // 10 failures, no success in a week
  assert.equal(isTerrible(q({ attempts: 9, lastSuccess: now - 7 * 86400 - 1 }), now), false);
  // Never terrible when tried in the last minute, whatever else.
  assert.equal(isTerrible(q({ attempts: 50, time: 0, lastTry: now - 60 }), now), false);
  assert.equal(isTerrible(q({ attempts: 50, time: 0, lastTry: now - 61 }), now), true);
  assert.equal(getChance(q({}), now), 1);
  assert.equal(getChance(q({ lastTry: now - 599 }), now), 0.01);
  assert.equal(getChance(q({ attempts: 2 }), now), 0.66 * 0.66);
  assert.equal(getChance(q({ attempts: 20 }), now), Math.pow(0.66, 8));
});

test('Core addrman_simple, addrman_ports, addrman_select: add, dedup, ports, new-only selection', () => {
  const clock = mockClock();
  let m = coreTestAddrman(clock.fn);
  const source = ip('252.2.2.2');
  assert.equal(m.size(), 0);
  assert.equal(m.select(), null);
  assert.ok(m.add([caddr('250.1.1.1', 8333)], source));
  assert.equal(m.size(), 1);
  assert.equal(addrPort(m.select()), '250.1.1.1:8333');
  assert.ok(!m.add([caddr('250.1.1.1', 8333)], source));
  assert.equal(m.size(), 1);
  assert.ok(m.add([caddr('250.1.1.2', 8333)], source));
  // Unroutable addresses never enter.
  assert.ok(!m.add([caddr('10.0.0.1', 8333), caddr('127.0.0.1', 8333)], source));

  m = coreTestAddrman(clock.fn);
  assert.ok(m.add([caddr('250.1.1.1', 8333)], source));
  assert.ok(m.add([caddr('250.1.1.1', 8334)], source));
  assert.equal(m.size(), 2);
  m.good(svc('250.1.1.1', 8334));
  assert.equal(m.size(), 2);
  assert.equal(addrPort(m.select(true)), '250.1.1.1:8333');

  m = coreTestAddrman(clock.fn);
  assert.equal(m.select(false), null);
  assert.ok(m.add([caddr('250.1.1.1', 8333)], source));
  assert.equal(addrPort(m.select(true)), '250.1.1.1:8333');
  assert.ok(m.good(svc('250.1.1.1', 8333)));
  assert.equal(m.select(true), null);
  assert.equal(addrPort(m.select()), '250.1.1.1:8333');
  const addr2 = svc('250.3.1.1', 8333);
  assert.ok(m.add([caddr('250.3.1.1', 8333)], addr2));
  assert.equal(addrPort(m.select(true)), '250.3.1.1:8333');
  assert.ok(m.add([caddr('250.3.2.2', 9999)], addr2));
  assert.ok(m.add([caddr('250.3.3.3', 9999)], ip('250.4.1.1')));
  for (const [t, port, src] of [['250.4.4.4', 8333, '250.3.2.2'], ['250.4.5.5', 7777, '250.3.2.2'], ['250.4.6.6', 8333, '250.1.1.3']] as const) {
    assert.ok(m.add([caddr(t, port)], ip(src)));
    assert.ok(m.good(svc(t, port)));
  }
  assert.equal(m.size(), 7);
  const ports = new Set<number>();
  for (let i = 0; i < 20; i++) ports.add(m.select()!.address.port);
  assert.equal(ports.size, 3);
  assert.equal(m.check(), 0);
});

test('Core addrman_select_by_network: network filters, both tables searched', () => {
  const m = coreTestAddrman(mockClock().fn);
  assert.equal(m.select(true, [NET_IPV4]), null);
  const source = ip('252.2.2.2');
  assert.ok(m.add([caddr('250.1.1.1', 8333)], source));
  assert.equal(addrPort(m.select(true, [NET_IPV4])), '250.1.1.1:8333');
  assert.equal(addrPort(m.select(false, [NET_IPV4])), '250.1.1.1:8333');
  for (const net of [NET_IPV6, NET_ONION, NET_I2P, NET_CJDNS]) assert.equal(m.select(false, [net]), null);
  const i2p = caddr('udhdrtrcetjm5sxzskjyr5ztpeszydbh4dpl3pl4utgqqw2v4jna.b32.i2p');
  assert.ok(m.add([i2p], source));
  assert.equal(addrPort(m.select(true, [NET_I2P])), formatAddressPort(i2p));
  assert.equal(addrPort(m.select(false, [NET_IPV4])), '250.1.1.1:8333');
  assert.ok(m.select(false, [NET_IPV4, NET_I2P]));
  assert.equal(m.select(false, [NET_IPV6, NET_ONION, NET_CJDNS]), null);
  assert.ok(m.good(i2p));
  assert.equal(m.select(true, [NET_I2P]), null);
  assert.equal(addrPort(m.select(false, [NET_I2P])), formatAddressPort(i2p));
  const i2p2 = caddr('c4gfnttsuwqomiygupdqqqyy5y5emnk5c73hrfvatri67prd7vyq.b32.i2p');
  assert.ok(m.add([i2p2], source));
  assert.equal(addrPort(m.select(true, [NET_I2P])), formatAddressPort(i2p2));
  let [fromNew, fromTried] = [false, false];
  for (let i = 0; i < 255 && !(fromNew && fromTried); i++) {
    const s = addrPort(m.select(false, [NET_I2P]));
    if (s === formatAddressPort(i2p)) fromTried = true;
    else if (s === formatAddressPort(i2p2)) fromNew = true;
    else assert.fail(s);
  }
  assert.ok(fromNew && fromTried);
  // The only IPv4 address is in new: new is searched even when tried is allowed.
  const special = new AddrMan({ now: mockClock().fn });
  special.add([caddr('udhdrtrcetjm5sxzskjyr5ztpeszydbh4dpl3pl4utgqqw2v4jna.b32.i2p')], source);
  special.good(i2p);
  special.add([caddr('250.1.1.3', 8333)], source);
  assert.equal(addrPort(special.select(false, [NET_IPV4])), '250.1.1.3:8333');
});

test('Core addrman_new_collisions, addrman_tried_collisions, addrman_selecttriedcollision: the first collisions under key 1', () => {
  const clock = mockClock();
  let m = coreTestAddrman(clock.fn);
  const source = ip('252.2.2.2');
  for (let n = 1; n <= 22; n++) {
    assert.ok(m.add([caddr(`250.1.1.${n}`)], source));
    assert.equal(m.size(), n);
  }
  assert.ok(m.add([caddr('250.1.1.23')], source)); // evicts a terrible entry (TIME_INIT is 1973)
  assert.equal(m.size(), 22);
  assert.ok(m.add([caddr('250.1.1.24')], source));
  assert.equal(m.size(), 23);

  m = coreTestAddrman(clock.fn);
  for (let n = 1; n <= 35; n++) {
    assert.ok(m.add([caddr(`250.1.1.${n}`)], source));
    assert.ok(m.good(svc(`250.1.1.${n}`)));
  }
  assert.ok(m.add([caddr('250.1.1.36')], source));
  assert.ok(!m.good(svc('250.1.1.36')));
  assert.ok(m.add([caddr('250.1.1.37')], source));
  assert.ok(m.good(svc('250.1.1.37')));

  m = coreTestAddrman(clock.fn);
  assert.equal(m.selectTriedCollision(), null);
  for (let i = 1; i < 23; i++) {
    assert.ok(m.add([caddr(`250.1.1.${i}`)], source));
    assert.ok(m.good(svc(`250.1.1.${i}`)));
    assert.equal(m.selectTriedCollision(), null);
  }
  for (let i = 1; i < 23; i++) {
    assert.ok(!m.good(svc(`250.1.1.${i}`))); // a duplicate, not a collision
    assert.equal(m.selectTriedCollision(), null);
  }
});

test('Core addrman_noevict and addrman_evictionworks: test-before-evict, ResolveCollisions, the 4-hour replacement window', () => {
  const clock = mockClock();
  let m = coreTestAddrman(clock.fn);
  const source = ip('252.2.2.2');
  for (let i = 1; i < 36; i++) {
    assert.ok(m.add([caddr(`250.1.1.${i}`)], source));
    assert.ok(m.good(svc(`250.1.1.${i}`)));
  }
  assert.ok(m.add([caddr('250.1.1.36')], source));
  assert.ok(!m.good(svc('250.1.1.36')));
  assert.equal(addrPort(m.selectTriedCollision()), '250.1.1.19:0');
  assert.deepEqual(m.triedCollisions().map((a) => formatAddressPort(a)), ['250.1.1.36:0']);
  // 19 connected just now (Good): it stays, 36 stays in new.
  m.resolveCollisions();
  assert.equal(m.selectTriedCollision(), null);
  for (let i = 37; i < 59; i++) {
    assert.ok(m.add([caddr(`250.1.1.${i}`)], source));
    assert.ok(m.good(svc(`250.1.1.${i}`)));
  }
  assert.ok(m.add([caddr('250.1.1.59')], source));
  assert.ok(!m.good(svc('250.1.1.59')));
  assert.equal(addrPort(m.selectTriedCollision()), '250.1.1.10:0');
  assert.ok(!m.add([caddr('250.1.1.36')], source));
  assert.ok(!m.good(svc('250.1.1.36')));
  assert.ok(m.selectTriedCollision());
  m.resolveCollisions();
  assert.equal(m.selectTriedCollision(), null);

  m = coreTestAddrman(clock.fn);
  for (let i = 1; i < 36; i++) {
    assert.ok(m.add([caddr(`250.1.1.${i}`)], source));
    assert.ok(m.good(svc(`250.1.1.${i}`)));
  }
  const addr36 = svc('250.1.1.36');
  assert.ok(m.add([caddr('250.1.1.36')], source));
  assert.ok(!m.good(addr36));
  const old = m.selectTriedCollision()!;
  assert.equal(addrPort(old), '250.1.1.19:0');
  // Its test fails: last success long ago, an attempt 61 seconds ago.
  assert.ok(!m.good(old.address, 1));
  m.attempt(old.address, false, clock.now - 61);
  m.resolveCollisions();
  assert.equal(m.selectTriedCollision(), null);
  assert.equal(m.findAddressEntry(addr36)!.tried, true);
  assert.ok(!m.good(addr36));
  assert.equal(m.selectTriedCollision(), null);
  const addr19 = svc('250.1.1.19');
  assert.ok(!m.good(addr19));
  assert.equal(addrPort(m.selectTriedCollision()), '250.1.1.36:0');
  clock.now += 4 * 3600;
  m.resolveCollisions();
  assert.equal(m.selectTriedCollision(), null);
  assert.equal(m.findAddressEntry(addr19)!.tried, true);
  assert.equal(m.findAddressEntry(addr36)!.tried, false);
  assert.equal(m.check(), 0);
});

test('Core addrman_getaddr and getaddr_unfiltered: 23% answers, 461 of 2006, terrible entries left out', () => {
  const clock = mockClock();
  const now = clock.now;
  let m = coreTestAddrman(clock.fn);
  assert.equal(m.getAddr(0, 0).length, 0);
  const a = [caddr('250.250.2.1', 8333, now), caddr('250.251.2.2', 9999, now), caddr('251.252.2.3', 8333, now), caddr('252.253.3.4', 8333, now), caddr('252.254.4.5', 8333, now)];
  assert.ok(m.add([a[0]!, a[2]!, a[4]!], ip('250.1.2.1')));
  assert.ok(m.add([a[1]!, a[3]!], ip('250.2.3.3')));
  assert.equal(m.getAddr(0, 0).length, 5);
  assert.equal(m.getAddr(2500, 23).length, 1);
  assert.ok(m.good(a[0]!));
  assert.ok(m.good(a[1]!));
  assert.equal(m.getAddr(0, 0).length, 5);
  assert.equal(m.getAddr(2500, 23).length, 1);
  for (let i = 1; i < 8 * 256; i++) {
    const text = `${i % 256}.${i >> 8}.1.23`;
    const entry = caddr(text, 0, now);
    m.add([entry], ip(text));
    if (i % 8 === 0) m.good(entry);
  }
  assert.equal(m.size(), 2006); // fewer than added: collisions
  assert.equal(m.getAddr(2500, 23).length, 461);
  assert.equal(m.check(), 0);

  m = coreTestAddrman(clock.fn);
  const source = ip('250.1.2.1');
  assert.ok(m.add([caddr('250.250.2.1', 8333, now), caddr('250.251.2.2', 9999)], source));
  const addr3 = caddr('250.251.2.3', 9998, now);
  m.good(addr3, now);
  assert.ok(m.add([addr3], source));
  for (let i = 0; i < 3; i++) m.attempt(addr3, true, now - 61);
  assert.equal(m.getAddr(0, 0).length, 1);
  assert.equal(m.getAddr(0, 0, null, false).length, 3);
  // The network filter is GetNetClass's.
  assert.equal(m.getAddr(0, 0, NET_IPV6, false).length, 0);
  assert.equal(m.getAddr(0, 0, NET_IPV4, false).length, 3);
});

test('Core addrman_new_multiplicity and addrman_update_address: up to 8 buckets as nTime rises; Connected, SetServices, services merged by Add', () => {
  const clock = mockClock();
  let m = coreTestAddrman(clock.fn);
  const start = clock.now;
  const sourceOf = (i: number) => ip(`${i % 256}.${i >> 8}.1.1`);
  for (let i = 1; i < 20; i++) m.add([caddr('253.3.3.3', 8333, start)], sourceOf(i));
  assert.equal(m.findAddressEntry(svc('253.3.3.3', 8333))!.multiplicity, 1);
  assert.equal(m.size(), 1);
  for (let i = 1; i < 400; i++) m.add([caddr('253.3.3.3', 8333, start + i)], sourceOf(i));
  assert.equal(m.findAddressEntry(svc('253.3.3.3', 8333))!.multiplicity, 8);
  assert.equal(m.size(), 1);
  assert.equal(m.check(), 0);

  m = coreTestAddrman(clock.fn);
  const source = ip('252.2.2.2');
  const t0 = clock.now - 10000;
  assert.ok(m.add([caddr('250.1.1.1', 8333, t0)], source));
  m.connected(svc('250.1.1.1', 8334));
  m.setServices(svc('250.1.1.1', 8334), NODE_NETWORK_LIMITED);
  let got = m.getAddr(0, 0);
  assert.equal(got.length, 1);
  assert.deepEqual([got[0]!.time, got[0]!.services], [t0, 0n]);
  m.connected(svc('250.1.1.1', 8333));
  m.setServices(svc('250.1.1.1', 8333), NODE_NETWORK_LIMITED);
  got = m.getAddr(0, 0);
  assert.deepEqual([got[0]!.time, got[0]!.services], [clock.now, NODE_NETWORK_LIMITED]);
  assert.ok(!m.add([caddr('250.1.1.1', 8333, t0, NODE_P2P_V2)], source));
  assert.equal(m.getAddr(0, 0)[0]!.services, NODE_P2P_V2 | NODE_NETWORK_LIMITED);
  m.setServices(svc('250.1.1.1', 8333), NODE_NETWORK);
  assert.ok(m.good(svc('250.1.1.1', 8333)));
  assert.equal(m.getAddr(0, 0)[0]!.services, NODE_NETWORK);
  assert.ok(!m.add([caddr('250.1.1.1', 8333, t0, NODE_P2P_V2)], source));
  assert.equal(m.getAddr(0, 0)[0]!.services, NODE_NETWORK | NODE_P2P_V2);
  // A relayed address gets the time penalty, a self-announcement none.
  m.add([caddr('250.9.9.9', 8333, clock.now)], source, 7200);
  m.add([caddr('250.8.8.8', 8333, clock.now)], ip('250.8.8.8'), 7200);
  assert.equal(m.getEntry(svc('250.9.9.9', 8333))!.address.time, clock.now - 7200);
  assert.equal(m.getEntry(svc('250.8.8.8', 8333))!.address.time, clock.now);
});

test('Select with a seeded random source: weighted by GetChance, reproducible', () => {
  const now = 1_700_000_000;
  const run = () => {
    const m = new AddrMan({ random: new FastRandomContext(new Uint8Array(32).fill(42)), now: () => now });
    const source = ip('252.2.2.2');
    m.add([caddr('250.1.1.1', 8333, now - 100), caddr('250.2.1.1', 8333, now - 100), caddr('250.3.1.1', 8333, now - 100)], source);
    // A failure counts once per successful connection (to any address): eight attempts with a
    // Good between them, chance 0.66^8 (about 3.6%).
    m.attempt(svc('250.2.1.1', 8333), true, now - 3600);
    m.attempt(svc('250.2.1.1', 8333), true, now - 3500);
    assert.equal(m.getEntry(svc('250.2.1.1', 8333))!.attempts, 1);
    for (let i = 1; i < 8; i++) {
      m.good(svc('250.3.1.1', 8333), now - 3600 + 2 * i);
      m.attempt(svc('250.2.1.1', 8333), true, now - 3600 + 2 * i + 1);
    }
    assert.equal(m.getEntry(svc('250.2.1.1', 8333))!.attempts, 8);
    const counts = new Map<string, number>();
    for (let i = 0; i < 1000; i++) {
      const s = addrPort(m.select(true));
      counts.set(s, (counts.get(s) ?? 0) + 1);
    }
    return counts;
  };
  const counts = run();
  assert.deepEqual(run(), counts);
  const [good, bad] = [counts.get('250.1.1.1:8333') ?? 0, counts.get('250.2.1.1:8333') ?? 0];
  assert.equal(good + bad, 1000);
  assert.ok(bad > 0 && bad < good / 5, `${good} / ${bad}`);
});

test('serialization: a round trip is byte for byte, invalid entries are dropped on load (Core remove_invalid)', () => {
  const clock = mockClock();
  const m = coreTestAddrman(clock.fn);
  m.add([caddr('5.5.5.5'), caddr('7.7.7.7'), caddr('6.6.6.6'), caddr('8.8.8.8')], NO_SOURCE);
  m.good(svc('7.7.7.7'));
  m.good(svc('8.8.8.8'));
  m.add([caddr('2001:4860::1', 8333, clock.now, NODE_NETWORK | NODE_WITNESS)], internalAddress('seed.example.org'));
  m.add([caddr('pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion', 8333, clock.now)], ip('1.2.3.4'));
  assert.equal(m.size(), 6);
  const bytes = m.serialize();
  const back = AddrMan.deserialize(bytes, { now: clock.fn });
  assert.equal(toHex(back.serialize()), toHex(bytes));
  assert.deepEqual(back.info(), m.info());
  // What is stored: all but the memory-only last try and last counted attempt.
  const stored = (tried: boolean, a: AddrMan) => a.getEntries(tried).map(({ entry, position }) => ({ ...entry, lastTry: 0, lastCountAttempt: 0, position }));
  assert.deepEqual(stored(false, back), stored(false, m));
  assert.deepEqual(stored(true, back), stored(true, m));
  assert.equal(stored(true, back).length, 2);
  // The internal source (a DNS seed's name) survives, as IPv6 with the internal prefix.
  assert.equal(formatAddress(back.getEntry(svc('2001:4860::1', 8333))!.source), formatAddress(internalAddress('seed.example.org')));

  const patched = bytes.slice();
  const replace = (from: number[], to: number[]) => {
    const at = toHex(patched).indexOf(toHex(Uint8Array.from(from)));
    assert.ok(at >= 0 && at % 2 === 0);
    patched.set(to, at / 2);
  };
  replace([6, 6, 6, 6], [0, 0, 0, 0]); // a new entry becomes 0.0.0.0, invalid
  replace([8, 8, 8, 8], [255, 255, 255, 255]); // a tried one 255.255.255.255
  const pruned = AddrMan.deserialize(patched, { now: clock.fn });
  assert.equal(pruned.size(), 4);
  assert.equal(pruned.check(), 0);
});

test('peers.dat: magic, checksum, truncation and corrupt counts refused with Core\'s reasons; a newer format set aside', () => {
  const dir = tempDir();
  try {
    const m = new AddrMan({ now: mockClock().fn });
    m.add([caddr('1.2.3.4', 8333, 1_700_000_000)], ip('1.2.3.4'));
    const file = encodePeersDat(m, REGTEST_MAGIC);
    assert.equal(toHex(file.subarray(0, 4)), 'fabfb5da');
    assert.equal(toHex(file.subarray(-32)), toHex(sha256d(file.subarray(0, -32))));
    assert.equal(decodePeersDat(file, REGTEST_MAGIC).size(), 1);
    const reason = (bytes: Uint8Array, magic = REGTEST_MAGIC) => {
      try {
        decodePeersDat(bytes, magic);
      } catch (err) {
        assert.ok(err instanceof PeersDatError, String(err));
        assert.equal(err.message, `Invalid or corrupt peers.dat (${err.reason})`);
        return err.reason;
      }
      return assert.fail('decoded');
    };
    assert.equal(reason(file, fromHex('f9beb4d9')), 'Invalid network magic number');
    const flipped = file.slice();
    flipped[file.length - 1]! ^= 1;
    assert.equal(reason(flipped), 'Checksum mismatch, data corrupted');
    assert.equal(reason(file.subarray(0, file.length - 1)), 'AutoFile::read: end of file: iostream error');
    assert.equal(reason(file.subarray(0, 100)), 'AutoFile::read: end of file: iostream error');

    // Core's functional test's mock file: format 1, lowest compatible 4, key 1, no entries, no asmap version.
    const mock = (o: { compat?: number; key?: number; nNew?: number; nTried?: number } = {}) => {
      const body = new Uint8Array(4 + 2 + 32 + 12 + 4 * 1024);
      const v = new DataView(body.buffer);
      body.set(REGTEST_MAGIC);
      body[4] = 1;
      body[5] = o.compat ?? 36;
      body[6] = o.key ?? 1;
      v.setInt32(38, o.nNew ?? 0, true);
      v.setInt32(42, o.nTried ?? 0, true);
      v.setInt32(46, 1024 ^ (1 << 30), true);
      return concatBytes(body, sha256d(body));
    };
    assert.equal(decodePeersDat(mock(), REGTEST_MAGIC).size(), 0);
    assert.equal(reason(mock({ compat: 0 })), 'Corrupted addrman database: The compat value (0) is lower than the expected minimum value 32.: iostream error');
    assert.equal(reason(mock({ nTried: -1 })), 'Corrupt AddrMan serialization: nTried=-1, should be in [0, 16384]: iostream error');
    assert.equal(reason(mock({ nNew: 65537 })), 'Corrupt AddrMan serialization: nNew=65537, should be in [0, 65536]: iostream error');
    assert.equal(reason(mock({ key: 0 })), 'Corrupt data. Consistency check failed with code -16: iostream error');
    assert.throws(() => decodePeersDat(mock({ compat: 32 + 111 }), REGTEST_MAGIC), AddrManVersionError);

    // LoadAddrman: missing file created, incompatible one backed up and replaced, corrupt one refused.
    const path = join(dir, 'peers.dat');
    assert.equal(loadAddrman(path, REGTEST_MAGIC).status, 'created');
    assert.equal(readPeersDat(path, REGTEST_MAGIC).size(), 0);
    writeFileSync(path, mock({ compat: 32 + 111 }));
    assert.equal(loadAddrman(path, REGTEST_MAGIC).status, 'replaced');
    assert.ok(existsSync(`${path}.bak`));
    writePeersDat(path, m, REGTEST_MAGIC);
    const loaded = loadAddrman(path, REGTEST_MAGIC);
    assert.equal(loaded.status, 'loaded');
    assert.deepEqual(loaded.addrman.getEntries(false), m.getEntries(false));
    writeFileSync(path, mock({ nTried: -1 }));
    assert.throws(
      () => loadAddrman(path, REGTEST_MAGIC),
      (err: unknown) =>
        err instanceof PeersDatError &&
        err.message ===
          'Invalid or corrupt peers.dat (Corrupt AddrMan serialization: nTried=-1, should be in [0, 16384]: iostream error). ' +
            'If you believe this is a bug, please report it to https://github.com/bitcoin/bitcoin/issues. ' +
            `As a workaround, you can move the file ("${path}") out of the way (rename, move, or delete) to have a new one created on the next start.`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------------
// Against the reference bitcoind

interface RawEntry {
  address: string;
  port: number;
  services: number;
  time: number;
  network: string;
  source: string;
  source_network: string;
}
type RawAddrman = { new: Record<string, RawEntry>; tried: Record<string, RawEntry> };
interface NodeAddress {
  time: number;
  services: number;
  address: string;
  port: number;
  network: string;
}

/** Core's getrawaddrman from our tables. */
function rawAddrman(m: AddrMan): RawAddrman {
  const table = (tried: boolean) =>
    Object.fromEntries(
      m.getEntries(tried).map(({ entry, position }) => [
        `${position.bucket}/${position.position}`,
        {
          address: formatAddress(entry.address),
          port: entry.address.port,
          services: Number(entry.address.services),
          time: entry.address.time,
          network: networkName(addressNetClass(entry.address)),
          source: formatAddress(entry.source),
          source_network: networkName(addressNetClass(entry.source)),
        },
      ]),
    );
  return { new: table(false), tried: table(true) };
}

/** Core's getnodeaddresses entries from ours. */
const nodeAddresses = (list: readonly PeerAddress[]): NodeAddress[] =>
  list.map((a) => ({ time: a.time, services: Number(a.services), address: formatAddress(a), port: a.port, network: networkName(addressNetClass(a)) }));

const byAddrPort = (list: NodeAddress[]) => [...list].sort((x, y) => `${x.address}:${x.port}`.localeCompare(`${y.address}:${y.port}`));

/** A regtest bitcoind on `dir` with no outbound connections (so nothing else draws on its addrman's randomness). */
function startBitcoind(bin: string, dir: string, extra: string[] = []): Promise<BitcoindProcess> {
  return BitcoindProcess.start(bin, ['-connect=0', '-dnsseed=0', '-debug=addrman', ...extra], dir);
}

test('bitcoind writes peers.dat, we read it: the same entries, tables, buckets and slots, and the same bytes written back', async (t) => {
  const bin = referenceBitcoind(t);
  if (!bin) return;
  const dir = tempDir();
  let node: Awaited<ReturnType<typeof startBitcoind>> | undefined;
  try {
    node = await startBitcoind(bin, dir);
    const { rpc } = node;
    const added: [string, number, boolean][] = [
      ['1.2.3.4', 8333, false],
      ['5.6.7.8', 8333, false],
      ['5.6.7.8', 18444, false],
      ['11.22.33.44', 8333, true],
      ['12.34.56.78', 8333, true],
      ['2001:4860::8888', 8333, false],
      ['2a01:4f8::1', 8333, true],
      ['2002:102:304::1', 8333, false],
      ['240.1.2.3', 8333, false],
      ['pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion', 8333, false],
      ['udhdrtrcetjm5sxzskjyr5ztpeszydbh4dpl3pl4utgqqw2v4jna.b32.i2p', 0, true],
    ];
    // (Two ports of one address share a bucket: with a random nKey they may, rarely, share a slot too.)
    let inNew = 0;
    for (const [address, port, tried] of added) {
      const result = await rpc.call<{ success: boolean; error?: string }>('addpeeraddress', [address, port, tried]);
      if (result.success || result.error === 'failed-adding-to-tried') inNew++;
    }
    const raw = await rpc.call<RawAddrman>('getrawaddrman');
    const info = await rpc.call<Record<string, unknown>>('getaddrmaninfo');
    const listed = await rpc.call<NodeAddress[]>('getnodeaddresses', [0]);
    assert.equal(listed.length, inNew);
    assert.ok(inNew >= added.length - 1 && Object.keys(raw.tried).length >= 3);
    await node.stop();
    node = undefined;

    const file = new Uint8Array(readFileSync(join(dir, 'regtest', 'peers.dat')));
    const ours = decodePeersDat(file, REGTEST_MAGIC);
    assert.equal(ours.check(), 0);
    // Same entries in the same tables, buckets and slots; tried slots are recomputed from nKey.
    assert.deepEqual(rawAddrman(ours), raw);
    assert.deepEqual(ours.info(), info);
    assert.deepEqual(byAddrPort(nodeAddresses(ours.getAddr(0, 0))), byAddrPort(listed));
    // Every new entry sits where its own source puts it (GetNewBucket, GetBucketPosition).
    for (const { entry, position } of ours.getEntries(false)) {
      const found = ours.findAddressEntry(entry.address)!;
      assert.deepEqual([found.bucket, found.position], [position.bucket, position.position]);
    }
    // Written back, the file is bitcoind's byte for byte.
    assert.equal(toHex(encodePeersDat(ours, REGTEST_MAGIC)), toHex(file));
  } finally {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('we write peers.dat, bitcoind loads it: same tables and counts; its deterministic addrman answers getnodeaddresses as ours does', async (t) => {
  const bin = referenceBitcoind(t);
  if (!bin) return;
  const dir = tempDir();
  let node: Awaited<ReturnType<typeof startBitcoind>> | undefined;
  try {
    const now = Math.floor(Date.now() / 1000);
    const m = new AddrMan();
    const services = NODE_NETWORK | NODE_WITNESS;
    const peer = (text: string, port: number, age: number, s = services): PeerAddress => caddr(text, port, now - age, s);
    m.add([peer('1.2.3.4', 8333, 100), peer('1.2.3.5', 8333, 200), peer('1.2.3.4', 18444, 300), peer('2001:4860::8888', 8333, 400, NODE_NETWORK_LIMITED)], ip('9.9.9.9'));
    m.add([peer('11.22.33.44', 8333, 500), peer('2a01:4f8::1', 8333, 600), peer('pg6mmjiyjmcrsslvykfwnntlaru7p5svn6y2ymmju6nubxndf4pscryd.onion', 8333, 700)], internalAddress('seed.example.org'));
    m.add([peer('udhdrtrcetjm5sxzskjyr5ztpeszydbh4dpl3pl4utgqqw2v4jna.b32.i2p', 0, 800)], ip('2a01:4f8::1'));
    m.add([{ network: BIP155_NETWORK.CJDNS, address: fromHex('fc000001000200030004000500060007'), port: 8333, time: now - 900, services }], ip('9.9.9.9'));
    for (let i = 1; i <= 40; i++) m.add([peer(`250.${i}.1.1`, 8333, 1000 + i)], ip(`251.${i % 7}.0.1`));
    for (const t2 of ['11.22.33.44', '2a01:4f8::1', '250.3.1.1', '250.4.1.1']) m.good(svc(t2, 8333), now - 50);
    assert.ok(m.size(null, false) > 0);
    m.attempt(svc('1.2.3.5', 8333), true, now - 7200);
    const expectedRaw = rawAddrman(m);
    mkdirSync(join(dir, 'regtest'), { recursive: true });
    const path = join(dir, 'regtest', 'peers.dat');
    writePeersDat(path, m, REGTEST_MAGIC);

    node = await startBitcoind(bin, dir, ['-test=addrman']);
    const { rpc } = node;
    assert.deepEqual(await rpc.call('getaddrmaninfo'), m.info());
    assert.deepEqual(await rpc.call('getrawaddrman'), expectedRaw);
    // Our file loaded as bitcoind loads it, with Core's deterministic random context:
    // GetAddr shuffles the same way, so the answers come in the same order.
    const mine = readPeersDat(path, REGTEST_MAGIC, { deterministic: true });
    assert.deepEqual(await rpc.call('getnodeaddresses', [0]), nodeAddresses(mine.getAddr(0, 0)));
    assert.deepEqual(await rpc.call('getnodeaddresses', [0, 'ipv6']), nodeAddresses(mine.getAddr(0, 0, NET_IPV6)));
    assert.deepEqual(await rpc.call('getnodeaddresses', [5, 'ipv4']), nodeAddresses(mine.getAddr(5, 0, NET_IPV4)));

    // Adding through bitcoind and through ours places the same way (same nKey), and fails
    // the same way should a slot be taken.
    const more = [['99.88.77.66', 8333, true], ['2001:db9::5', 8333, false], ['250.3.1.2', 8333, true], ['1.2.3.4', 18445, false]] as const;
    const succeeded: boolean[] = [];
    for (const [text, port, tried] of more) succeeded.push((await rpc.call<{ success: boolean }>('addpeeraddress', [text, port, tried])).success);
    const theirs = await rpc.call<RawAddrman>('getrawaddrman');
    const timeOf = (text: string, port: number) =>
      [...Object.values(theirs.new), ...Object.values(theirs.tried)].find((e) => e.address === formatAddress(ip(text)) && e.port === port)?.time ?? now;
    more.forEach(([text, port, tried], i) => {
      const time = timeOf(text, port);
      const added = mine.add([caddr(text, port, time, services)], ip(text));
      assert.equal(added && (!tried || mine.good(svc(text, port), time)), succeeded[i], text);
    });
    assert.deepEqual(theirs, rawAddrman(mine));
    assert.deepEqual(await rpc.call('getnodeaddresses', [0]), nodeAddresses(mine.getAddr(0, 0)));
    await node.stop();
    node = undefined;

    // bitcoind's own file of the result holds what ours holds.
    const back = readPeersDat(path, REGTEST_MAGIC);
    assert.deepEqual(rawAddrman(back), rawAddrman(mine));
    assert.deepEqual(back.info(), mine.info());
    assert.equal(toHex(back.key), toHex(m.key));
  } finally {
    await node?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
