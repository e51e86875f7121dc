/**
 * The LMDB environments in one process, on real files: typed tables round-trip and
 * persist, a batch is all or nothing, snapshots are consistent and fresh, the format
 * version is enforced and damaged records come out as typed errors.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { open } from 'lmdb';
import {
  CHAINSTATE_META,
  coinKey,
  CorruptionError,
  FORMAT_VERSION,
  INDEXES_META,
  openChainstateEnv,
  openIndexesEnv,
  StorageError,
  type BlockIndexRecord,
  type MempoolEntryRecord,
} from '../../src/storage/index.js';
import type { Coin } from '../../src/consensus/index.js';
import { filledHash, numberedHash, withTempDir } from './storage-fixtures.js';

function indexRecord(height: number): BlockIndexRecord {
  return {
    header: new Uint8Array(80).fill(height & 0xff),
    height,
    chainWork: BigInt(height + 1) << 32n,
    status: 0x1d,
    txCount: height + 1,
    chainTxCount: ((height + 1) * (height + 2)) / 2,
    dataFile: 0,
    dataPos: 8 + height * 300,
    sequenceId: height,
  };
}

const coin = (height: number, vout: number): Coin => ({
  output: { value: BigInt(height * 1000 + vout), scriptPubKey: Uint8Array.of(0x51, vout) },
  height,
  coinbase: vout === 0,
});

test('chainstate tables round-trip through a batch and persist across reopening', async () => {
  await withTempDir(async (dir) => {
    const env = openChainstateEnv(dir);
    const entry: MempoolEntryRecord = { tx: Uint8Array.of(1, 2, 3), fee: 1000n, vsize: 100, time: 1_700_000_000, height: 9, sequence: 4, unbroadcast: false, feeDelta: 0n };
    env.writeBatch((w) => {
      for (let h = 0; h < 10; h++) {
        w.putBlockIndex(numberedHash(h), indexRecord(h));
        w.putActive(h, numberedHash(h));
        for (let vout = 0; vout < 3; vout++) w.putCoin(numberedHash(h), vout, coin(h, vout));
      }
      w.putUndo(numberedHash(9), [[coin(1, 1), coin(2, 2)], [coin(3, 0)]]);
      w.putMempoolEntry(filledHash(0xee), entry);
      w.putFileInfo(0, { blocks: 10, size: 3008, heightFirst: 0, heightLast: 9, timeFirst: 1, timeLast: 2 });
      w.putMeta(CHAINSTATE_META.tip, numberedHash(9));
      w.putMeta(CHAINSTATE_META.flushedHeight, 9);
      w.putMeta(CHAINSTATE_META.network, 'regtest');
      w.putMeta(CHAINSTATE_META.txindex, true);
      // Reads inside the batch see its own writes.
      assert.deepEqual(w.coin(numberedHash(3), 1), coin(3, 1));
      assert.equal(w.activeTipHeight(), 9);
    });
    await env.close();

    const again = openChainstateEnv(dir);
    again.withSnapshot((r) => {
      assert.equal(r.meta(CHAINSTATE_META.format), FORMAT_VERSION);
      assert.deepEqual(r.meta(CHAINSTATE_META.tip), numberedHash(9));
      assert.equal(r.meta(CHAINSTATE_META.flushedHeight), 9);
      assert.equal(r.meta(CHAINSTATE_META.network), 'regtest');
      assert.equal(r.meta(CHAINSTATE_META.txindex), true);
      assert.equal(r.meta(CHAINSTATE_META.prune), undefined);
      assert.deepEqual(r.blockIndex(numberedHash(4)), indexRecord(4));
      assert.equal(r.blockIndex(filledHash(1)), undefined);
      assert.equal([...r.blockIndexEntries()].length, 10);
      assert.deepEqual(r.activeHash(7), numberedHash(7));
      assert.equal(r.activeHash(10), undefined);
      assert.equal(r.activeTipHeight(), 9);
      assert.deepEqual(
        [...r.activeChain()].map((e) => e.height),
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      );
      assert.deepEqual(
        [...r.activeChain({ from: 3, to: 5 })].map((e) => e.height),
        [3, 4, 5],
      );
      assert.deepEqual(
        [...r.activeChain({ from: 6, reverse: true })].map((e) => e.height),
        [9, 8, 7, 6],
      );
      assert.deepEqual(
        [...r.activeChain({ from: 2, to: 4, reverse: true })].map((e) => e.height),
        [4, 3, 2],
      );
      assert.deepEqual(r.coin(numberedHash(5), 2), coin(5, 2));
      assert.equal(r.coin(numberedHash(5), 3), undefined);
      assert.deepEqual(
        [...r.coinsOf(numberedHash(5))].map(({ outpoint, coin: c }) => [outpoint.vout, c]),
        [0, 1, 2].map((vout) => [vout, coin(5, vout)]),
      );
      assert.equal([...r.allCoins()].length, 30);
      assert.ok(r.hasAnyCoin(numberedHash(0)));
      assert.ok(!r.hasAnyCoin(filledHash(3)));
      assert.deepEqual(r.undo(numberedHash(9)), [[coin(1, 1), coin(2, 2)], [coin(3, 0)]]);
      assert.deepEqual(r.mempoolEntry(filledHash(0xee)), entry);
      assert.equal([...r.mempoolEntries()].length, 1);
      assert.equal(r.blockFilesSize(), 3008);
    });

    // Scans walk vouts numerically (VARINT byte order would put 16512 before 16511).
    again.writeBatch((w) => {
      for (const vout of [70_000, 16_512, 16_511, 128, 127]) w.putCoinAt(coinKey(filledHash(0x42), vout), coin(1, vout & 0xff));
    });
    again.withSnapshot((r) => {
      assert.deepEqual(
        [...r.coinsOf(filledHash(0x42))].map(({ outpoint }) => outpoint.vout),
        [127, 128, 16_511, 16_512, 70_000],
      );
      assert.deepEqual(r.coinAt(coinKey(filledHash(0x42), 16_512)), coin(1, 16_512 & 0xff));
      assert.throws(() => r.coinAt(new Uint8Array(35)), RangeError);
    });

    // Deletes, and clearing a table.
    again.writeBatch((w) => {
      assert.ok(w.deleteCoin(numberedHash(5), 0));
      assert.ok(!w.deleteCoin(numberedHash(5), 0));
      assert.ok(w.deleteActive(9));
      w.clear('mempool');
      w.deleteMeta(CHAINSTATE_META.txindex);
    });
    again.withSnapshot((r) => {
      assert.equal(r.coin(numberedHash(5), 0), undefined);
      assert.equal(r.activeTipHeight(), 8);
      assert.equal([...r.mempoolEntries()].length, 0);
      assert.equal(r.meta(CHAINSTATE_META.txindex), undefined);
    });
    await again.close();
  });
});

test('block-file bytes: a running total kept with fileinfo, summed where a directory predates it', async () => {
  await withTempDir(async (dir) => {
    const env = openChainstateEnv(dir);
    const info = (size: number) => ({ blocks: 1, size, heightFirst: 0, heightLast: 0, timeFirst: 1, timeLast: 1 });
    const summed = (): number => env.withSnapshot((r) => [...r.fileInfos()].reduce((total, [, i]) => total + i.size, 0));
    const kept = (): bigint | undefined => env.withSnapshot((r) => r.meta(CHAINSTATE_META.blockFilesSize));
    env.writeBatch((w) => {
      w.putFileInfo(0, info(3008));
      w.putFileInfo(1, info(500));
    });
    assert.equal(kept(), 3508n);
    // A file grows, another is pruned, a new one starts: all in one batch.
    env.writeBatch((w) => {
      w.putFileInfo(0, info(4000));
      assert.equal(w.deleteFileInfo(1), true);
      w.putFileInfo(2, info(77));
      assert.equal(w.blockFilesSize(), 4077, 'the batch sees its own total');
    });
    assert.equal(kept(), 4077n);
    assert.equal(env.withSnapshot((r) => r.blockFilesSize()), summed());
    // A directory written before the total existed: summed on read, kept from the next write.
    env.lmdb.write((t) => t.del('meta', CHAINSTATE_META.blockFilesSize.key));
    assert.equal(env.withSnapshot((r) => r.blockFilesSize()), 4077);
    env.writeBatch((w) => w.putFileInfo(2, info(100)));
    assert.equal(kept(), 4100n);
    assert.equal(summed(), 4100);
    await env.close();
  });
});

test('a batch that throws, returns a promise or nests leaves nothing behind', async () => {
  await withTempDir(async (dir) => {
    const env = openChainstateEnv(dir);
    let committedHooks = 0;
    env.writeBatch((w) => {
      w.putMeta(CHAINSTATE_META.flushedHeight, 1);
      w.afterCommit(() => committedHooks++);
    });
    assert.equal(committedHooks, 1);

    assert.throws(
      () =>
        env.writeBatch((w) => {
          w.putMeta(CHAINSTATE_META.flushedHeight, 2);
          for (let h = 0; h < 100; h++) w.putActive(h, numberedHash(h));
          w.clear('meta');
          w.afterCommit(() => committedHooks++);
          throw new Error('validation failed half way');
        }),
      /half way/,
    );
    assert.throws(() => env.writeBatch(async (w) => w.putActive(0, numberedHash(0))), StorageError);
    assert.throws(() => env.writeBatch(() => env.writeBatch(() => undefined)), StorageError);
    assert.throws(() => env.writeBatch(() => env.withSnapshot(() => undefined)), StorageError);
    env.withSnapshot((r) => {
      assert.equal(r.meta(CHAINSTATE_META.flushedHeight), 1);
      assert.equal(r.activeTipHeight(), -1);
      assert.equal(r.meta(CHAINSTATE_META.format), FORMAT_VERSION, 'the cleared table came back');
    });
    assert.equal(committedHooks, 1, 'hooks of aborted batches never run');
    await env.close();
  });
});

test('snapshots: a held one keeps its view, a new one sees every commit, even in the same turn', async () => {
  await withTempDir(async (dir) => {
    const env = openChainstateEnv(dir);
    const write = (i: number): void =>
      env.writeBatch((w) => {
        for (let h = 0; h < 20; h++) w.putActive(h, filledHash(i));
        w.putMeta(CHAINSTATE_META.flushedHeight, i);
      });
    write(1);
    const held = env.withSnapshot(async (r) => {
      const before = r.meta(CHAINSTATE_META.flushedHeight);
      write(2);
      // Same turn, a new snapshot: sees 2. This one: still 1.
      assert.equal(
        env.withSnapshot((fresh) => fresh.meta(CHAINSTATE_META.flushedHeight)),
        2,
      );
      await sleep(20);
      write(3);
      await sleep(20);
      const after = r.meta(CHAINSTATE_META.flushedHeight);
      const hashes = [...r.activeChain()].map((e) => e.hash[0]);
      return { before, after, hashes };
    });
    const result = await held;
    assert.equal(result.before, 1);
    assert.equal(result.after, 1);
    assert.deepEqual(result.hashes, new Array(20).fill(1));
    assert.equal(
      env.withSnapshot((r) => r.meta(CHAINSTATE_META.flushedHeight)),
      3,
    );
    // Readers cannot be used after their callback.
    let escaped: Iterable<unknown> | undefined;
    env.withSnapshot((r) => {
      escaped = r.activeChain();
    });
    assert.throws(() => [...escaped!], StorageError);
    await env.close();
  });
});

/** The transaction ids LMDB's reader table shows as pinned ('-' is a reset, idle slot). */
function pinnedTxnIds(readerList: string): string[] {
  return readerList
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/)[2])
    .filter((id): id is string => id !== undefined && id !== '-');
}

