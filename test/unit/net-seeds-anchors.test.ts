/**
 * Core's fixed seeds and anchors.dat, pure: the seed lists decode to Core v31.0's counts and
 * entries (as bitcoind v31.0 logs them with -debug=net), ConvertSeeds' times and services,
 * which networks get seeds, -signetseednode, and anchors.dat bytes as bitcoind writes them.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { readChainArgs, selectParams, type ChainName } from '../../src/consensus/index.js';
import {
  AddrMan,
  addressNetwork,
  ADDRESS_TIME_INIT,
  convertSeeds,
  decodeAnchors,
  decodeFixedSeeds,
  encodeAnchors,
  formatAddressPort,
  internalAddress,
  NET_CJDNS,
  NET_I2P,
  NET_IPV4,
  NET_IPV6,
  NET_ONION,
  networkName,
  readAnchors,
  reachableEmptyNetworks,
  seedsForNetworks,
  type PeerAddress,
} from '../../src/net/index.js';

const REGTEST_MAGIC = selectParams('regtest').messageStart;

function countsByNetwork(chain: ChainName): Record<string, number> {
  const out: Record<string, number> = {};
  for (const seed of decodeFixedSeeds(selectParams(chain).fixedSeeds)) {
    const name = networkName(addressNetwork(seed));
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

test('the fixed seeds have Core v31.0\'s counts per network (none on regtest)', () => {
  assert.deepEqual(countsByNetwork('main'), { cjdns: 11, i2p: 512, ipv4: 512, ipv6: 512, onion: 512 });
  assert.deepEqual(countsByNetwork('test'), { cjdns: 1, i2p: 8, ipv4: 65, ipv6: 38, onion: 69 });
  assert.deepEqual(countsByNetwork('testnet4'), { cjdns: 1, i2p: 18, ipv4: 63, ipv6: 70, onion: 78 });
  assert.deepEqual(countsByNetwork('signet'), { cjdns: 1, i2p: 9, ipv4: 46, ipv6: 47, onion: 67 });
  assert.equal(selectParams('regtest').fixedSeeds.length, 0);
});

test('the fixed seeds are the entries bitcoind v31.0 adds, in its order', () => {
  const main = decodeFixedSeeds(selectParams('main').fixedSeeds).map(formatAddressPort);
  // "Added hardcoded seed: ..." lines of bitcoind v31.0 -debug=net -dnsseed=0 (lines 1, 12, 524, 1036, 1548, 2059).
  assert.equal(main[0], '[fc11:f769:16e6:3611:58ae:1d4a:fcf7:57a4]:8333');
  assert.equal(main[11], '22pis7zmm4r466tciqekpwjwzf2qi3a536bow7k5tu5kxgmbvrkq.b32.i2p:0');
  assert.equal(main[523], '2.121.116.198:8333');
  assert.equal(main[1035], '[2001:1284:f502:9104:419d:b3ea:216:61eb]:8333');
  assert.equal(main[1547], '2boy2eupcrkymvf456swszxglxgckeoasshdasbgp4kt6jobovnmb5ad.onion:8333');
  assert.equal(main.at(-1), 'zydzl45fygimiugvekdkojrxbcrdchqno5ea2rxa7m6xcyhhdxhj3xid.onion:8333');
  const firstAndLast = (chain: ChainName) => {
    const all = decodeFixedSeeds(selectParams(chain).fixedSeeds).map(formatAddressPort);
    return [all[1], all.at(-1)];
  };
  assert.deepEqual(firstAndLast('test'), ['hedmbfis4h4inqrwo2uzmku5xu6xaq74tg7sofnetqikdvndtvja.b32.i2p:0', 'zsmxmusdzrcqusk5h6syfq6a3ph6lwx3wpiltun4dmkrt3pa2fp7qaid.onion:18333']);
  assert.deepEqual(firstAndLast('testnet4'), ['2o6clfldp42aegdjsgnhsvyqydqpltmek2k6yq5etw5bxm7kgrqa.b32.i2p:0', 'zu3gjmendiuoogirxm6udfpympmchh2lxl3aeifzu7ahyuas3pzkgzid.onion:48333']);
  assert.deepEqual(firstAndLast('signet'), ['25g5trd4qasb2sbpkk5cvl256l6aiwcwjjqq7xso3ajvlgcvkpaq.b32.i2p:0', 'zgkvv542e4ewviremw3qp4bi52f2sxt4g4mrjrbwonbnfb5oujd44lid.onion:38333']);
  // A tuple whose length does not fit its network is refused, as Core's deserializer throws.
  assert.throws(() => decodeFixedSeeds(Uint8Array.of(1, 5, 1, 2, 3, 4, 5, 0x20, 0x8d)), /length 5/);
});

test('ConvertSeeds: NODE_NETWORK | NODE_WITNESS, last seen one to two weeks ago', () => {
  const now = 1_800_000_000;
  const week = 7 * 24 * 3600;
  let r = 0;
  const seeds = convertSeeds(selectParams('signet').fixedSeeds, now, () => (r = (r + 0.37) % 1));
  assert.equal(seeds.length, 170);
  for (const s of seeds) {
    assert.equal(s.services, 9n);
    assert.ok(s.time <= now - week && s.time > now - 2 * week, String(s.time));
  }
  assert.equal(convertSeeds(selectParams('main').fixedSeeds, now, () => 0)[0]!.time, now - week);
  assert.equal(convertSeeds(selectParams('main').fixedSeeds, now, () => 0.999999999)[0]!.time, now - 2 * week + 1);
});

test('fixed seeds go only to reachable networks the address manager has no address of', () => {
  const addrman = new AddrMan();
  const seeds = convertSeeds(selectParams('main').fixedSeeds, Math.floor(Date.now() / 1000));
  const clearnet = (n: number) => n === NET_IPV4 || n === NET_IPV6;
  assert.deepEqual([...reachableEmptyNetworks(addrman, clearnet)].sort(), [NET_IPV4, NET_IPV6]);
  assert.deepEqual([...reachableEmptyNetworks(addrman, () => true)].sort(), [NET_IPV4, NET_IPV6, NET_ONION, NET_I2P, NET_CJDNS].sort());
  const onlyIpv4 = seedsForNetworks(seeds, new Set([NET_IPV4]));
  assert.equal(onlyIpv4.length, 512);
  addrman.add(onlyIpv4, internalAddress('fixedseeds'));
  assert.ok(addrman.size(NET_IPV4) > 400);
  // IPv4 has addresses now; IPv6 is still empty and would get its seeds.
  assert.deepEqual([...reachableEmptyNetworks(addrman, clearnet)], [NET_IPV6]);
});

test('-signetseednode replaces the signet\'s DNS seeds, with the default challenge or a custom one', () => {
  const signet = (args: Parameters<typeof readChainArgs>[1]) => selectParams('signet', readChainArgs('signet', args));
  assert.deepEqual(signet({}).dnsSeeds, ['seed.signet.bitcoin.sprovoost.nl.', 'seed.signet.achownodes.xyz.']);
  assert.deepEqual(signet({ signetseednode: ['sig.example:1234', '10.0.0.1'] }).dnsSeeds, ['sig.example:1234', '10.0.0.1']);
  const custom = signet({ signetchallenge: ['51'], signetseednode: ['sig.example:1234'] });
  assert.deepEqual(custom.dnsSeeds, ['sig.example:1234']);
  // A custom signet has neither Core's seed lists nor its DNS seeds.
  assert.equal(custom.fixedSeeds.length, 0);
  assert.deepEqual(signet({ signetchallenge: ['51'] }).dnsSeeds, []);
  // Only signet reads it.
  assert.deepEqual(selectParams('main', readChainArgs('main', { signetseednode: ['sig.example'] })).dnsSeeds, selectParams('main').dnsSeeds);
});

/** anchors.dat as bitcoind v31.0 wrote it after `addconnection 127.0.0.1:19101 block-relay-only false` (regtest). */
const CORE_ANCHORS_HEX = 'fabfb5da01605b032000e1f5050001047f0000014a9d516d353f2c029932142e46fc90c34d297fb7bef1eb16728c73ee4f9ad5937ccc';
const CORE_ANCHOR: PeerAddress = { time: ADDRESS_TIME_INIT, services: 0n, network: 1, address: Uint8Array.of(127, 0, 0, 1), port: 19101 };

