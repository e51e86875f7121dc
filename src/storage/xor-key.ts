/**
 * blocks/xor.dat, Bitcoin Core's (v28+) block-file obfuscation: an 8-byte key XORed over
 * every byte of every blk (and rev) file by file offset — the byte at offset o is stored
 * as data ^ key[o % 8] — so that no file on disk holds raw transaction data for a
 * virus scanner to trip on. Core's start-up rules (InitBlocksdirXorKey), followed here so
 * that a blocks directory moves between Core and tsbtcd:
 *
 * - xor.dat present: it is the key, whatever -blocksxor says — except that -blocksxor=0
 *   with a non-zero stored key is an error (the files cannot be read as plain data).
 * - xor.dat missing in a new blocks directory (nothing in it but hidden files): a random
 *   key, or all zeros with -blocksxor=0.
 * - xor.dat missing where block files already exist (written before Core 28): the zero
 *   key, which reads them as they are. Unless the files are evidently obfuscated (the
 *   first one does not start with the network magic): then the key was lost and guessing
 *   zero would read garbage, so refuse, as current Core does.
 * - The chosen key is always written to xor.dat (the zero key too), atomically.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { blockFilePath, listBlockFiles } from './block-file-names.js';
import { XorKeyError } from './errors.js';
import { fsyncDirectory, writeFileAtomic } from './fs-durable.js';

export const XOR_KEY_SIZE = 8;
export const XOR_KEY_FILE = 'xor.dat';

export interface XorKeyOptions {
  /** -blocksxor: a random key for a new blocks directory (default true). */
  readonly xor?: boolean;
  /** Read the key only; never create xor.dat (front-ends; the coordinator has written it). */
  readonly readOnly?: boolean;
}

export function isZeroKey(key: Uint8Array): boolean {
  return key.every((b) => b === 0);
}

/** XORs `data`, which sits at `fileOffset` in its file, with the key (in place; its own inverse). */
export function xorAtOffset(data: Uint8Array, key: Uint8Array, fileOffset: number): void {
  if (isZeroKey(key)) return;
  // The key rotated to this offset, so data[i] pairs with phased[i % 8].
  const phased = new Uint8Array(XOR_KEY_SIZE);
  for (let i = 0; i < XOR_KEY_SIZE; i++) phased[i] = key[(fileOffset + i) % XOR_KEY_SIZE]!;
  let i = 0;
  if (data.byteOffset % 4 === 0 && data.length >= 16) {
    // Two 32-bit words per key period: same bytes, a quarter of the loop iterations.
    const words = new Uint32Array(data.buffer, data.byteOffset, (data.length >> 3) << 1);
    const keyWords = new Uint32Array(phased.buffer);
    const k0 = keyWords[0]!;
    const k1 = keyWords[1]!;
    // Four key periods per iteration: the loop's own cost halves again (118 kB: 37 → 15 us).
    const unrolled = words.length & ~7;
    let w = 0;
    for (; w < unrolled; w += 8) {
      words[w]! ^= k0;
      words[w + 1]! ^= k1;
      words[w + 2]! ^= k0;
      words[w + 3]! ^= k1;
      words[w + 4]! ^= k0;
      words[w + 5]! ^= k1;
      words[w + 6]! ^= k0;
      words[w + 7]! ^= k1;
    }
    for (; w < words.length; w += 2) {
      words[w]! ^= k0;
      words[w + 1]! ^= k1;
    }
    i = words.length << 2;
  }
  for (; i < data.length; i++) data[i]! ^= phased[i % XOR_KEY_SIZE]!;
}

function readKeyFile(path: string): Uint8Array {
  const key = new Uint8Array(readFileSync(path));
  if (key.length !== XOR_KEY_SIZE) {
    throw new XorKeyError(`${path} must hold exactly ${XOR_KEY_SIZE} bytes, found ${key.length}`);
  }
  return key;
}

/** Core's first-run test: the directory holds nothing but hidden files (a lock file, say). */
function isNewBlocksDir(blocksDir: string): boolean {
  if (!existsSync(blocksDir)) return true;
  return readdirSync(blocksDir).every((name) => name.startsWith('.'));
}

/** True when the lowest-numbered blk file with a full record header does not start with the magic. */
function blockFilesLookObfuscated(blocksDir: string, magic: Uint8Array): boolean {
  for (const file of listBlockFiles(blocksDir)) {
    const fd = openSync(blockFilePath(blocksDir, file), 'r');
    try {
      const head = new Uint8Array(8);
      if (readSync(fd, head, 0, 8, 0) < 8) continue;
      return !magic.every((b, i) => head[i] === b);
    } finally {
      closeSync(fd);
    }
  }
  return false;
}

/** The blocks directory's obfuscation key, creating blocks/ and xor.dat as Core would. */
export function initBlocksXorKey(blocksDir: string, magic: Uint8Array, options: XorKeyOptions = {}): Uint8Array {
  const useXor = options.xor ?? true;
  const path = join(blocksDir, XOR_KEY_FILE);
  if (existsSync(path)) {
    const key = readKeyFile(path);
    if (!useXor && !isZeroKey(key)) {
      throw new XorKeyError('The blocksdir XOR-key can not be disabled when a random key was already stored! Remove -blocksxor=0 to use the stored key.');
    }
    return key;
  }
  if (options.readOnly) throw new XorKeyError(`${path} is missing: the coordinator writes it when it opens the blocks directory`);
  const fresh = isNewBlocksDir(blocksDir);
  if (!fresh && blockFilesLookObfuscated(blocksDir, magic)) {
    throw new XorKeyError(`The XOR-key file ${path} is missing, but the block files in ${blocksDir} are obfuscated with a key`);
  }
  const key = fresh && useXor ? new Uint8Array(randomBytes(XOR_KEY_SIZE)) : new Uint8Array(XOR_KEY_SIZE);
  if (!existsSync(blocksDir)) {
    mkdirSync(blocksDir, { recursive: true });
    fsyncDirectory(dirname(blocksDir));
  }
  writeFileAtomic(path, key);
  return key;
}
