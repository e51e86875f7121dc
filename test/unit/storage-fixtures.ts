/**
 * Shared by the storage tests: throwaway directories under the OS temp dir, a seeded
 * generator so randomized cases reproduce, and the regtest network magic.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Coin } from '../../src/consensus/index.js';
import { seededRandom } from '../support/memo-signatures.js';

export const REGTEST_MAGIC = Uint8Array.of(0xfa, 0xbf, 0xb5, 0xda);
export const MAINNET_MAGIC = Uint8Array.of(0xf9, 0xbe, 0xb4, 0xd9);

/** Runs `fn` with a fresh directory and removes it afterwards, whatever happens. */
export async function withTempDir<T>(fn: (dir: string) => T | Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'tsbtcd-storage-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** xorshift32: the same sequence for the same seed, on every run. */
export const seeded = seededRandom;

export function randomBytes(random: () => number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = random() & 0xff;
  return out;
}

/** A uniformly random u64 from two draws. */
export function randomU64(random: () => number): bigint {
  return (BigInt(random()) << 32n) | BigInt(random());
}

/** A 32-byte hash whose bytes all equal `fill`, easy to recognise in failures. */
export function filledHash(fill: number): Uint8Array {
  return new Uint8Array(32).fill(fill & 0xff);
}

/** A deterministic txid-like hash for an integer. */
export function numberedHash(n: number): Uint8Array {
  const out = new Uint8Array(32);
  new DataView(out.buffer).setUint32(0, n, false);
  out[31] = 0xab;
  return out;
}

/** A block-shaped byte string: an 80-byte "header" with the given time, then filler. */
export function fakeBlock(random: () => number, size: number, time = 1_231_006_505): Uint8Array {
  const block = randomBytes(random, size);
  new DataView(block.buffer).setUint32(68, time, true);
  return block;
}

/** The fake block a crash-test writer appends at `height`: rebuilt by the checker from the height alone. */
export function blockForHeight(height: number): Uint8Array {
  return fakeBlock(seeded(height + 1), 200 + (height % 300), 1_600_000_000 + height);
}

/** Shapes of the crash-test writer's batches (storage-child.ts), shared with the checker. */
export const COUNTER_KEYS = 50;
export const COUNTER_BLOB_EVERY = 25;
export const COINS_PER_BATCH = 40;
export const BLOCK_FILE_TEST_SIZE = 20_000;

/**
 * The undo value counter mode stores at batch i: about 500 KiB of coins recognisable by
 * i (scripts stay under Core's 10,000-byte limit, beyond which they decode as OP_RETURN).
 */
export function counterBlob(i: number): Coin[][] {
  return [Array.from({ length: 56 }, (_, n) => ({ output: { value: BigInt(i), scriptPubKey: new Uint8Array(9000).fill((i + n) & 0xff) }, height: i, coinbase: false }))];
}
