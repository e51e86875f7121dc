/**
 * Crash safety through real processes: tsbtcd is killed with SIGKILL at random moments
 * while (a) a long generatetoaddress runs and (b) a -loadblock import of block files with
 * transactions runs. After every kill the node is restarted on the same data directory
 * and must load a consistent chainstate: its UTXO set hash equals what -reindex-chainstate
 * of a copy of the same blocks and block index computes at the same tip.
 *
 * The kill moments come from a seeded generator; the seed and every moment are logged
 * (TSBTCD_CRASH_SEED=<seed> replays a run).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, type TestContext } from 'node:test';
import { parseBlock } from '../../src/primitives/index.js';
import { scanBlockFile } from '../../src/storage/index.js';
import { copyChainData, Daemon, frameBlocks, isConnectionError, MESSAGE_START, sleep, tempDir, waitFor } from './daemon-harness.js';
import { mineWithSpends } from '../support/regtest-mining.js';
import { seededRandom, TestWallet } from '../support/wallet.js';

const SEED = Number(process.env['TSBTCD_CRASH_SEED'] ?? 20240531);
const GENERATE_KILLS = 12;
const IMPORT_KILLS = 10;
/** Blocks in the prepared -loadblock files (the first 100 have only coinbases: maturity). */
const FILE_BLOCKS = 300;
/**
 * Blocks per -loadblock file. The import flushes after each file, so a node killed during
 * a later file restarts with a partly imported chain, and the next start goes on from it.
 */
const BLOCKS_PER_FILE = 50;
const ARGS = ['-par=2'];
const READY_MS = 180_000;

interface Consistent {
  daemon: Daemon;
  height: number;
  best: string;
  hashSerialized3: string;
}

/**
 * After a kill: restart on the same data directory, read the tip and the UTXO set hash,
 * stop cleanly, then run -reindex-chainstate on a copy of blocks/ and chainstate/ and
 * require the same tip and hash there.
 */
