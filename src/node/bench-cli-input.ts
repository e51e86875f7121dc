/**
 * Reading the two files `tsbtcd-bench verify-block` takes: a raw block as hex text and the
 * coins its inputs spend as a JSON array (the format of
 * test/vectors/data/block277647-prevouts.json). Anything that is not such a file is a
 * usage error with a message naming the file and the fault, never a validation verdict:
 * a verdict is only given on a block we could read, against coins we could read.
 */
import { readFileSync } from 'node:fs';
import type { PrevoutRecord } from '../chain/index.js';
import { fromHex, isHex, parseBlock } from '../primitives/index.js';

/** A fault in the command line or in an input file: exit code 2. */
export class BenchUsageError extends Error {
  override readonly name = 'BenchUsageError';
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new BenchUsageError(`cannot read the ${what} file ${path}: ${(err as Error).message}`);
  }
}

/**
 * The serialized block in `path` (one hex string, surrounding whitespace such as a final
 * newline ignored), checked to parse as exactly one block.
 */
export function readBlockHexFile(path: string): Uint8Array {
  const hex = readText(path, 'block').trim();
  if (hex.length === 0) throw new BenchUsageError(`the block file ${path} is empty`);
  if (!isHex(hex)) throw new BenchUsageError(`the block file ${path} is not one hex string`);
  const bytes = fromHex(hex);
  try {
    parseBlock(bytes);
  } catch (err) {
    throw new BenchUsageError(`the block file ${path} does not hold a block: ${(err as Error).message}`);
  }
  return bytes;
}

const HEX64 = /^[0-9a-fA-F]{64}$/;

function isIndex(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** Satoshis as a JSON integer or a decimal string of one (values past 2^53 need the string). */
function isAmount(value: unknown): value is number | string {
  if (typeof value === 'number') return Number.isSafeInteger(value);
  return typeof value === 'string' && /^-?[0-9]{1,20}$/.test(value);
}

/** Null, absent or the right type: null and absent both mean "unknown". */
function isOptional(value: unknown, type: 'number' | 'boolean'): boolean {
  if (value === undefined || value === null) return true;
  return type === 'number' ? isIndex(value) : typeof value === 'boolean';
}

function checkRecord(entry: unknown, at: number, path: string): PrevoutRecord {
  const bad = (field: string, wanted: string): never => {
    throw new BenchUsageError(`the prevouts file ${path}: entry ${at} needs "${field}" as ${wanted}`);
  };
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new BenchUsageError(`the prevouts file ${path}: entry ${at} is not an object`);
  }
  const r = entry as Record<string, unknown>;
  if (!isIndex(r.tx)) bad('tx', 'a transaction index');
  if (!isIndex(r.input)) bad('input', 'an input index');
  if (typeof r.txid !== 'string' || !HEX64.test(r.txid)) bad('txid', '64 hex digits');
  if (!isIndex(r.vout) || (r.vout as number) > 0xffffffff) bad('vout', 'an output index');
  if (!isAmount(r.value)) bad('value', 'an integer number of satoshis');
  if (typeof r.scriptPubKey !== 'string' || !isHex(r.scriptPubKey)) bad('scriptPubKey', 'a hex string');
  if (!isOptional(r.height, 'number')) bad('height', 'a block height, null or absent');
  if (!isOptional(r.coinbase, 'boolean')) bad('coinbase', 'true, false, null or absent');
  return {
    tx: r.tx as number,
    input: r.input as number,
    txid: (r.txid as string).toLowerCase(),
    vout: r.vout as number,
    value: r.value as number | string,
    scriptPubKey: r.scriptPubKey as string,
    height: r.height as number | null | undefined,
    coinbase: r.coinbase as boolean | null | undefined,
  };
}

/** The prevout records in `path`, each checked for shape (not for matching the block: validation does that). */
export function readPrevoutsFile(path: string): PrevoutRecord[] {
  const text = readText(path, 'prevouts');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new BenchUsageError(`the prevouts file ${path} is not JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new BenchUsageError(`the prevouts file ${path} must hold a JSON array of prevout objects`);
  return parsed.map((entry, at) => checkRecord(entry, at, path));
}
