/**
 * Storage across real processes: a forked writer (storage-child.ts) commits batches while
 * this process reads read-only snapshots, and is killed with SIGKILL at random moments;
 * after each kill the state on disk must hold every batch wholly or not at all, and every
 * committed block index entry must point at a readable block.
 */
import assert from 'node:assert/strict';
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import {
  BlockFileStore,
  CHAINSTATE_META,
  openChainstateEnv,
  scanBlocksDir,
  type ChainstateReader,
} from '../../src/storage/index.js';
import {
  BLOCK_FILE_TEST_SIZE,
  blockForHeight,
  COINS_PER_BATCH,
  COUNTER_BLOB_EVERY,
  COUNTER_KEYS,
  counterBlob,
  filledHash,
  numberedHash,
  REGTEST_MAGIC,
  seeded,
  withTempDir,
} from './storage-fixtures.js';

const CHILD = fileURLToPath(new URL('./storage-child.js', import.meta.url));

/** Forks a writer and resolves once it has committed its first batches. */
async function startWriter(mode: 'counter' | 'batches' | 'blocks', netdir: string): Promise<ChildProcess> {
  const child = fork(CHILD, [mode, netdir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code, signal) => reject(new Error(`writer exited before ready: ${code ?? signal}`)));
  });
  return child;
}

async function killHard(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  const [code, signal] = (await exited) as [number | null, NodeJS.Signals | null];
  assert.equal(signal, 'SIGKILL', `writer ended by itself (code ${code}) instead of being killed`);
}

/** One counter-mode snapshot: the batch number, after checking no key is from another batch. */
function counterState(r: ChainstateReader): number {
  const i = r.meta(CHAINSTATE_META.flushedHeight);
  assert.ok(i !== undefined);
  for (let h = 0; h < COUNTER_KEYS; h++) {
    assert.deepEqual(r.activeHash(h), filledHash(i), `snapshot of batch ${i} holds key ${h} from another batch`);
  }
  // The newest large value, on pages the writer may have mapped after this process opened.
  const blobAt = i - (i % COUNTER_BLOB_EVERY);
  if (blobAt > 0) assert.deepEqual(r.undo(numberedHash(blobAt)), counterBlob(blobAt));
  return i;
}

test('a reader process sees each commit at once (same event-loop turn) and never half a batch', { timeout: 60_000 }, async () => {
  await withTempDir(async (netdir) => {
    const writer = await startWriter('counter', netdir);
    const env = openChainstateEnv(netdir, { readOnly: true });
    try {
      // A snapshot held across awaits keeps its view while hundreds of batches commit.
      const held = env.withSnapshot(async (r) => {
        const first = counterState(r);
        await sleep(300);
        return { first, again: counterState(r) };
      });

      // One synchronous loop, no await: each withSnapshot must still see the newest state.
      const seen = new Set<number>();
      let last = 0;
      const deadline = Date.now() + 3000;
      while (Date.now() < deadline && seen.size < 100) {
        const i = env.withSnapshot(counterState);
        assert.ok(i >= last, `snapshot went back from ${last} to ${i}`);
        last = i;
        seen.add(i);
      }
      assert.ok(seen.size >= 10, `only ${seen.size} distinct states seen within one turn`);

      const { first, again } = await held;
      assert.equal(again, first, 'the held snapshot did not move');
      assert.ok(last > first, 'the writer moved on meanwhile');
    } finally {
      await killHard(writer);
      await env.close();
    }
  });
});