async function checkConsistent(crashed: Daemon, label: string): Promise<Consistent> {
  const daemon = await crashed.restart({ args: ARGS, readyTimeoutMs: READY_MS });
  try {
    const height = await daemon.call<number>('getblockcount');
    const best = await daemon.call<string>('getbestblockhash');
    assert.equal(await daemon.call('getblockhash', [height]), best, `${label}: getblockhash(getblockcount) is the best block`);
    const info = await daemon.call('gettxoutsetinfo');
    assert.equal(info.height, height, label);
    assert.equal(info.bestblock, best, label);
    assert.deepEqual(await daemon.stop(), { code: 0, signal: null }, `${label}: clean stop after the restart; stderr: ${daemon.stderr}`);
    const copy = copyChainData(daemon);
    try {
      const rebuilt = await Daemon.start({ datadir: copy, args: [...ARGS, '-reindex-chainstate'], readyTimeoutMs: READY_MS });
      try {
        assert.equal(await rebuilt.call('getbestblockhash'), best, `${label}: -reindex-chainstate tip`);
        assert.equal(await rebuilt.call('getblockcount'), height, label);
        assert.equal((await rebuilt.call('gettxoutsetinfo')).hash_serialized_3, info.hash_serialized_3, `${label}: hash_serialized_3 equals -reindex-chainstate's`);
        assert.deepEqual(await rebuilt.stop(), { code: 0, signal: null }, `${label}: clean stop after -reindex-chainstate; stderr: ${rebuilt.stderr}`);
      } finally {
        await rebuilt.cleanup();
      }
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
    return { daemon, height, best, hashSerialized3: info.hash_serialized_3 };
  } catch (err) {
    // The caller only ever holds the crashed handle: the restarted process (and the datadir it now owns) end here.
    await daemon.cleanup();
    throw err;
  }
}

/** debug.log written since `offset` (one run's lines in a data directory several runs share). */
function logSince(daemon: Daemon, offset: number): string {
  try {
    return fs.readFileSync(path.join(daemon.netdir, 'debug.log'), 'utf8').slice(offset);
  } catch {
    return '';
  }
}

/** debug.log of a data directory's regtest folder so far, or nothing before the node wrote one. */
function logSnippet(datadir: string): string {
  try {
    return fs.readFileSync(path.join(datadir, 'regtest', 'debug.log'), 'utf8');
  } catch {
    return '';
  }
}

function logSize(netdir: string): number {
  try {
    return fs.statSync(path.join(netdir, 'debug.log')).size;
  } catch {
    return 0;
  }
}

test('SIGKILL during a long generatetoaddress: every restart loads the chainstate -reindex-chainstate computes', { timeout: 900_000 }, async (t: TestContext) => {
  const random = seededRandom(SEED);
  t.diagnostic(`seed ${SEED} (TSBTCD_CRASH_SEED replays it)`);
  const address = new TestWallet(7).address('p2tr-key');
  let daemon = await Daemon.start({ args: ARGS });
  let kills = 0;
  try {
    let height = 0;
    for (let round = 1; round <= GENERATE_KILLS; round++) {
      if (!daemon.running) daemon = await daemon.restart({ args: ARGS, readyTimeoutMs: READY_MS });
      const delay = 20 + Math.floor(random() * 600);
      // Not awaited: the call is cut off by the kill. Anything but a dropped connection is a failure.
      let callError: unknown;
      const inFlight = daemon.rpc('generatetoaddress', [1_000_000, address]).then(
        (r) => (callError = new Error(`generatetoaddress answered before the kill: ${r.body.slice(0, 200)}`)),
        (err: unknown) => (callError = isConnectionError(err) ? undefined : err),
      );
      await sleep(delay);
      await daemon.kill();
      kills++;
      await inFlight;
      if (callError) throw callError;
      const label = `generate kill ${round} (after ${delay} ms)`;
      const checking = Date.now();
      const state = await checkConsistent(daemon, label);
      t.diagnostic(`${label}: height ${height} -> ${state.height}, utxo ${state.hashSerialized3.slice(0, 16)}, checked in ${Date.now() - checking} ms`);
      // Outside initial download every connected block is committed with its coins: none is lost.
      assert.ok(state.height >= height, `${label}: the tip went back from ${height} to ${state.height}`);
      height = state.height;
      daemon = state.daemon;
    }
    assert.ok(height > 0, 'the generate calls mined blocks before the kills');
  } finally {
    await daemon.cleanup();
  }
  t.diagnostic(`SIGKILLs during generate: ${kills}`);
  assert.equal(kills, GENERATE_KILLS);
});

/** Mines FILE_BLOCKS blocks with transactions on a -blocksxor=0 node and returns them as Core-framed files, with the tip's facts. */
async function prepareBlockFiles(t: TestContext, dir: string): Promise<{ files: string[]; best: string; hashSerialized3: string }> {
  const miner = await Daemon.start({ args: [...ARGS, '-blocksxor=0'] });
  try {
    const stats = await mineWithSpends(miner, new TestWallet(2), 0, FILE_BLOCKS, { seed: SEED, chainRate: 0.35, earlierRate: 0.25 });
    const best = await miner.call<string>('getbestblockhash');
    const hashSerialized3 = (await miner.call('gettxoutsetinfo')).hash_serialized_3 as string;
    assert.deepEqual(await miner.stop(), { code: 0, signal: null });
    // With -blocksxor=0 the node's own block file is plain Core framing: read it back as it is.
    const blkFile = path.join(miner.netdir, 'blocks', 'blk00000.dat');
    assert.deepEqual([...fs.readFileSync(path.join(miner.netdir, 'blocks', 'xor.dat'))], [0, 0, 0, 0, 0, 0, 0, 0]);
    const blocks = [...scanBlockFile(blkFile, MESSAGE_START.regtest, new Uint8Array(8))].map((r) => r.bytes);
    assert.equal(blocks.length, FILE_BLOCKS + 1, 'genesis and every mined block');
    assert.equal(parseBlock(blocks.at(-1)!).header.hashHex, best);
    // Some pairs swapped (never across files), so the import also holds blocks back until their parent comes.
    for (let i = 1; i + 1 < blocks.length; i += 10) [blocks[i], blocks[i + 1]] = [blocks[i + 1]!, blocks[i]!];
    const files: string[] = [];
    for (let first = 0; first < blocks.length; first += BLOCKS_PER_FILE) {
      const file = path.join(dir, `bootstrap-${files.length}.dat`);
      fs.writeFileSync(file, frameBlocks(MESSAGE_START.regtest, blocks.slice(first, first + BLOCKS_PER_FILE)));
      files.push(file);
    }
    t.diagnostic(`block files: ${files.length} with ${blocks.length} blocks, ${stats.transactions} transactions`);
    return { files, best, hashSerialized3 };
  } finally {
    await miner.cleanup();
  }
}

test('SIGKILL during a -loadblock import: every restart loads the chainstate -reindex-chainstate computes', { timeout: 900_000 }, async (t: TestContext) => {
  const random = seededRandom(SEED + 1);
  t.diagnostic(`seed ${SEED} (TSBTCD_CRASH_SEED replays it)`);
  const work = tempDir();
  const datadirs: string[] = [];
  const newDatadir = (): string => {
    const dir = fs.mkdtempSync(path.join(work, 'node-'));
    datadirs.push(dir);
    return dir;
  };
  let daemon: Daemon | undefined;
  let kills = 0;
  try {
    const preparing = Date.now();
    const prepared = await prepareBlockFiles(t, work);
    t.diagnostic(`prepared in ${Date.now() - preparing} ms`);
    const loadArgs = [...ARGS, ...prepared.files.map((f) => `-loadblock=${f}`)];

    // An import without a kill: the whole chain arrives, and it sets the window for kill moments.
    const started = Date.now();
    const firstDir = newDatadir();
    // Start-up ("Done loading") is most of the window now that signatures are native, and its
    // length varies from run to run: kills are aimed into the import that follows it.
    let importStartedAt: number | undefined;
    const watch = setInterval(() => {
      if (importStartedAt === undefined && logSnippet(firstDir).includes('Done loading')) importStartedAt = Date.now();
    }, 5);
    try {
      daemon = await Daemon.start({ datadir: firstDir, args: loadArgs, readyTimeoutMs: READY_MS });
      const full = daemon;
      await waitFor('the import to finish', async () => ((await full.call<number>('getblockcount')) === FILE_BLOCKS ? true : undefined), READY_MS);
    } finally {
      clearInterval(watch);
    }
    const window = Date.now() - started;
    const importSpan = Math.max(20, Date.now() - (importStartedAt ?? started));
    assert.equal(await daemon.call('getbestblockhash'), prepared.best);
    assert.equal((await daemon.call('gettxoutsetinfo')).hash_serialized_3, prepared.hashSerialized3);
    assert.deepEqual(await daemon.stop(), { code: 0, signal: null });
    t.diagnostic(`uninterrupted import: ${window} ms from spawn to height ${FILE_BLOCKS}, the last ${importSpan} ms after start-up`);

    let datadir = newDatadir();
    const phases: string[] = [];
    for (let round = 1; round <= IMPORT_KILLS; round++) {
      const offset = logSize(path.join(datadir, 'regtest'));
      // The kill lands a random moment into what the uninterrupted import took after start-up:
      // while importing, connecting or flushing (or after, once the chain is complete).
      const spawned = Date.now();
      daemon = await Daemon.start({ datadir, args: loadArgs, waitReady: false });
      const starting = daemon;
      await waitFor('start-up to finish', () => (logSince(starting, offset).includes('Done loading') ? true : undefined), READY_MS);
      await sleep(Math.floor(random() * importSpan));
      const delay = Date.now() - spawned;
      const log = logSince(daemon, offset);
      const filesDone = log.match(/Loaded \d+ blocks from external file/g)?.length ?? 0;
      const phase = !log.includes('Done loading') ? 'start-up' : filesDone === prepared.files.length ? 'after the import' : `importing file ${filesDone + 1}`;
      phases.push(phase);
      await daemon.kill();
      kills++;
      const label = `import kill ${round} (${delay} ms after spawn, ${phase})`;
      const checking = Date.now();
      const state = await checkConsistent(daemon, label);
      daemon = state.daemon;
      t.diagnostic(`${label}: height ${state.height}, utxo ${state.hashSerialized3.slice(0, 16)}, checked in ${Date.now() - checking} ms`);
      if (state.height === FILE_BLOCKS) {
        // A finished import must have built exactly the mined chain; the next kills need a fresh node.
        assert.equal(state.best, prepared.best, label);
        assert.equal(state.hashSerialized3, prepared.hashSerialized3, label);
        datadir = newDatadir();
      }
    }
    assert.ok(phases.filter((p) => p.startsWith('importing')).length >= 3, `too few kills landed inside the import: ${phases.join(', ')}`);
  } finally {
    await daemon?.cleanup();
    fs.rmSync(work, { recursive: true, force: true });
  }
  t.diagnostic(`SIGKILLs during import: ${kills}`);
  assert.equal(kills, IMPORT_KILLS);
  // Together with the generate test: at least 20 kills.
  assert.ok(GENERATE_KILLS + kills >= 20);
});
