/**
 * Flat block files on real disk: Core's record framing and XOR obfuscation (checked on
 * the raw bytes), the xor.dat rules, file rollover, ranged reads, the recovery scanner
 * over garbage and torn tails, pruning and the saved file statistics.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { concatBytes, fromHex, parseBlock } from '../../src/primitives/index.js';
import {
  BlockFileError,
  blockFileName,
  BlockFileStore,
  isZeroKey,
  listBlockFiles,
  openChainstateEnv,
  parseBlockFileName,
  scanBlockFile,
  scanBlocksDir,
  xorAtOffset,
  XorKeyError,
  type FlatFilePos,
} from '../../src/storage/index.js';
import { readVectorText } from '../support/vectors.js';
import { fakeBlock, MAINNET_MAGIC, randomBytes, REGTEST_MAGIC, seeded, withTempDir } from './storage-fixtures.js';

const mainnetBlocks = readVectorText('mainnet-blocks-0-255.hex')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => fromHex(line.trim()));

/** One record as Core writes it, obfuscated for its offset in the file. */
function record(magic: Uint8Array, block: Uint8Array, key: Uint8Array, fileOffset: number): Uint8Array {
  const size = new Uint8Array(4);
  new DataView(size.buffer).setUint32(0, block.length, true);
  const bytes = concatBytes(magic, size, block);
  xorAtOffset(bytes, key, fileOffset);
  return bytes;
}

function assertBlockFileError(fn: () => unknown, reason: string): void {
  assert.throws(fn, (err: unknown) => err instanceof BlockFileError && err.reason === reason);
}

test('file names: five digits, and nothing that only looks like one', () => {
  assert.equal(blockFileName(7), 'blk00007.dat');
  assert.equal(blockFileName(123456), 'blk123456.dat');
  assert.equal(parseBlockFileName('blk00042.dat'), 42);
  assert.equal(parseBlockFileName('blk123456.dat'), 123456);
  assert.equal(parseBlockFileName('blk000042.dat'), undefined);
  assert.equal(parseBlockFileName('rev00042.dat'), undefined);
  assert.equal(parseBlockFileName('blk0042.dat'), undefined);
});

test('xorAtOffset equals the byte-by-byte XOR with the key rotated to the offset, at any length, alignment and offset', () => {
  const random = seeded(0xb10c0010);
  const key = randomBytes(random, 8);
  const source = randomBytes(random, 700);
  for (const length of [0, 1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 100, 257, 600]) {
    for (const start of [0, 1, 4]) {
      for (const fileOffset of [0, 3, 8, 1001]) {
        const bytes = source.slice(start, start + length);
        // A fresh buffer at `start`, so the word path meets aligned and unaligned views.
        const view = new Uint8Array(new ArrayBuffer(start + length), start, length);
        view.set(bytes);
        xorAtOffset(view, key, fileOffset);
        const expected = bytes.map((b, i) => b ^ key[(fileOffset + i) % 8]!);
        assert.deepEqual(view, expected, `${length} bytes at ${start}, file offset ${fileOffset}`);
      }
    }
  }
});

test('a new blocks dir gets a random XOR key; bytes on disk are obfuscated, reads are plain', async () => {
  await withTempDir((dir) => {
    const blocksDir = join(dir, 'blocks');
    const store = BlockFileStore.open(blocksDir, MAINNET_MAGIC);
    assert.equal(store.xorKey.length, 8);
    assert.ok(!isZeroKey(store.xorKey), 'random key');
    assert.deepEqual(new Uint8Array(readFileSync(join(blocksDir, 'xor.dat'))), store.xorKey);

    const positions = mainnetBlocks.slice(0, 20).map((block, height) => store.appendBlock(block, height));
    assert.deepEqual(positions[0], { file: 0, pos: 8 });
    const raw = new Uint8Array(readFileSync(join(blocksDir, 'blk00000.dat')));
    for (let i = 0; i < positions.length; i++) {
      const { pos } = positions[i]!;
      const block = mainnetBlocks[i]!;
      assert.deepEqual(store.readBlock(positions[i]!), block);
      const onDisk = raw.slice(pos, pos + block.length);
      assert.notDeepEqual(onDisk, block, 'stored obfuscated');
      for (let j = 0; j < 64; j++) assert.equal(onDisk[j]! ^ store.xorKey[(pos + j) % 8]!, block[j], 'XOR by file offset');
    }
    assert.notDeepEqual(raw.subarray(0, 4), MAINNET_MAGIC, 'not even the magic is in the clear');
    store.close();

    const reopened = BlockFileStore.open(blocksDir, MAINNET_MAGIC);
    assert.deepEqual(reopened.xorKey, store.xorKey);
    assert.deepEqual(reopened.readBlock(positions[19]!), mainnetBlocks[19]);
    const next = reopened.appendBlock(mainnetBlocks[20]!, 20);
    assert.equal(next.pos, positions[19]!.pos + mainnetBlocks[19]!.length + 8, 'appends where the file ends');
    reopened.close();
  });
});