test('a finished snapshot pins nothing; values read are copies that outlive it', async () => {
  await withTempDir(async (dir) => {
    const env = openChainstateEnv(dir);
    env.writeBatch((w) => {
      for (let h = 0; h < 3; h++) w.putActive(h, filledHash(h + 1));
    });
    // A second handle on the same files, only to look at LMDB's reader table.
    const probe = open({ path: join(dir, 'chainstate'), readOnly: true, maxDbs: 16 });
    try {
      const hashes = env.withSnapshot((r) => [r.activeHash(0)!, r.activeHash(1)!, r.activeHash(2)!]);
      assert.deepEqual(pinnedTxnIds(probe.readerList()), [], 'a synchronous snapshot is reset when it returns');
      // Each get is its own copy, not lmdb-js's reusable buffer.
      assert.deepEqual(hashes, [filledHash(1), filledHash(2), filledHash(3)]);
      assert.equal(hashes[0]!.constructor, Uint8Array);

      let during: string[] = [];
      await env.withSnapshot(async (r) => {
        r.activeHash(0);
        during = pinnedTxnIds(probe.readerList());
        await sleep(5);
      });
      assert.equal(during.length, 1, 'an open snapshot shows as one pinned reader');
      assert.deepEqual(pinnedTxnIds(probe.readerList()), [], 'an async snapshot is reset when its promise settles');

      // lmdb-js reads table statistics through the newest read transaction the process
      // created, if it has one of its own: make it have one, then make ours newer.
      assert.ok(env.lmdb.tableSizeOnDisk('active') > 0);
      await sleep(1);
      await Promise.all(Array.from({ length: 10 }, (_, i) => env.withSnapshot(async (r) => (await sleep(i), r.activeHash(i % 3)))));
      assert.deepEqual(pinnedTxnIds(probe.readerList()), [], 'overlapping snapshots, all released');
      assert.ok(env.lmdb.tableSizeOnDisk('active') > 0);
      await sleep(1);
      assert.deepEqual(pinnedTxnIds(probe.readerList()), [], 'statistics leave no snapshot pinned');
    } finally {
      await probe.close();
      await env.close();
    }
  });
});

