/**
 * -blockfilterindex through the daemon: blocks with wallet spends are mined, and every
 * getblockfilter answer (served by the HTTP front-ends from their snapshots) must be the
 * filter recomputed here from getblock's block and prevouts (verbosity 3), with headers
 * chained from zero. Then getindexinfo, Core's errors, a reorg, restarts with and without
 * the index (it catches up what it missed) and the unknown-value init error.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { after, before, test } from 'node:test';
import { concatBytes, encodeGcs, fromHex, hashToHex, hexToHash, sha256d, sipKeyFromBytes, toHex } from '../../src/primitives/index.js';
import { FOREIGN_ADDRESS, mineWithSpends } from '../support/regtest-mining.js';
import { TestWallet } from '../support/wallet.js';
import { Daemon, runToExit, tempDir, waitFor } from './daemon-harness.js';

const ARGS = ['-blockfilterindex', '-rpcfrontends=2'];
const INDEX = 'basic block filter index';
const ZERO = '00'.repeat(32);
let d: Daemon;
/** Active-chain hashes by height, as mined. */
let hashes: string[];

interface FilterResult {
  filter: string;
  header: string;
}

before(async () => {
  d = await Daemon.start({ args: ARGS });
  const wallet = new TestWallet(158);
  // Past coinbase maturity, so the last blocks spend earlier outputs (prevout scripts in the filters).
  const stats = await mineWithSpends(d, wallet, 0, 110, { seed: 158 });
  assert.ok(stats.blocksWithTransactions.length >= 8, `blocks with spends: ${stats.blocksWithTransactions.length}`);
  hashes = [await d.call<string>('getblockhash', [0]), ...stats.hashes];
});
after(async () => {
  await d.cleanup();
});

const error = async (method: string, params: unknown[]) => (await d.rpc(method, params)).json.error;

/**
 * BIP158's basic filter computed here from getblock verbosity 3: every output script but
 * empty and OP_RETURN ones, every spent script but empty ones, each once.
 */
async function expectedFilter(hash: string): Promise<{ filter: string; spent: number }> {
  const block = await d.call('getblock', [hash, 3]);
  const scripts = new Set<string>();
  let spent = 0;
  for (const tx of block.tx) {
    for (const out of tx.vout) if (out.scriptPubKey.hex !== '' && !out.scriptPubKey.hex.startsWith('6a')) scripts.add(out.scriptPubKey.hex);
    for (const input of tx.vin) {
      if (!input.prevout) continue;
      spent++;
      if (input.prevout.scriptPubKey.hex !== '') scripts.add(input.prevout.scriptPubKey.hex);
    }
  }
  const filter = encodeGcs(sipKeyFromBytes(hexToHash(hash)), [...scripts].map(fromHex), { P: 19, M: 784931 });
  return { filter: toHex(filter), spent };
}

/** The display-order header chained from the previous display-order header. */
function nextHeader(filterHex: string, prevHeader: string): string {
  return hashToHex(sha256d(concatBytes(sha256d(fromHex(filterHex)), hexToHash(prevHeader))));
}

/** getblockfilter for heights from..to of `chain`, checked against recomputed filters and the header chain. */
async function checkFilters(chain: readonly string[], from: number, to: number, prevHeader: string): Promise<FilterResult[]> {
  const out: FilterResult[] = [];
  let prev = prevHeader;
  for (let h = from; h <= to; h++) {
    const got = await d.call<FilterResult>('getblockfilter', [chain[h]]);
    assert.deepEqual(Object.keys(got), ['filter', 'header']);
    const want = await expectedFilter(chain[h]!);
    assert.equal(got.filter, want.filter, `filter at height ${h}`);
    assert.equal(got.header, nextHeader(got.filter, prev), `header at height ${h}`);
    prev = got.header;
    out.push(got);
  }
  return out;
}

test('getblockfilter: every block’s filter, spent scripts included, and the header chain from zero', async () => {
  await checkFilters(hashes, 0, 110, ZERO);
  // The spends made it into the filters: a block with inputs has more elements than outputs alone give.
  const withSpends = await expectedFilter(hashes[110]!);
  assert.ok(withSpends.spent > 0);
  assert.deepEqual(await d.call('getblockfilter', [hashes[5], 'basic']), await d.call('getblockfilter', [hashes[5]]));
});

test('getindexinfo reports the basic block filter index, by name too', async () => {
  assert.deepEqual(await d.call('getindexinfo'), { [INDEX]: { synced: true, best_block_height: 110 } });
  assert.deepEqual(await d.call('getindexinfo', [INDEX]), { [INDEX]: { synced: true, best_block_height: 110 } });
  assert.deepEqual(await d.call('getindexinfo', ['txindex']), {});
});

