/**
 * BIP158 block filters as Core's blockfilter.cpp builds them. The basic filter holds every
 * output script of the block except empty ones and those starting with OP_RETURN, and
 * every script the block's inputs spend (from the undo data; empty ones skipped), each
 * once; it is a Golomb-coded set keyed by the first 16 bytes of the block hash, with
 * P = 19 and M = 784931. The filter hash is double-SHA-256 of the encoded filter, and a
 * filter header is double-SHA-256(filter hash ‖ previous header), zero before genesis.
 */
import { decodeGcs, encodeGcs, gcsMatchAny, sha256d, sipKeyFromBytes, toHex, type Block, type GcsParams } from '../primitives/index.js';
import type { BlockUndo } from './block-undo.js';

/** The filter types Core knows (BlockFilterType): only `basic` exists. */
export type BlockFilterType = 'basic';

/** Each type's byte in the wire and REST encodings (BlockFilterType::BASIC = 0). */
export const BLOCK_FILTER_TYPE_ID: Readonly<Record<BlockFilterType, number>> = { basic: 0 };

/** Core's BlockFilterTypeByName: exact, case-sensitive. */
export function blockFilterTypeByName(name: string): BlockFilterType | undefined {
  return name === 'basic' ? 'basic' : undefined;
}

/** BASIC_FILTER_P and BASIC_FILTER_M. */
export const BASIC_FILTER_PARAMS: GcsParams = { P: 19, M: 784931 };

/** The header "before" genesis: 32 zero bytes. */
export const ZERO_FILTER_HEADER: Uint8Array = new Uint8Array(32);

const OP_RETURN = 0x6a;

/** The scripts a block's inputs spent, from its undo data (coinbase excluded: it has no undo). */
export function spentScripts(undo: BlockUndo): Uint8Array[] {
  return undo.flatMap((coins) => coins.map((coin) => coin.output.scriptPubKey));
}

/** The basic filter's elements (Core's BasicFilterElements), each once, in first-seen order. */
export function basicFilterElements(block: Block, spent: Iterable<Uint8Array>): Uint8Array[] {
  const seen = new Map<string, Uint8Array>();
  const add = (script: Uint8Array): void => {
    const key = toHex(script);
    if (!seen.has(key)) seen.set(key, script);
  };
  for (const tx of block.transactions) {
    for (const output of tx.outputs) {
      const script = output.scriptPubKey;
      if (script.length === 0 || script[0] === OP_RETURN) continue;
      add(script);
    }
  }
  for (const script of spent) if (script.length > 0) add(script);
  return [...seen.values()];
}

/** The encoded basic filter of a block: CompactSize N ‖ Golomb-Rice bit stream. */
export function basicBlockFilter(block: Block, spent: Iterable<Uint8Array>): Uint8Array {
  return encodeGcs(sipKeyFromBytes(block.header.hash), basicFilterElements(block, spent), BASIC_FILTER_PARAMS);
}

/** BlockFilter::GetHash: double-SHA-256 of the encoded filter (internal byte order). */
export function blockFilterHash(encoded: Uint8Array): Uint8Array {
  return sha256d(encoded);
}

/** BlockFilter::ComputeHeader: double-SHA-256(filter hash ‖ previous header). */
export function blockFilterHeader(filterHash: Uint8Array, prevHeader: Uint8Array): Uint8Array {
  const data = new Uint8Array(64);
  data.set(filterHash, 0);
  data.set(prevHeader, 32);
  return sha256d(data);
}

/** The number of elements of an encoded basic filter (its leading CompactSize), checking the whole encoding. */
export function basicFilterSize(encoded: Uint8Array): number {
  return decodeGcs(encoded, BASIC_FILTER_PARAMS).length;
}

/** Whether any of `scripts` may be in the block's basic filter (false positives at rate 1/M). */
export function basicFilterMatchAny(blockHash: Uint8Array, encoded: Uint8Array, scripts: readonly Uint8Array[]): boolean {
  return gcsMatchAny(sipKeyFromBytes(blockHash), encoded, scripts, BASIC_FILTER_PARAMS);
}