test('format version: stamped on creation, enforced on open; read-only needs an initialised env', async () => {
  await withTempDir(async (dir) => {
    assert.throws(() => openChainstateEnv(join(dir, 'absent'), { readOnly: true }), StorageError);
    const env = openChainstateEnv(join(dir, 'a'));
    env.lmdb.write((w) => w.put('meta', CHAINSTATE_META.format.key, CHAINSTATE_META.format.codec.encode(FORMAT_VERSION + 1)));
    await env.close();
    assert.throws(() => openChainstateEnv(join(dir, 'a')), /format/);

    const foreign = openChainstateEnv(join(dir, 'b'));
    foreign.lmdb.write((w) => {
      w.del('meta', CHAINSTATE_META.format.key);
      w.put('coins', coinKey(filledHash(1), 0), Uint8Array.of(0, 0, 6));
    });
    await foreign.close();
    assert.throws(() => openChainstateEnv(join(dir, 'b')), /no format version/);

    const indexes = openIndexesEnv(join(dir, 'c'));
    indexes.writeBatch((w) => {
      w.putTxIndexEntry(filledHash(7), { file: 1, pos: 8, offset: 81, length: 200 });
      w.putMeta(INDEXES_META.txindexBest, filledHash(9));
    });
    await indexes.close();
    const readOnly = openIndexesEnv(join(dir, 'c'), { readOnly: true });
    assert.deepEqual(
      readOnly.withSnapshot((r) => r.txIndexEntry(filledHash(7))),
      { file: 1, pos: 8, offset: 81, length: 200 },
    );
    assert.deepEqual(
      readOnly.withSnapshot((r) => r.meta(INDEXES_META.txindexBest)),
      filledHash(9),
    );
    assert.throws(() => readOnly.writeBatch((w) => w.deleteTxIndexEntry(filledHash(7))), StorageError);
    await readOnly.close();
  });
});

test('damaged records come out as CorruptionError naming the table', async () => {
  await withTempDir(async (dir) => {
    const env = openChainstateEnv(dir);
    env.lmdb.write((w) => {
      w.put('index', filledHash(1), new Uint8Array(10));
      w.put('coins', coinKey(filledHash(2), 0), Uint8Array.of(0, 0, 7));
      w.put('active', Uint8Array.of(0, 0, 0, 0), new Uint8Array(31));
      w.put('meta', CHAINSTATE_META.flushedHeight.key, Uint8Array.of(1));
    });
    env.withSnapshot((r) => {
      assert.throws(() => r.blockIndex(filledHash(1)), (err: unknown) => err instanceof CorruptionError && /^index entry/.test(err.message));
      assert.throws(() => r.coin(filledHash(2), 0), CorruptionError);
      assert.throws(() => r.activeHash(0), CorruptionError);
      assert.throws(() => r.meta(CHAINSTATE_META.flushedHeight), CorruptionError);
    });
    assert.throws(() => env.writeBatch((w) => w.putActive(0, new Uint8Array(31))), RangeError);
    await env.close();
  });
});