test('getblockfilter errors: Core’s codes and texts', async () => {
  assert.deepEqual(await error('getblockfilter', [hashes[1], 'extended']), { code: -5, message: 'Unknown filtertype' });
  assert.deepEqual(await error('getblockfilter', [ZERO]), { code: -5, message: 'Block not found' });
  assert.deepEqual(await error('getblockfilter', ['xyz']), { code: -8, message: "blockhash must be of length 64 (not 3, for 'xyz')" });
  assert.deepEqual(await error('getblockfilter', ['zz'.repeat(32)]), { code: -8, message: `blockhash must be hexadecimal string (not '${'zz'.repeat(32)}')` });
  assert.deepEqual(await error('getblockfilter', [ZERO, 'extended']), { code: -5, message: 'Unknown filtertype' });
  // A block stored but never connected: a rival of the tip with the same work (first seen wins).
  const tip = hashes[110]!;
  await d.call('invalidateblock', [tip]);
  const rival = await d.call<{ hash: string; hex: string }>('generateblock', [FOREIGN_ADDRESS, [], false]);
  await d.call('reconsiderblock', [tip]);
  assert.equal(await d.call('getbestblockhash'), tip);
  await d.call('submitblock', [rival.hex]);
  assert.equal(await d.call('getbestblockhash'), tip);
  assert.deepEqual(await error('getblockfilter', [rival.hash]), { code: -5, message: 'Filter not found. Block was not connected to active chain.' });
});

test('a reorg is followed: new blocks chain from the fork’s header, replaced blocks keep their filters', async () => {
  const before = await checkFilters(hashes, 105, 110, (await d.call<FilterResult>('getblockfilter', [hashes[104]])).header);
  const stale = hashes[108]!;
  await d.call('invalidateblock', [stale]);
  const replacement = await d.call<string[]>('generatetoaddress', [4, FOREIGN_ADDRESS]);
  hashes = [...hashes.slice(0, 108), ...replacement];
  assert.equal(await d.call('getblockcount'), 111);
  await checkFilters(hashes, 108, 111, before[2]!.header);
  assert.deepEqual(await d.call('getindexinfo', [INDEX]), { [INDEX]: { synced: true, best_block_height: 111 } });
  // Core keeps the filters of disconnected blocks (its hash index); so does this index.
  assert.deepEqual(await d.call('getblockfilter', [stale]), before[3]);
});

test('restarts: the index is kept, reports Core’s error while disabled, and catches up what it missed', async () => {
  const sample = [0, 50, 108, 111];
  const kept = await Promise.all(sample.map((h) => d.call<FilterResult>('getblockfilter', [hashes[h]])));
  assert.equal((await d.stop()).code, 0);
  d = await d.restart({ args: ARGS });
  await waitFor('the index to sync', async () => ((await d.call('getindexinfo', [INDEX]))[INDEX]?.synced ? true : undefined));
  assert.deepEqual(await Promise.all(sample.map((h) => d.call<FilterResult>('getblockfilter', [hashes[h]]))), kept);

  assert.equal((await d.stop()).code, 0);
  d = await d.restart({ args: ['-rpcfrontends=2'] });
  assert.deepEqual(await error('getblockfilter', [hashes[1]]), { code: -1, message: 'Index is not enabled for filtertype basic' });
  assert.deepEqual(await error('getblockfilter', [hashes[1], 'extended']), { code: -5, message: 'Unknown filtertype' });
  assert.deepEqual(await d.call('getindexinfo'), {});
  hashes = [...hashes, ...(await d.call<string[]>('generatetoaddress', [3, FOREIGN_ADDRESS]))];

  assert.equal((await d.stop()).code, 0);
  d = await d.restart({ args: [...ARGS, '-txindex'] });
  await waitFor('the indexes to catch up', async () => {
    const info = await d.call('getindexinfo');
    return info[INDEX]?.synced && info[INDEX].best_block_height === 114 && info.txindex?.synced ? info : undefined;
  });
  // Core's order: txindex, coinstatsindex, then the filter indexes.
  assert.deepEqual(Object.keys(await d.call('getindexinfo')), ['txindex', INDEX]);
  await checkFilters(hashes, 111, 114, (await d.call<FilterResult>('getblockfilter', [hashes[110]])).header);
});

test('-blockfilterindex with an unknown type name is an init error: exit 1, Core’s line on stderr', async () => {
  const dir = tempDir();
  try {
    const r = await runToExit(['-regtest', `-datadir=${dir}`, '-printtoconsole=0', '-blockfilterindex=abc']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: Unknown -blockfilterindex value abc.\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