test('-blocksxor=0: zero key, plain Core-format records that a hand-written Core file matches', async () => {
  await withTempDir((dir) => {
    const blocksDir = join(dir, 'blocks');
    const store = BlockFileStore.open(blocksDir, MAINNET_MAGIC, { xor: false });
    assert.ok(isZeroKey(store.xorKey));
    assert.deepEqual(new Uint8Array(readFileSync(join(blocksDir, 'xor.dat'))), new Uint8Array(8), 'zero key written too');
    store.appendBlock(mainnetBlocks[0]!, 0);
    store.appendBlock(mainnetBlocks[1]!, 1);
    store.close();
    const expected = concatBytes(record(MAINNET_MAGIC, mainnetBlocks[0]!, new Uint8Array(8), 0), record(MAINNET_MAGIC, mainnetBlocks[1]!, new Uint8Array(8), 0));
    assert.deepEqual(new Uint8Array(readFileSync(join(blocksDir, 'blk00000.dat'))), expected);
    assert.equal(readFileSync(join(blocksDir, 'blk00000.dat')).subarray(0, 8).toString('hex'), 'f9beb4d91d010000', 'genesis: magic, 285 LE');
  });
});

test('xor.dat rules: pre-28 dirs read plain, a stored key wins, lost keys and -blocksxor=0 conflicts refuse', async () => {
  await withTempDir((dir) => {
    const random = seeded(0xb10c0001);
    // Blocks written before Core 28: no xor.dat, plain records. Zero key, written down.
    const legacy = join(dir, 'legacy');
    mkdirSync(legacy);
    writeFileSync(join(legacy, 'blk00000.dat'), record(MAINNET_MAGIC, mainnetBlocks[0]!, new Uint8Array(8), 0));
    const store = BlockFileStore.open(legacy, MAINNET_MAGIC);
    assert.ok(isZeroKey(store.xorKey), 'existing blk files without xor.dat: zero key');
    assert.ok(existsSync(join(legacy, 'xor.dat')));
    assert.deepEqual(store.readBlock({ file: 0, pos: 8 }), mainnetBlocks[0]);
    store.close();
    // A (harmless) unreadable later file does not make the directory look obfuscated.
    const withJunk = join(dir, 'junk');
    mkdirSync(withJunk);
    writeFileSync(join(withJunk, 'blk00000.dat'), record(MAINNET_MAGIC, mainnetBlocks[0]!, new Uint8Array(8), 0));
    writeFileSync(join(withJunk, 'blk99999.dat'), Uint8Array.of(0xde, 0xad, 0xbe, 0xef));
    assert.ok(isZeroKey(BlockFileStore.open(withJunk, MAINNET_MAGIC).xorKey));

    // Obfuscated files whose key file was lost: refuse rather than read garbage.
    const lost = join(dir, 'lost');
    mkdirSync(lost);
    writeFileSync(join(lost, 'blk00000.dat'), record(MAINNET_MAGIC, mainnetBlocks[0]!, randomBytes(random, 8), 0));
    assert.throws(() => BlockFileStore.open(lost, MAINNET_MAGIC), XorKeyError);
    assert.ok(!existsSync(join(lost, 'xor.dat')), 'no zero key stored over the lost one');

    // A random key already stored cannot be switched off.
    const keyed = join(dir, 'keyed');
    BlockFileStore.open(keyed, MAINNET_MAGIC).close();
    assert.throws(() => BlockFileStore.open(keyed, MAINNET_MAGIC, { xor: false }), XorKeyError);
    // A zero key stays zero with -blocksxor=1 (only new directories get a random key).
    const zero = join(dir, 'zero');
    BlockFileStore.open(zero, MAINNET_MAGIC, { xor: false }).close();
    assert.ok(isZeroKey(BlockFileStore.open(zero, MAINNET_MAGIC).xorKey));
    // Hidden files (a lock file) do not make a directory "used".
    const hidden = join(dir, 'hidden');
    mkdirSync(hidden);
    writeFileSync(join(hidden, '.lock'), '');
    assert.ok(!isZeroKey(BlockFileStore.open(hidden, MAINNET_MAGIC).xorKey));
    // A key file of the wrong length is refused.
    const short = join(dir, 'short');
    mkdirSync(short);
    writeFileSync(join(short, 'xor.dat'), Uint8Array.of(1, 2, 3));
    assert.throws(() => BlockFileStore.open(short, MAINNET_MAGIC), XorKeyError);
    // Read-only never creates anything.
    const fresh = join(dir, 'fresh');
    assert.throws(() => BlockFileStore.open(fresh, MAINNET_MAGIC, { readOnly: true }), XorKeyError);
    assert.ok(!existsSync(fresh));
  });
});

