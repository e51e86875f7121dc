/**
 * Initial sync over P2P against scripted peers (no reference bitcoind needed):
 *  - IBD from four peers, one of which announces the chain but never sends a block: the
 *    node detects the staller holding up the download window, disconnects it, and
 *    finishes from the others;
 *  - restart mid-IBD: SIGKILL at ten random moments, each restart resumes, and the final
 *    UTXO set equals the one -reindex-chainstate computes;
 *  - inbound slots: with -maxconnections=125 the node takes Core's 114 inbound peers
 *    (125 less 8 full-relay, 2 block-relay-only and 1 feeler outbound slots), and the next
 *    one evicts the youngest unprotected inbound peer.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { generateChain } from '../../native-bench/import-chain.js';
import { parseBlock } from '../../src/primitives/index.js';
import { scanBlockFile } from '../../src/storage/index.js';
import { Daemon, MESSAGE_START, sleep, tempDir, waitFor } from './daemon-harness.js';
import { buildChain, ChainServer, TestPeer } from './p2p-test-peer.js';
import { Socks5Server } from './socks5-server.js';

const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function call<T = any>(node: Daemon, method: string, params: unknown[] = []): Promise<T> {
  const r = await node.rpc(method, params);
  if (r.json?.error) throw new Error(`${method}: ${JSON.stringify(r.json.error)}`);
  return r.json.result as T;
}

test('IBD from four peers finishes although one stalls; the staller is disconnected', async () => {
  const blocks = buildChain(1400, Math.floor(Date.now() / 1000) - 1500);
  // The staller takes one connection: the node's -connect loop would otherwise bring it back,
  // and near the tip (no window left to block) only Core's 10-minute download timeout ends it.
  const servers = await Promise.all([0, 1, 2, 3].map((i) => ChainServer.start(blocks, { serveBlocks: i !== 0, once: i === 0 })));
  cleanups.push(() => servers.forEach((s) => s.close()));
  const node = await Daemon.start({ args: [...servers.map((s) => `-connect=${s.address}`), '-debug=net'] });
  cleanups.push(() => node.cleanup());
  const tipHash = blocks[blocks.length - 1]!.header.hashHex;
  await waitFor('the node to reach the tip', async () => ((await call(node, 'getbestblockhash')) === tipHash ? true : undefined), 120_000);
  const log = node.debugLog();
  assert.match(log, /Peer is stalling block download, disconnecting peer=\d+/);
  // The staller was asked for blocks it never sent; every block still arrived from the others.
  assert.ok(servers[0]!.requested.size > 0);
  assert.ok(servers[0]!.peers.some((p) => p.closed), 'the staller\'s connection was closed by the node');
  assert.equal(await call(node, 'getblockcount'), 1400);
});

test('SIGKILL at ten random moments of IBD: each restart resumes, the end state equals -reindex-chainstate', async (t) => {
  const dir = tempDir();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'chain.blk');
  const meta = await generateChain(file, { transactions: 20_000, txPerBlock: 50, assumeValidTail: false }, 2);
  const blocks = [...scanBlockFile(file, MESSAGE_START.regtest, new Uint8Array(8))].map((s) => parseBlock(s.bytes));
  assert.equal(blocks.length, meta.blocks);
  // A peer that sends a block every 10 ms: the sync takes several seconds, so the kills land in it.
  const server = await ChainServer.start(blocks, { serveBlocks: true, blockDelayMs: 10 });
  cleanups.push(() => server.close());
  let node = await Daemon.start({ args: [`-connect=${server.address}`, '-assumevalid=0'] });
  cleanups.push(() => node.cleanup());
  const heights: number[] = [];
  const connectedAtKill: number[] = [];
  for (let i = 0; i < 10; i++) {
    await sleep(100 + Math.floor(Math.random() * 2900));
    // How far this run had connected (its UpdateTip lines), whatever it had flushed.
    const run = node.debugLog().split('Done loading').pop()!;
    const tips = [...run.matchAll(/UpdateTip: new best=[0-9a-f]{64} height=(\d+)/g)];
    connectedAtKill.push(tips.length > 0 ? Number(tips[tips.length - 1]![1]) : heights[heights.length - 1] ?? 0);
    await node.kill();
    node = await node.restart({ args: [`-connect=${server.address}`, '-assumevalid=0'], readyTimeoutMs: 60_000 });
    heights.push(await call<number>(node, 'getblockcount'));
  }
  await waitFor('the node to reach the tip', async () => ((await call(node, 'getbestblockhash')) === meta.lastHash ? true : undefined), 180_000);
  t.diagnostic(`connected height at each kill: ${connectedAtKill.join(', ')}; stored height after each restart: ${heights.join(', ')} (tip ${meta.blocks})`);
  const synced = await call(node, 'gettxoutsetinfo');
  await node.stop();
  node = await node.restart({ args: ['-reindex-chainstate', '-connect=0'], readyTimeoutMs: 120_000 });
  await waitFor('the reindex to finish', async () => ((await call(node, 'getbestblockhash')) === meta.lastHash ? true : undefined), 180_000);
  const rebuilt = await call(node, 'gettxoutsetinfo');
  assert.equal(rebuilt.hash_serialized_3, synced.hash_serialized_3);
  assert.equal(rebuilt.height, meta.blocks);
  // The kills landed inside the sync, with blocks connected and more to come.
  assert.ok(connectedAtKill.some((h) => h > 0 && h < meta.blocks), `connected heights at the kills: ${connectedAtKill.join(', ')}`);
});

test('125 connections: 114 inbound slots, then Core\'s eviction makes room', async () => {
  const node = await Daemon.start({ args: ['-maxconnections=125'] });
  cleanups.push(() => node.cleanup());
  const peers: TestPeer[] = [];
  cleanups.push(() => peers.forEach((p) => p.close()));
  for (let i = 0; i < 114; i++) peers.push(await TestPeer.connect(node.p2pPort));
  const info = await call(node, 'getnetworkinfo');
  assert.equal(info.connections_in, 114);
  // One more: the node evicts an unprotected inbound peer (the youngest of the largest group) and keeps the newcomer.
  const extra = await TestPeer.connect(node.p2pPort);
  peers.push(extra);
  await waitFor('an eviction', () => (peers.some((p) => p.closed) ? true : undefined));
  await extra.sync();
  assert.equal((await call(node, 'getnetworkinfo')).connections_in, 114);
  assert.equal(peers.filter((p) => p.closed).length, 1);
});

test('-proxy: outbound connections go through SOCKS5 with per-connection credentials, and sync works through it', async () => {
  const blocks = buildChain(50, Math.floor(Date.now() / 1000) - 100);
  const server = await ChainServer.start(blocks, { serveBlocks: true });
  const proxy = await Socks5Server.start();
  cleanups.push(() => (server.close(), proxy.close()));
  const node = await Daemon.start({ args: [`-proxy=127.0.0.1:${proxy.port}`, `-connect=${server.address}`] });
  cleanups.push(() => node.cleanup());
  const tipHash = blocks[blocks.length - 1]!.header.hashHex;
  await waitFor('the node to sync through the proxy', async () => ((await call(node, 'getbestblockhash')) === tipHash ? true : undefined), 60_000);
  // Every connection went through the proxy, each with credentials of its own.
  assert.ok(proxy.connects.length >= 1);
  assert.ok(proxy.connects.every((c) => c.host === '127.0.0.1' && c.port === server.port), JSON.stringify(proxy.connects));
  assert.equal(new Set(proxy.connects.map((c) => c.username)).size, proxy.connects.length);
  assert.equal(server.peers.length, proxy.connects.length);
  const networks = (await call(node, 'getnetworkinfo')).networks;
  assert.deepEqual(
    networks.map((n: any) => [n.name, n.proxy, n.proxy_randomize_credentials]),
    [['ipv4', `127.0.0.1:${proxy.port}`, true], ['ipv6', `127.0.0.1:${proxy.port}`, true], ['onion', `127.0.0.1:${proxy.port}`, true], ['i2p', '', false], ['cjdns', `127.0.0.1:${proxy.port}`, true]],
  );
});

test('-peerblockfilters: NODE_COMPACT_FILTERS offered and BIP157 requests answered from the filter index', async () => {
  const node = await Daemon.start({ args: ['-blockfilterindex', '-peerblockfilters'] });
  cleanups.push(() => node.cleanup());
  await call(node, 'generatetoaddress', [20, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080']);
  await waitFor('the filter index to catch up', async () => ((await call(node, 'getindexinfo'))['basic block filter index']?.synced ? true : undefined));
  const peer = await TestPeer.connect(node.p2pPort);
  cleanups.push(() => peer.close());
  assert.ok((peer.handshake.peerVersion!.services & (1n << 6n)) !== 0n, 'NODE_COMPACT_FILTERS is offered');
  const tip = Buffer.from(await call<string>(node, 'getbestblockhash'), 'hex').reverse();
  peer.send('getcfcheckpt', Uint8Array.from([0, ...tip]));
  await waitFor('cfcheckpt', () => (peer.received.some((f) => f.command === 'cfcheckpt') ? true : undefined));
  peer.send('getcfilters', Uint8Array.from([0, 1, 0, 0, 0, ...tip]));
  await waitFor('20 cfilter messages', () => (peer.received.filter((f) => f.command === 'cfilter').length === 20 ? true : undefined));
  const refused = await Daemon.start({ args: ['-peerblockfilters'], waitReady: false });
  cleanups.push(() => refused.cleanup());
  const exit = await refused.exited;
  assert.equal(exit.code, 1);
  assert.match(refused.stderr, /Cannot set -peerblockfilters without -blockfilterindex\./);
});

test('headers presync: a chain below -minimumchainwork is never stored; one that reaches it is redownloaded and accepted', async () => {
  // Regtest blocks carry 2 units of work each (genesis included).
  const blocks = buildChain(2100, Math.floor(Date.now() / 1000) - 2200);
  const server = await ChainServer.start(blocks, { serveBlocks: true });
  cleanups.push(() => server.close());
  const workOf = (height: number) => `0x${(2 * (height + 1)).toString(16)}`;
  // Too little work in the whole chain: presync runs through it and gives up, storing nothing.
  const low = await Daemon.start({ args: [`-connect=${server.address}`, `-minimumchainwork=${workOf(3000)}`, '-debug=net'] });
  cleanups.push(() => low.cleanup());
  await waitFor('the presync to end', () => (/Initial headers sync aborted with peer=\d+: incomplete headers message at height=2100 \(presync phase\)/.test(low.debugLog()) ? true : undefined), 60_000);
  assert.match(low.debugLog(), /Initial headers sync started with peer=\d+: height=0/);
  assert.deepEqual((await call<any[]>(low, 'getchaintips')).map((t) => t.height), [0]);
  // Enough work by height 2050: the chain is downloaded again, checked against the commitments, stored and synced.
  const enough = await Daemon.start({ args: [`-connect=${server.address}`, `-minimumchainwork=${workOf(2050)}`, '-debug=net'] });
  cleanups.push(() => enough.cleanup());
  const tipHash = blocks[blocks.length - 1]!.header.hashHex;
  await waitFor('the node to sync the chain', async () => ((await call(enough, 'getbestblockhash')) === tipHash ? true : undefined), 120_000);
  const log = enough.debugLog();
  assert.match(log, /Initial headers sync transition with peer=\d+: reached sufficient work at height=2100, redownloading from height=0/);
  assert.match(log, /Initial headers sync complete with peer=\d+: releasing all at height=2100 \(redownload phase\)/);
});
