/**
 * BIP157 serving against Bitcoin Core v31.0: a regtest chain of 1,106 blocks with segwit
 * and taproot spends (and a stale two-block branch, still validated and recent) is built
 * on a bitcoind started with -blockfilterindex=1 -peerblockfilters=1, and its blocks are
 * imported into an in-process tsbtcd Chainstate on LMDB with the basic block filter index.
 * The same getcfilters / getcfheaders / getcfcheckpt requests then go to bitcoind over a
 * raw P2P socket and to answerFilterRequest, and every cfilter, cfheaders and cfcheckpt
 * payload must be the same bytes; requests Core refuses must disconnect on both sides with
 * the same debug-log text, and a node not offering NODE_COMPACT_FILTERS must refuse too.
 * Skipped, with one line, when there is no reference bitcoind.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BlockFilterIndex, blockFilterLookupFromEnv, type Chainstate } from '../../src/chain/index.js';
import {
  answerFilterRequest,
  decodeCFilter,
  decodeCFHeaders,
  encodeGetCFCheckpt,
  encodeGetCFHeaders,
  encodeGetCFilters,
  filterLookupFromView,
  type BlockFilterLookup,
  type FilterRequestCommand,
  NODE_COMPACT_FILTERS,
} from '../../src/net/index.js';
import { ByteReader, concatBytes, DecodeError, fromHex, hexToHash, parseBlock, toHex } from '../../src/primitives/index.js';
import { openIndexesEnv } from '../../src/storage/index.js';
import { chainFixture } from '../support/chainstate.js';
import { FOREIGN_ADDRESS, mineWithSpends } from '../support/regtest-mining.js';
import { TestWallet } from '../support/wallet.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { waitFor } from './daemon-harness.js';
import { TestPeer } from './p2p-test-peer.js';

const INDEX = 'basic block filter index';
const RESPONSES = new Set(['cfilter', 'cfheaders', 'cfcheckpt']);

interface Message {
  command: string;
  payload: string;
}

/** Sends one request to bitcoind and returns the filter messages it answered with (everything before the pong). */
async function ask(peer: TestPeer, command: FilterRequestCommand, payload: Uint8Array): Promise<Message[]> {
  const mark = peer.received.length;
  peer.send(command, payload);
  await peer.sync(60_000);
  return peer.received.slice(mark).filter((f) => RESPONSES.has(f.command)).map((f) => ({ command: f.command, payload: toHex(f.payload) }));
}

/** Our answer, which must be messages to send. */
function ours(command: FilterRequestCommand, payload: Uint8Array, chain: Chainstate, index: BlockFilterLookup): Message[] {
  const answer = answerFilterRequest(command, payload, { servingFilters: true, chain, index, log: (m) => assert.fail(`unexpected log: ${m}`) });
  assert.ok('send' in answer, JSON.stringify(answer));
  return answer.send.map((m) => ({ command: m.command, payload: toHex(m.payload) }));
}

/** bitcoind's debug.log, for the lines its disconnects write. */
function debugLog(node: BitcoindProcess): string {
  return readFileSync(join(node.datadir, 'regtest', 'debug.log'), 'utf8');
}

/** Connects, sends a request bitcoind refuses, and waits for its disconnect and log line. */
async function expectDisconnect(node: BitcoindProcess, command: FilterRequestCommand, payload: Uint8Array, text: string): Promise<void> {
  const peer = await TestPeer.connect(node.p2pPort);
  try {
    peer.send(command, payload);
    await peer.waitClosed(30_000);
    await waitFor(`bitcoind to log "${text}"`, () => (debugLog(node).includes(`${text}, disconnecting peer=`) ? true : undefined));
  } finally {
    peer.close();
  }
}