test('files roll over before a record would reach the size limit, as Core does', async () => {
  await withTempDir((dir) => {
    const random = seeded(0xb10c0002);
    const blocksDir = join(dir, 'blocks');
    const maxFileSize = 1000;
    const store = BlockFileStore.open(blocksDir, REGTEST_MAGIC, { maxFileSize });
    const blocks = Array.from({ length: 12 }, (_, i) => fakeBlock(random, 150 + (random() % 200), 1_600_000_000 + i));
    const positions: FlatFilePos[] = blocks.map((block, height) => store.appendBlock(block, height));

    let expectedFile = 0;
    let used = 0;
    positions.forEach((pos, i) => {
      const recordSize = blocks[i]!.length + 8;
      if (used > 0 && used + recordSize >= maxFileSize) {
        expectedFile++;
        used = 0;
      }
      assert.deepEqual(pos, { file: expectedFile, pos: used + 8 }, `block ${i}`);
      used += recordSize;
      assert.deepEqual(store.readBlock(pos), blocks[i]);
    });
    assert.ok(expectedFile >= 3, 'several files');
    assert.deepEqual(listBlockFiles(blocksDir), Array.from({ length: expectedFile + 1 }, (_, i) => i));
    for (const file of listBlockFiles(blocksDir)) {
      const size = statSync(join(blocksDir, blockFileName(file))).size;
      assert.ok(size < maxFileSize);
      const inFile = positions.map((p, i) => ({ p, i })).filter(({ p }) => p.file === file);
      assert.deepEqual(store.fileInfo(file), {
        blocks: inFile.length,
        size,
        heightFirst: inFile[0]!.i,
        heightLast: inFile[inFile.length - 1]!.i,
        timeFirst: 1_600_000_000 + inFile[0]!.i,
        timeLast: 1_600_000_000 + inFile[inFile.length - 1]!.i,
      });
    }
    assert.equal(store.sizeOnDisk(), blocks.reduce((sum, b) => sum + b.length + 8, 0));
    // A block larger than the limit still goes in (alone in a fresh file) rather than looping.
    const huge = store.appendBlock(fakeBlock(random, 1500), 99);
    assert.deepEqual(huge, { file: expectedFile + 1, pos: 8 });
    store.close();

    // Reopened: appends go to the highest-numbered file.
    const reopened = BlockFileStore.open(blocksDir, REGTEST_MAGIC, { maxFileSize });
    assert.equal(reopened.currentFile, expectedFile + 1);
    assert.equal(reopened.appendBlock(fakeBlock(random, 100), 100).file, expectedFile + 2);
    reopened.close();
  });
});

