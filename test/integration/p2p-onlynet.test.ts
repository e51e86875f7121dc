/**
 * -onlynet beyond automatic connections, with scripted peers, checked against bitcoind
 * v31.0 doing the same: gossiped addresses of networks we cannot reach are not stored but
 * still relayed, to one or two peers instead of two; manual connections (-connect, addnode)
 * are not limited by it; getnetworkinfo reports the networks as Core does.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { decodeAddrV2, encodeAddrV2, type PeerAddress } from '../../src/net/index.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, waitFor } from './daemon-harness.js';
import { buildChain, ChainServer, TestPeer } from './p2p-test-peer.js';

const reference = referenceBitcoind();
/** No rate limit for our peers (Core's addr permission); mock-time jumps are not silence. */
const ARGS = ['-onlynet=ipv4', '-whitelist=addr@127.0.0.1', '-peertimeout=999999999'];

interface Target {
  readonly p2pPort: number;
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
}

let node: Daemon;
let core: BitcoindProcess | undefined;
const targets = (): [string, Target][] => [['tsbtcd', node], ...(core ? [['bitcoind', core] as [string, Target]] : [])];

before(async () => {
  node = await Daemon.start({ args: ARGS });
  if (!('missing' in reference)) core = await BitcoindProcess.start(reference.path, ['-disablewallet', '-dnsseed=0', '-fixedseeds=0', '-connect=0', ...ARGS]);
});

after(async () => {
  await node?.cleanup();
  await core?.stop();
});

const now = () => Math.floor(Date.now() / 1000);
/** Each in its own network group, so no two compete for a new-table slot. */
const ipv4 = (i: number, time = now() - 3600): PeerAddress => ({ time, services: 9n, network: 1, address: Uint8Array.of(21, i, 0, 1), port: 8333 });
const ipv6 = (i: number, time = now() - 3600): PeerAddress => ({ time, services: 9n, network: 2, address: Uint8Array.of(0x2a, 0x01, i, 0x11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), port: 8333 });
const onion = (i: number, time = now() - 3600): PeerAddress => ({ time, services: 9n, network: 4, address: new Uint8Array(32).fill(i), port: 8333 });

test('-onlynet=ipv4: gossiped IPv6 and onion addresses are not stored, IPv4 ones are', async () => {
  for (const [name, target] of targets()) {
    const peer = await TestPeer.connect(target.p2pPort);
    try {
      peer.send('addrv2', encodeAddrV2([ipv4(1), ipv6(1), onion(1), ipv4(2), ipv6(2), onion(2), ipv4(3)]));
      await peer.sync();
      const stored = await target.call<any[]>('getnodeaddresses', [0]);
      assert.deepEqual(stored.map((a) => a.address).sort(), ['21.1.0.1', '21.2.0.1', '21.3.0.1'], name);
      const info = await target.call('getaddrmaninfo');
      assert.deepEqual([info.ipv4.total, info.ipv6.total, info.onion.total], [3, 0, 0], name);
      const networks = (await target.call('getnetworkinfo')).networks as any[];
      assert.deepEqual(
        networks.map((n) => [n.name, n.reachable, n.limited]),
        [['ipv4', true, false], ['ipv6', false, true], ['onion', false, true], ['i2p', false, true], ['cjdns', false, true]],
        name,
      );
    } finally {
      peer.close();
    }
  }
});