test('anchors.dat: the bytes bitcoind writes, read back; a bad file is refused', () => {
  assert.equal(Buffer.from(encodeAnchors([CORE_ANCHOR], REGTEST_MAGIC)).toString('hex'), CORE_ANCHORS_HEX);
  const decoded = decodeAnchors(Buffer.from(CORE_ANCHORS_HEX, 'hex'), REGTEST_MAGIC);
  assert.deepEqual(decoded.map((a) => ({ ...a, address: [...a.address] })), [{ ...CORE_ANCHOR, address: [127, 0, 0, 1] }]);
  // An empty list: the 37 bytes Core leaves with no block-relay-only peers.
  assert.equal(encodeAnchors([], REGTEST_MAGIC).length, 37);
  const torv3: PeerAddress = { time: 1_700_000_000, services: 0xc09n, network: 4, address: new Uint8Array(32).fill(7), port: 8333 };
  assert.deepEqual(decodeAnchors(encodeAnchors([torv3, CORE_ANCHOR], REGTEST_MAGIC), REGTEST_MAGIC).map(formatAddressPort), [formatAddressPort(torv3), '127.0.0.1:19101']);
  const tweaked = Buffer.from(CORE_ANCHORS_HEX, 'hex');
  tweaked[13] = 9;
  assert.throws(() => decodeAnchors(tweaked, REGTEST_MAGIC), /Checksum mismatch/);
  assert.throws(() => decodeAnchors(Buffer.from(CORE_ANCHORS_HEX, 'hex'), selectParams('main').messageStart), /magic/);
  assert.throws(() => decodeAnchors(Buffer.from(CORE_ANCHORS_HEX, 'hex').subarray(0, 20), REGTEST_MAGIC));
});

test('ReadAnchors: the addresses, or none for a bad file; the file is gone either way', () => {
  const dir = mkdtempSync(join(tmpdir(), 'anchors-'));
  try {
    const path = join(dir, 'anchors.dat');
    writeFileSync(path, Buffer.from(CORE_ANCHORS_HEX, 'hex'));
    assert.equal(readAnchors(path, REGTEST_MAGIC)?.length, 1);
    assert.equal(existsSync(path), false);
    // Core's feature_anchors.py perturbation: a byte inserted at offset 20.
    const bytes = Buffer.from(CORE_ANCHORS_HEX, 'hex');
    writeFileSync(path, Buffer.concat([bytes.subarray(0, 20), Buffer.from('1'), bytes.subarray(20)]));
    assert.equal(readAnchors(path, REGTEST_MAGIC), undefined);
    assert.equal(existsSync(path), false);
    assert.equal(readAnchors(path, REGTEST_MAGIC), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