test('ranged reads need only their bytes; wrong positions fail with typed reasons', async () => {
  await withTempDir(async (dir) => {
    const random = seeded(0xb10c0003);
    const blocksDir = join(dir, 'blocks');
    const store = BlockFileStore.open(blocksDir, REGTEST_MAGIC);
    const first = fakeBlock(random, 500);
    const block = fakeBlock(random, 4000);
    store.appendBlock(first, 0);
    const pos = store.appendBlock(block, 1);

    assert.deepEqual(store.readRange(pos, 0, 80), block.subarray(0, 80));
    assert.deepEqual(store.readHeaderBytes(pos), block.subarray(0, 80));
    assert.deepEqual(store.readRange(pos, 1234, 1000), block.subarray(1234, 2234));
    assert.deepEqual(store.readRange(pos, 3999, 1), block.subarray(3999));
    assert.deepEqual(store.readRange(pos, 4000, 0), new Uint8Array(0));
    assert.equal(store.readBlockSize(pos), 4000);
    assert.deepEqual(await store.readRangeAsync(pos, 17, 33), block.subarray(17, 50));
    assert.deepEqual(await store.readBlockAsync(pos), block);
    assert.equal(await store.readBlockSizeAsync(pos), 4000);
    assertBlockFileError(() => store.readRange(pos, 3990, 11), 'out-of-range');
    assertBlockFileError(() => store.readRange(pos, -1, 2), 'out-of-range');
    store.close();

    // Cut the file in the middle of the block: the bytes before the cut are still served
    // by ranged reads (so they never touched the rest), the whole block is not.
    truncateSync(join(blocksDir, 'blk00000.dat'), pos.pos + 2000);
    const cut = BlockFileStore.open(blocksDir, REGTEST_MAGIC, { readOnly: true });
    assert.deepEqual(cut.readRange(pos, 100, 1900), block.subarray(100, 2000));
    assertBlockFileError(() => cut.readBlock(pos), 'truncated');
    await assert.rejects(cut.readBlockAsync(pos), (err: unknown) => err instanceof BlockFileError && err.reason === 'truncated');
    assertBlockFileError(() => cut.readRange(pos, 1999, 2), 'truncated');

    assertBlockFileError(() => cut.readBlock({ file: 0, pos: 4 }), 'bad-position');
    assertBlockFileError(() => cut.readBlock({ file: 0, pos: 10_000_000 }), 'bad-position');
    assertBlockFileError(() => cut.readBlock({ file: 0, pos: pos.pos + 1 }), 'bad-magic');
    assertBlockFileError(() => cut.readBlock({ file: 7, pos: 8 }), 'missing');
    await assert.rejects(cut.readRangeAsync({ file: 7, pos: 8 }, 0, 1), (err: unknown) => err instanceof BlockFileError && err.reason === 'missing');
    assertBlockFileError(() => cut.appendBlock(first, 2), 'read-only');
    assertBlockFileError(() => cut.deleteFiles([0]), 'read-only');
    // A wrong magic (another network's files) is caught by every read.
    const otherNet = BlockFileStore.open(blocksDir, MAINNET_MAGIC, { readOnly: true });
    assertBlockFileError(() => otherNet.readRange({ file: 0, pos: 8 }, 0, 1), 'bad-magic');
  });
});