/** How many of the three listeners got each address the sender announced (one addrv2 message each). */
async function relayCounts(target: Target, announced: readonly PeerAddress[]): Promise<number[]> {
  const sender = await TestPeer.connect(target.p2pPort);
  const listeners = await Promise.all([0, 1, 2].map(() => TestPeer.connect(target.p2pPort)));
  const key = (a: PeerAddress) => `${a.network}:${Buffer.from(a.address).toString('hex')}`;
  try {
    // An addr-related message turns address relay on for an inbound peer (Core's SetupAddressRelay).
    for (const p of [sender, ...listeners]) p.send('addrv2', encodeAddrV2([]));
    await Promise.all([sender, ...listeners].map((p) => p.sync()));
    for (const a of announced) sender.send('addrv2', encodeAddrV2([a]));
    await sender.sync();
    // Addresses go out in Poisson-timed rounds on the node's clock: move it past them.
    await target.call('setmocktime', [now() + 3600]);
    const got = (p: TestPeer) => new Set(p.received.filter((f) => f.command === 'addrv2').flatMap((f) => decodeAddrV2(f.payload).map(key)));
    const counts = () => announced.map((a) => listeners.filter((l) => got(l).has(key(a))).length);
    await waitFor('every address at one listener at least', async () => {
      await Promise.all(listeners.map((p) => p.sync()));
      return counts().every((c) => c > 0) ? true : undefined;
    }, 30_000);
    // The other rounds have gone out by now as well: a last sync to be sure, then count.
    await Promise.all(listeners.map((p) => p.sync()));
    assert.equal([...got(sender)].filter((k) => announced.some((a) => key(a) === k)).length, 0, 'nothing back to its sender');
    return counts();
  } finally {
    await target.call('setmocktime', [0]);
    for (const p of [sender, ...listeners]) p.close();
  }
}

test('relay: a reachable address goes to two peers, an unreachable one to one or two', async () => {
  for (const [name, target] of targets()) {
    const t = now();
    const reachable = Array.from({ length: 6 }, (_, i) => ipv4(100 + i, t - 60));
    const unreachable = Array.from({ length: 24 }, (_, i) => (i % 2 === 0 ? ipv6(100 + i, t - 60) : onion(100 + i, t - 60)));
    const counts = await relayCounts(target, [...reachable, ...unreachable]);
    assert.deepEqual(counts.slice(0, 6), [2, 2, 2, 2, 2, 2], `${name}: reachable`);
    const rest = counts.slice(6);
    assert.ok(rest.every((c) => c === 1 || c === 2), `${name}: ${rest}`);
    // A keyed coin per address: 24 heads in a row would be a one-in-16-million chance.
    assert.ok(rest.includes(1) && rest.includes(2), `${name}: ${rest}`);
    // Relayed, never stored.
    assert.equal((await target.call('getaddrmaninfo')).ipv6.total, 0, name);
  }
});

test('manual connections are not limited by -onlynet: -connect and addnode reach an IPv4 peer with -onlynet=ipv6', async () => {
  const blocks = buildChain(1, now() - 10);
  const [a, b, c] = await Promise.all([0, 1, 2].map(() => ChainServer.start(blocks, { serveBlocks: true })));
  const manual = await Daemon.start({ args: ['-onlynet=ipv6', `-connect=${a!.address}`] });
  try {
    const manualPeer = async (target: Target, address: string) =>
      waitFor(`the manual connection to ${address}`, async () => (await target.call<any[]>('getpeerinfo')).find((p) => p.addr === address && p.connection_type === 'manual' && p.version > 0));
    await manualPeer(manual, a!.address);
    await manual.call('addnode', [b!.address, 'onetry']);
    await manualPeer(manual, b!.address);
    const ipv4 = ((await manual.call('getnetworkinfo')).networks as any[]).find((n) => n.name === 'ipv4');
    assert.deepEqual([ipv4.reachable, ipv4.limited], [false, true]);
    if (!('missing' in reference)) {
      const coreManual = await BitcoindProcess.start(reference.path, ['-disablewallet', '-dnsseed=0', '-fixedseeds=0', '-onlynet=ipv6', `-connect=${c!.address}`]);
      try {
        await manualPeer(coreManual, c!.address);
        await coreManual.call('addnode', [b!.address, 'onetry']);
        await manualPeer(coreManual, b!.address);
      } finally {
        await coreManual.stop();
      }
    }
  } finally {
    await manual.cleanup();
    for (const s of [a, b, c]) s!.close();
  }
});
