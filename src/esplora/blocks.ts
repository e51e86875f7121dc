/**
 * Esplora's block queries: the tip, lists of ten, one block's JSON, status, header, raw
 * bytes, txids and pages of 25 transactions (their prevouts from the block's undo data).
 * Only active-chain blocks are found, as electrs knows only its best chain.
 */
import type { ViewEntry } from '../chain/index.js';
import { hexToHash, toHex, type TxOut } from '../primitives/index.js';
import type { ChainReads } from './chain-reads.js';
import { badRequest, notFound } from './errors.js';
import type { EsploraJson } from './json-text.js';
import { blockValue, txValue } from './values.js';

/** electrs's BLOCK_LIMIT. */
export const BLOCK_LIMIT = 10;
/** electrs pages a block's transactions in CHAIN_TXS_PER_PAGE. */
const BLOCK_TXS_PER_PAGE = 25;

/** A 64-hex hash as electrs's from_str takes it (either case), or 400 "Invalid hex string". */
export function parseHashParam(text: string): Uint8Array {
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw badRequest('Invalid hex string');
  return hexToHash(text.toLowerCase());
}

/** A decimal usize as Rust's parse takes it, or 400 "Invalid number". */
export function parseNumberParam(text: string): number {
  const n = /^\+?[0-9]+$/.test(text) ? Number(text.replace('+', '')) : NaN;
  if (!Number.isSafeInteger(n)) throw badRequest('Invalid number');
  return n;
}

/** The active-chain block of a hash path segment, or 404 "Block not found". */
export function activeBlockOf(reads: ChainReads, hashText: string): ViewEntry {
  const entry = reads.snapshot.entry(parseHashParam(hashText));
  if (!entry || !reads.snapshot.isActive(entry)) throw notFound('Block not found');
  return entry;
}

export function blockJson(reads: ChainReads, entry: ViewEntry): EsploraJson {
  return blockValue(entry, reads.snapshot.readBlock(entry));
}

/** GET /blocks[/:start_height]: ten blocks down from the height (an unparsable one: the tip). */
export function blockList(reads: ChainReads, startText: string | undefined): EsploraJson[] {
  const start = startText !== undefined && /^\+?[0-9]+$/.test(startText) ? Number(startText) : undefined;
  let entry = start === undefined ? reads.snapshot.tip() : reads.activeBlock(start);
  if (!entry) throw notFound('Block not found');
  const out: EsploraJson[] = [];
  for (let i = 0; i < BLOCK_LIMIT && entry; i++, entry = entry.prev) out.push(blockJson(reads, entry));
  return out;
}

/** GET /block/:hash/status: never a 404; an unknown or stale block is not in the best chain. */
export function blockStatus(reads: ChainReads, hashText: string): EsploraJson {
  const entry = reads.snapshot.entry(parseHashParam(hashText));
  if (!entry || !reads.snapshot.isActive(entry)) return { in_best_chain: false, height: null, next_best: null };
  return { in_best_chain: true, height: entry.height, next_best: reads.snapshot.next(entry)?.hashHex ?? null };
}

export function blockTxids(reads: ChainReads, entry: ViewEntry): string[] {
  return reads.snapshot.readBlock(entry).transactions.map((tx) => tx.txidHex);
}

export function blockHeaderHex(entry: ViewEntry): string {
  return toHex(entry.header.toBytes());
}

/** GET /block/:hash/txs[/:start_index]: 25 transactions from a multiple of 25. */
export function blockTxs(reads: ChainReads, entry: ViewEntry, startText: string | undefined): EsploraJson[] {
  const parsed = startText !== undefined && /^\+?[0-9]+$/.test(startText) ? Number(startText) : 0;
  const start = Number.isSafeInteger(parsed) && parsed <= 0xffffffff ? parsed : 0;
  if (start % BLOCK_TXS_PER_PAGE !== 0) throw badRequest(`start index must be a multiple of ${BLOCK_TXS_PER_PAGE}`);
  const block = reads.snapshot.readBlock(entry);
  if (start >= block.transactions.length) throw badRequest('start index out of range');
  const undo = entry.height > 0 ? reads.snapshot.readUndo(entry) : undefined;
  const chain = reads.snapshot.params.name;
  return block.transactions.slice(start, start + BLOCK_TXS_PER_PAGE).map((tx, i) => {
    const position = start + i;
    const spent = position > 0 ? undo?.[position - 1] : undefined;
    const prevouts: (TxOut | undefined)[] = spent ? spent.map((coin) => coin.output) : reads.prevouts(tx);
    return txValue(tx, prevouts, entry, chain);
  });
}