test('scanner: skips garbage, false magics and a torn final record, on obfuscated files', async () => {
  await withTempDir((dir) => {
    const random = seeded(0xb10c0004);
    const key = randomBytes(random, 8);
    const blocks = [fakeBlock(random, 300), fakeBlock(random, 81), fakeBlock(random, 2000)];
    const garbage = randomBytes(random, 37).map((b) => (b === REGTEST_MAGIC[0] ? 0 : b));
    // magic with an implausible size, magic cut short, a lone first magic byte.
    const falseStart = concatBytes(REGTEST_MAGIC, Uint8Array.of(0x10, 0, 0, 0), REGTEST_MAGIC.subarray(0, 3), Uint8Array.of(REGTEST_MAGIC[0]!));
    const parts: Uint8Array[] = [];
    const expected: { pos: number; bytes: Uint8Array }[] = [];
    let offset = 0;
    const add = (plain: Uint8Array): void => {
      const bytes = plain.slice();
      xorAtOffset(bytes, key, offset);
      parts.push(bytes);
      offset += bytes.length;
    };
    const addRecord = (block: Uint8Array): void => {
      expected.push({ pos: offset + 8, bytes: block });
      add(record(REGTEST_MAGIC, block, new Uint8Array(8), 0));
    };
    add(garbage);
    addRecord(blocks[0]!);
    addRecord(blocks[1]!);
    add(falseStart);
    add(new Uint8Array(64)); // zero-filled preallocation, as Core leaves at a file's end
    addRecord(blocks[2]!);
    // A torn final append: header and half of the body.
    add(record(REGTEST_MAGIC, fakeBlock(random, 1000), new Uint8Array(8), 0).subarray(0, 508));
    const blocksDir = join(dir, 'blocks');
    mkdirSync(blocksDir);
    const path = join(blocksDir, 'blk00000.dat');
    writeFileSync(path, concatBytes(...parts));

    for (const chunkSize of [16, 100, 1 << 20]) {
      const found = [...scanBlockFile(path, REGTEST_MAGIC, key, { chunkSize })];
      assert.deepEqual(
        found.map(({ bytes, file, pos }) => ({ bytes, file, pos })),
        expected.map(({ bytes, pos }) => ({ bytes, file: 0, pos })),
        `chunk size ${chunkSize}`,
      );
    }
    // Positions the scanner reports are what the store reads.
    writeFileSync(join(blocksDir, 'xor.dat'), key);
    const store = BlockFileStore.open(blocksDir, REGTEST_MAGIC, { readOnly: true });
    for (const { pos, bytes } of expected) assert.deepEqual(store.readBlock({ file: 0, pos }), bytes);
    // The caller's check can reject a well-framed record, as Core's deserializer would.
    const rejected = [...scanBlockFile(path, REGTEST_MAGIC, key, { accept: (bytes) => bytes.length !== 81 })];
    assert.equal(rejected.length, 2);
    // The wrong key finds nothing.
    assert.equal([...scanBlockFile(path, REGTEST_MAGIC, new Uint8Array(8))].length, 0);
  });
});

test('scanner: real mainnet blocks in several files, stopping at the first missing file', async () => {
  await withTempDir((dir) => {
    const blocksDir = join(dir, 'blocks');
    const store = BlockFileStore.open(blocksDir, MAINNET_MAGIC, { maxFileSize: 20_000 });
    const positions = mainnetBlocks.map((block, height) => store.appendBlock(block, height, { sync: false }));
    store.flush();
    store.close();
    const lastFile = positions[positions.length - 1]!.file;
    assert.ok(lastFile >= 2);
    const parsesAsBlock = (bytes: Uint8Array): boolean => {
      try {
        return parseBlock(bytes).size === bytes.length;
      } catch {
        return false;
      }
    };
    const scanned = [...scanBlocksDir(blocksDir, MAINNET_MAGIC, store.xorKey, { accept: parsesAsBlock })];
    assert.equal(scanned.length, mainnetBlocks.length);
    scanned.forEach((found, height) => {
      assert.deepEqual(found.bytes, mainnetBlocks[height]);
      assert.deepEqual({ file: found.file, pos: found.pos }, positions[height]);
    });
    // -reindex walks blk00000, blk00001, ... and stops at a gap, as Core's does.
    const removed = BlockFileStore.open(blocksDir, MAINNET_MAGIC, { maxFileSize: 20_000 });
    removed.deleteFiles([1]);
    removed.close();
    assert.equal([...scanBlocksDir(blocksDir, MAINNET_MAGIC, store.xorKey)].length, positions.filter((p) => p.file === 0).length);
  });
});

