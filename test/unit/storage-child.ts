/**
 * The writer process of storage-processes.test.ts: `node storage-child.js <mode> <netdir>`.
 * It writes batches forever until killed, sending 'ready' once a few have committed.
 * Each mode writes a pattern the parent can check for completeness after a SIGKILL:
 *
 * - counter: batch i sets active heights 0..K-1 to a hash filled with i, and flushedHeight
 *   to i (a torn batch would show mixed hashes); every 25th batch also stores a 512 KiB
 *   undo blob, so the map grows under the reader's feet.
 * - batches: batch i adds M coins of txid(i), deletes those of txid(i − 2), sets active[i]
 *   and flushedHeight = i; every 7th also stores a 256 KiB undo blob so that some commits
 *   are large and grow the map. Resumes after flushedHeight.
 * - blocks: height h appends a block, then commits its index entry, the file info and
 *   flushedHeight = h. Resumes after flushedHeight.
 */
import { join } from 'node:path';
import { BlockFileStore, CHAINSTATE_META, openChainstateEnv, type ChainstateEnv } from '../../src/storage/index.js';
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
} from './storage-fixtures.js';

function ready(): void {
  process.send?.('ready');
}

/** Runs `batch` repeatedly, yielding to the event loop now and then so IPC messages go out. */
function loop(batch: () => void, readyAfter: number): void {
  let done = 0;
  const step = (): void => {
    for (let n = 0; n < 10; n++) {
      batch();
      if (++done === readyAfter) ready();
    }
    setImmediate(step);
  };
  step();
}

function counter(env: ChainstateEnv): void {
  let i = 0;
  loop(() => {
    i++;
    env.writeBatch((w) => {
      for (let h = 0; h < COUNTER_KEYS; h++) w.putActive(h, filledHash(i));
      if (i % COUNTER_BLOB_EVERY === 0) w.putUndo(numberedHash(i), counterBlob(i));
      w.putMeta(CHAINSTATE_META.flushedHeight, i);
    });
  }, 5);
}

function batches(env: ChainstateEnv): void {
  let i = env.withSnapshot((r) => r.meta(CHAINSTATE_META.flushedHeight)) ?? 0;
  const blob = [[{ output: { value: 1n, scriptPubKey: new Uint8Array(256 * 1024).fill(0x6a) }, height: 1, coinbase: false }]];
  loop(() => {
    i++;
    env.writeBatch((w) => {
      const txid = numberedHash(i);
      for (let vout = 0; vout < COINS_PER_BATCH; vout++) {
        w.putCoin(txid, vout, { output: { value: BigInt(i), scriptPubKey: Uint8Array.of(0x51) }, height: i, coinbase: false });
      }
      if (i > 2) for (let vout = 0; vout < COINS_PER_BATCH; vout++) w.deleteCoin(numberedHash(i - 2), vout);
      if (i % 7 === 0) w.putUndo(txid, blob);
      w.putActive(i, txid);
      w.putMeta(CHAINSTATE_META.flushedHeight, i);
    });
  }, 5);
}

function blocks(env: ChainstateEnv, netdir: string): void {
  const fileInfo = env.withSnapshot((r) => [...r.fileInfos()]);
  const store = BlockFileStore.open(join(netdir, 'blocks'), REGTEST_MAGIC, { maxFileSize: BLOCK_FILE_TEST_SIZE, fileInfo });
  let height = env.withSnapshot((r) => r.meta(CHAINSTATE_META.flushedHeight)) ?? -1;
  loop(() => {
    height++;
    const block = blockForHeight(height);
    const pos = store.appendBlock(block, height);
    env.writeBatch((w) => {
      w.putBlockIndex(numberedHash(height), {
        header: block.subarray(0, 80),
        height,
        chainWork: BigInt(height),
        status: 0,
        txCount: 1,
        chainTxCount: height + 1,
        dataFile: pos.file,
        dataPos: pos.pos,
        sequenceId: 0,
      });
      w.saveBlockFileInfo(store);
      w.putMeta(CHAINSTATE_META.flushedHeight, height);
    });
  }, 5);
}

const [mode, netdir] = process.argv.slice(2);
if (!mode || !netdir) throw new Error('usage: storage-child <counter|batches|blocks> <netdir>');
const env = openChainstateEnv(netdir);
if (mode === 'counter') counter(env);
else if (mode === 'batches') batches(env);
else if (mode === 'blocks') blocks(env, netdir);
else throw new Error(`unknown mode ${mode}`);