test('getcfilters, getcfheaders and getcfcheckpt answered byte for byte as bitcoind v31.0 answers them', { timeout: 900_000 }, async (t) => {
  const reference = referenceBitcoind();
  if ('missing' in reference) return t.skip(reference.missing);
  const node = await BitcoindProcess.start(reference.path, ['-listen=1', '-blockfilterindex=1', '-peerblockfilters=1', '-debug=net']);
  const fixture = chainFixture();
  let plain: BitcoindProcess | undefined;
  let peer: TestPeer | undefined;
  try {
    // ---------------------------------------------------------------- the chain, on bitcoind
    const wallet = new TestWallet(157);
    await mineWithSpends(node, wallet, 0, 140, { seed: 157 });
    for (let height = 140; height < 1090; height += 475) await node.call('generatetoaddress', [Math.min(475, 1090 - height), FOREIGN_ADDRESS]);
    // Spends past the first checkpoint too.
    await mineWithSpends(node, wallet, 1090, 15, { seed: 1157 });
    assert.equal(await node.call('getblockcount'), 1105);
    const original: string[] = [];
    for (let h = 0; h <= 1105; h++) original.push(await node.call<string>('getblockhash', [h]));
    // A stale branch: 1104 and 1105 replaced by three blocks (which re-mine their transactions
    // from the mempool), then reconsidered so the stale blocks are valid again, as a
    // reorganisation leaves them.
    await node.call('invalidateblock', [original[1104]]);
    const replacement = await node.call<string[]>('generatetoaddress', [3, FOREIGN_ADDRESS]);
    await node.call('reconsiderblock', [original[1104]]);
    assert.equal(await node.call('getbestblockhash'), replacement[2]);
    const stale = original.slice(1104);
    const active = [...original.slice(0, 1104), ...replacement];
    assert.equal((await node.call<{ status: string; height: number }[]>('getchaintips')).find((tip) => tip.status === 'valid-fork')?.height, 1105);
    await waitFor('bitcoind’s filter index', async () => {
      const info = (await node.call('getindexinfo', [INDEX]))[INDEX];
      return info?.synced && info.best_block_height === 1106 ? true : undefined;
    }, 60_000);

    // ---------------------------------------------------------------- the same blocks, into tsbtcd
    const blockHex = async (hash: string) => fromHex(await node.call<string>('getblock', [hash, 0]));
    const holder: { index?: BlockFilterIndex } = {};
    const tipTime = (await node.call<{ time: number }>('getblockheader', [replacement[2]])).time;
    fixture.clock.now = Math.max(Math.floor(Date.now() / 1000), tipTime) + 60;
    const { chain, close } = await fixture.openWith({ events: { blockConnected: (b, e) => holder.index?.blockConnected(b, e) } });
    let index: BlockFilterIndex | undefined;
    try {
      // The original chain first, the index caught up on it (stale blocks included) ...
      for (const hash of original.slice(1)) {
        const bytes = await blockHex(hash);
        const result = await chain.processBlock(parseBlock(bytes), bytes);
        assert.ok(result.accepted, `block ${hash}`);
      }
      assert.equal(chain.tip!.hashHex, original[1105]);
      index = BlockFilterIndex.open(fixture.dir, chain, () => undefined);
      holder.index = index;
      await index.start();
      // ... then the replacement, which the index follows through the reorganisation.
      for (const hash of replacement) {
        const bytes = await blockHex(hash);
        assert.ok((await chain.processBlock(parseBlock(bytes), bytes)).accepted, `block ${hash}`);
      }
      assert.equal(chain.tip!.hashHex, replacement[2]);
      await waitFor('tsbtcd’s filter index', () => {
        const info = index!.info();
        return info.synced && info.best_block_height === 1106 ? true : undefined;
      }, 60_000);

      // ---------------------------------------------------------------- the same requests, both sides
      peer = await TestPeer.connect(node.p2pPort);
      assert.equal(peer.handshake.peerVersion!.services & NODE_COMPACT_FILTERS, NODE_COMPACT_FILTERS);
      const stop = (hex: string) => hexToHash(hex);
      const requests: [FilterRequestCommand, Uint8Array, string][] = [
        ['getcfilters', encodeGetCFilters({ filterType: 0, startHeight: 0, stopHash: stop(active[999]!) }), 'the most filters allowed, from genesis'],
        ['getcfilters', encodeGetCFilters({ filterType: 0, startHeight: 1000, stopHash: stop(active[1106]!) }), 'filters to the tip'],
        ['getcfilters', encodeGetCFilters({ filterType: 0, startHeight: 1095, stopHash: stop(active[1095]!) }), 'one block with spends'],
        ['getcfilters', encodeGetCFilters({ filterType: 0, startHeight: 1100, stopHash: stop(stale[1]!) }), 'filters up a stale branch'],
        ['getcfilters', concatBytes(encodeGetCFilters({ filterType: 0, startHeight: 1105, stopHash: stop(active[1106]!) }), Uint8Array.of(0xde, 0xad)), 'a request with bytes after its fields'],
        ['getcfheaders', encodeGetCFHeaders({ filterType: 0, startHeight: 0, stopHash: stop(active[1106]!) }), 'every filter hash'],
        ['getcfheaders', encodeGetCFHeaders({ filterType: 0, startHeight: 1, stopHash: stop(active[1000]!) }), 'hashes after genesis’s header'],
        ['getcfheaders', encodeGetCFHeaders({ filterType: 0, startHeight: 1050, stopHash: stop(stale[1]!) }), 'hashes up a stale branch'],
        ['getcfheaders', encodeGetCFHeaders({ filterType: 0, startHeight: 1104, stopHash: stop(stale[0]!) }), 'one stale block'],
        ['getcfcheckpt', encodeGetCFCheckpt({ filterType: 0, stopHash: stop(active[1106]!) }), 'checkpoints to the tip'],
        ['getcfcheckpt', encodeGetCFCheckpt({ filterType: 0, stopHash: stop(active[999]!) }), 'no checkpoint yet'],
        ['getcfcheckpt', encodeGetCFCheckpt({ filterType: 0, stopHash: stop(active[1000]!) }), 'the first checkpoint exactly'],
        ['getcfcheckpt', encodeGetCFCheckpt({ filterType: 0, stopHash: stop(stale[1]!) }), 'checkpoints of a stale block'],
      ];
      const viewLookup = filterLookupFromView(index.view);
      const answers: Message[][] = [];
      for (const [command, payload, what] of requests) {
        const theirs = await ask(peer, command, payload);
        assert.ok(theirs.length > 0, `bitcoind answered ${what}`);
        assert.deepEqual(ours(command, payload, chain, viewLookup), theirs, what);
        answers.push(theirs);
      }
      assert.equal(answers[0]!.length, 1000);
      assert.equal(answers[1]!.length, 107);
      assert.equal(decodeCFHeaders(fromHex(answers[5]![0]!.payload)).filterHashes.length, 1107);
      // The filters compared are not trivial: blocks with spends have several elements.
      const elements = (m: Message) => new ByteReader(decodeCFilter(fromHex(m.payload)).filter).compactSize();
      assert.ok(elements(answers[2]![0]!) >= 4, `elements in block 1095's filter: ${elements(answers[2]![0]!)}`);
      assert.deepEqual(answers[3]!.slice(-2).map((m) => toHex(decodeCFilter(fromHex(m.payload)).blockHash)), stale.map((h) => toHex(hexToHash(h))));

      // A request too short for its fields: Core logs the exception and keeps the peer; we throw DecodeError.
      const short = encodeGetCFilters({ filterType: 0, startHeight: 0, stopHash: stop(active[5]!) }).subarray(0, 20);
      assert.deepEqual(await ask(peer, 'getcfilters', short), []);
      assert.ok(!peer.closed);
      assert.throws(() => answerFilterRequest('getcfilters', short, { servingFilters: true, chain, index: viewLookup }), DecodeError);

      // ---------------------------------------------------------------- refusals, both sides
      const refusals: [FilterRequestCommand, Uint8Array][] = [
        ['getcfilters', encodeGetCFilters({ filterType: 1, startHeight: 0, stopHash: stop(active[10]!) })],
        ['getcfcheckpt', encodeGetCFCheckpt({ filterType: 255, stopHash: stop(active[10]!) })],
        ['getcfheaders', encodeGetCFHeaders({ filterType: 0, startHeight: 0, stopHash: new Uint8Array(32).fill(0x42) })],
        ['getcfilters', encodeGetCFilters({ filterType: 0, startHeight: 500, stopHash: stop(active[499]!) })],
        ['getcfheaders', encodeGetCFHeaders({ filterType: 0, startHeight: 0xffffffff, stopHash: stop(stale[0]!) })],
        ['getcfilters', encodeGetCFilters({ filterType: 0, startHeight: 0, stopHash: stop(active[1000]!) })],
      ];
      for (const [command, payload] of refusals) {
        const answer = answerFilterRequest(command, payload, { servingFilters: true, chain, index: viewLookup });
        assert.ok('disconnect' in answer, JSON.stringify(answer));
        await expectDisconnect(node, command, payload, answer.disconnect);
      }
      assert.ok(debugLog(node).includes('peer requested too many cfilters/cfheaders: 1001 / 1000, disconnecting peer='));

      // ---------------------------------------------------------------- the env adapter gives the same answers
      await index.close();
      holder.index = index = undefined;
      const env = openIndexesEnv(fixture.dir);
      try {
        const envLookup = blockFilterLookupFromEnv(env);
        requests.forEach(([command, payload, what], i) => assert.deepEqual(ours(command, payload, chain, envLookup), answers[i], `${what}, through the env`));
      } finally {
        await env.close();
      }

      // ---------------------------------------------------------------- not serving: disconnected whatever is asked
      plain = await BitcoindProcess.start(reference.path, ['-listen=1', '-blockfilterindex=1', '-debug=net']);
      const request = encodeGetCFCheckpt({ filterType: 0, stopHash: stop(active[0]!) });
      const answer = answerFilterRequest('getcfcheckpt', request, { servingFilters: false, chain, index: viewLookup });
      assert.ok('disconnect' in answer && answer.disconnect === 'peer requested unsupported block filter type: 0', JSON.stringify(answer));
      await expectDisconnect(plain, 'getcfcheckpt', request, answer.disconnect);
    } finally {
      await index?.close();
      await close();
    }
  } finally {
    peer?.close();
    fixture.remove();
    await Promise.all([node.stop(), plain?.stop()]);
  }
});