test('a torn append is never overwritten: new blocks go after it, saved info follows disk', async () => {
  await withTempDir(async (dir) => {
    const random = seeded(0xb10c0005);
    const netdir = join(dir, 'net');
    const blocksDir = join(netdir, 'blocks');
    const env = openChainstateEnv(netdir);
    try {
      const store = BlockFileStore.open(blocksDir, REGTEST_MAGIC);
      const a = fakeBlock(random, 400);
      const posA = store.appendBlock(a, 0);
      env.writeBatch((w) => w.saveBlockFileInfo(store));
      assert.deepEqual(store.dirtyFileInfo(), [], 'saved');
      const saved = env.withSnapshot((r) => [...r.fileInfos()]);
      assert.deepEqual(saved, [[0, store.fileInfo(0)]]);
      // A block appended (synced) whose index batch never committed, then a torn write.
      const b = fakeBlock(random, 300);
      const posB = store.appendBlock(b, 1);
      store.close();
      appendFileSync(join(blocksDir, 'blk00000.dat'), randomBytes(random, 123));

      const reopened = BlockFileStore.open(blocksDir, REGTEST_MAGIC, { fileInfo: saved });
      const sizeOnDisk = statSync(join(blocksDir, 'blk00000.dat')).size;
      assert.equal(reopened.fileInfo(0)!.size, sizeOnDisk, 'size comes from disk');
      assert.equal(reopened.fileInfo(0)!.blocks, 1, 'counts come from the saved info');
      assert.deepEqual(
        reopened.dirtyFileInfo().map((d) => d.file),
        [0],
        'the moved size is saved again',
      );
      const c = fakeBlock(random, 200);
      const posC = reopened.appendBlock(c, 1);
      assert.equal(posC.pos, sizeOnDisk + 8);
      assert.deepEqual(reopened.readBlock(posA), a);
      assert.deepEqual(reopened.readBlock(posB), b);
      assert.deepEqual(reopened.readBlock(posC), c);
      env.writeBatch((w) => w.saveBlockFileInfo(reopened));
      assert.equal(env.withSnapshot((r) => r.fileInfo(0))!.size, sizeOnDisk + 208);
      assert.equal(env.withSnapshot((r) => r.blockFilesSize()), reopened.sizeOnDisk());
      reopened.close();
    } finally {
      await env.close();
    }
  });
});

test('pruning deletes whole files, never the one being written; file info follows', async () => {
  await withTempDir(async (dir) => {
    const random = seeded(0xb10c0006);
    const netdir = join(dir, 'net');
    const env = openChainstateEnv(netdir);
    try {
      const store = BlockFileStore.open(join(netdir, 'blocks'), REGTEST_MAGIC, { maxFileSize: 1000 });
      for (let height = 0; height < 12; height++) store.appendBlock(fakeBlock(random, 300), height);
      env.writeBatch((w) => w.saveBlockFileInfo(store));
      const before = store.sizeOnDisk();
      const files = listBlockFiles(join(netdir, 'blocks'));
      assert.ok(files.length >= 4);
      const prunedSize = store.fileInfo(0)!.size + store.fileInfo(1)!.size;
      store.deleteFiles([0, 1]);
      assert.throws(() => store.deleteFiles([store.currentFile]), /being written/);
      assert.deepEqual(listBlockFiles(join(netdir, 'blocks')), files.slice(2));
      assert.equal(store.sizeOnDisk(), before - prunedSize);
      assertBlockFileError(() => store.readBlock({ file: 0, pos: 8 }), 'missing');
      env.writeBatch((w) => w.saveBlockFileInfo(store));
      assert.deepEqual(
        env.withSnapshot((r) => [...r.fileInfos()].map(([file]) => file)),
        files.slice(2),
      );
      // Info saved for a file that has since vanished is dropped on open.
      const stale = [[0, { blocks: 1, size: 5, heightFirst: 0, heightLast: 0, timeFirst: 0, timeLast: 0 }] as const];
      const reopened = BlockFileStore.open(join(netdir, 'blocks'), REGTEST_MAGIC, { fileInfo: stale });
      assert.ok(reopened.dirtyFileInfo().some((d) => d.file === 0 && d.info === undefined));
      assert.equal(reopened.fileInfo(0), undefined);
      reopened.close();
      store.close();
    } finally {
      await env.close();
    }
  });
});