/** After a kill in batches mode: every batch up to flushedHeight complete, none beyond. */
function checkBatches(r: ChainstateReader): number {
  const top = r.meta(CHAINSTATE_META.flushedHeight) ?? 0;
  assert.equal(r.activeTipHeight(), top, 'active chain and flushedHeight disagree');
  let activeCount = 0;
  for (const { height, hash } of r.activeChain({ from: 1 })) {
    assert.deepEqual(hash, numberedHash(height));
    activeCount++;
  }
  assert.equal(activeCount, top);
  for (let i = Math.max(1, top - 3); i <= top + 3; i++) {
    const live = i <= top && i >= top - 1;
    const coins = [...r.coinsOf(numberedHash(i))];
    assert.equal(coins.length, live ? COINS_PER_BATCH : 0, `batch ${i} of top ${top}: ${coins.length} coins`);
    for (const { coin } of coins) assert.equal(coin.output.value, BigInt(i));
    const undo = r.undo(numberedHash(i));
    assert.equal(undo !== undefined, i <= top && i % 7 === 0, `undo of batch ${i} of top ${top}`);
  }
  assert.equal([...r.allCoins()].length, COINS_PER_BATCH * Math.min(top, 2));
  return top;
}

/**
 * Runs writer processes one after another on one directory, each SIGKILLed after a random
 * delay; after each, `check` opens the directory, verifies it and returns the committed
 * top, which must have moved past the previous one by at least the batches committed
 * before the writer reported ready (so every restart also proves the writer recovers).
 */
async function crashRounds(mode: 'batches' | 'blocks', seed: number, rounds: number, initialTop: number, check: (netdir: string) => Promise<number>): Promise<void> {
  await withTempDir(async (netdir) => {
    const random = seeded(seed);
    let previous = initialTop;
    for (let round = 0; round < rounds; round++) {
      const writer = await startWriter(mode, netdir);
      await sleep(10 + (random() % 150));
      await killHard(writer);
      const top = await check(netdir);
      assert.ok(top >= previous + 5, `round ${round}: no progress past ${previous} (at ${top})`);
      previous = top;
    }
  });
}

async function withReadOnlyEnv<T>(netdir: string, fn: (r: ChainstateReader) => T): Promise<T> {
  const env = openChainstateEnv(netdir, { readOnly: true });
  try {
    return env.withSnapshot(fn);
  } finally {
    await env.close();
  }
}

test('SIGKILL during a stream of batches: each batch is wholly present or wholly absent', { timeout: 120_000 }, async () => {
  await crashRounds('batches', 0xc0a5e001, 6, 0, (netdir) => withReadOnlyEnv(netdir, checkBatches));
});

/** After a kill in blocks mode: every index entry reads back its block; file info counts them. */
async function checkBlocks(netdir: string): Promise<number> {
  const { top, entries, fileInfo } = await withReadOnlyEnv(netdir, (r) => ({
    top: r.meta(CHAINSTATE_META.flushedHeight) ?? -1,
    entries: [...r.blockIndexEntries()],
    fileInfo: [...r.fileInfos()],
  }));
  assert.equal(entries.length, top + 1, 'one index entry per committed height');
  const store = BlockFileStore.open(join(netdir, 'blocks'), REGTEST_MAGIC, { readOnly: true, maxFileSize: BLOCK_FILE_TEST_SIZE, fileInfo });
  for (const { hash, record } of entries) {
    assert.deepEqual(hash, numberedHash(record.height));
    const block = store.readBlock({ file: record.dataFile, pos: record.dataPos });
    assert.deepEqual(block, blockForHeight(record.height), `block ${record.height}`);
  }
  const counted = fileInfo.reduce((sum, [, info]) => sum + info.blocks, 0);
  assert.equal(counted, top + 1, 'file info counts exactly the committed blocks');
  // A reindex scan finds every committed block (and perhaps an appended, uncommitted one).
  const scanned = new Set([...scanBlocksDir(join(netdir, 'blocks'), REGTEST_MAGIC, store.xorKey)].map((b) => `${b.file}:${b.pos}`));
  for (const { record } of entries) assert.ok(scanned.has(`${record.dataFile}:${record.dataPos}`));
  return top;
}

test('SIGKILL while appending blocks: every committed index entry reads back its block', { timeout: 120_000 }, async () => {
  await crashRounds('blocks', 0xc0a5e002, 4, -1, checkBlocks);
});
