/**
 * Esplora's address and script-hash queries over the address index and the mempool
 * mirror: stats, history (pooled first, then confirmed newest first, 25 a page, paged by
 * the last txid seen) and unspent outputs (confirmed ones not spent in the pool, then
 * pooled ones). Within a block, history follows the block's order backwards; electrs
 * orders a block's rows by its own key instead (spends, then fundings, by txid).
 */
import { bytesEqual, hashToHex, type Transaction } from '../primitives/index.js';
import { isUnspendable } from '../script/index.js';
import { scriptHashOf, type AddressHistoryRecord, type IndexesReader } from '../storage/index.js';
import type { ChainReads, FoundTx } from './chain-reads.js';
import { EsploraError } from './errors.js';
import type { EsploraJson } from './json-text.js';
import { txValue, utxoValue } from './values.js';

/** electrs's CHAIN_TXS_PER_PAGE and MAX_MEMPOOL_TXS. */
export const CHAIN_TXS_PER_PAGE = 25;
export const MAX_MEMPOOL_TXS = 50;
/** electrs's --utxos-limit default: larger sets are refused rather than sent. */
export const UTXOS_LIMIT = 500;

interface Stats {
  funded_txo_count: number;
  funded_txo_sum: bigint;
  spent_txo_count: number;
  spent_txo_sum: bigint;
  tx_count: number;
}

const emptyStats = (): Stats => ({ funded_txo_count: 0, funded_txo_sum: 0n, spent_txo_count: 0, spent_txo_sum: 0n, tx_count: 0 });

function withIndex<T>(reads: ChainReads, fn: (reader: IndexesReader) => T): T {
  const index = reads.snapshot.addressIndex;
  if (!index) throw new EsploraError(400, 'address index is not enabled (start with -addressindex)');
  return index.read((reader) => fn(reader));
}

/** What one pooled transaction does to a script. */
function pooledActivity(reads: ChainReads, tx: Transaction, scriptHash: Uint8Array): { funded: { vout: number; value: bigint }[]; spent: bigint[] } {
  const funded: { vout: number; value: bigint }[] = [];
  tx.outputs.forEach((output, vout) => {
    if (!isUnspendable(output.scriptPubKey) && bytesEqual(scriptHashOf(output.scriptPubKey), scriptHash)) funded.push({ vout, value: output.value });
  });
  const spent: bigint[] = [];
  reads.prevouts(tx).forEach((prevout) => {
    if (prevout && bytesEqual(scriptHashOf(prevout.scriptPubKey), scriptHash)) spent.push(prevout.value);
  });
  return { funded, spent };
}

function pooledTxs(reads: ChainReads, scriptHash: Uint8Array): FoundTx[] {
  const out: FoundTx[] = [];
  for (const txid of reads.mempoolTxidsFor(scriptHash)) {
    const found = reads.findTx(txid);
    if (found?.pooled) out.push(found);
  }
  return out;
}

/** GET /address/:a and /scripthash/:h: {<kind>: text, chain_stats, mempool_stats}, keys alphabetical as electrs's json! prints them. */
export function addressStats(reads: ChainReads, scriptHash: Uint8Array, kind: 'address' | 'scripthash', text: string): EsploraJson {
  const chain = emptyStats();
  withIndex(reads, (r) => {
    for (const h of r.addressHistory(scriptHash)) {
      chain.tx_count++;
      chain.funded_txo_count += h.fundedCount;
      chain.funded_txo_sum += h.fundedSum;
      chain.spent_txo_count += h.spentCount;
      chain.spent_txo_sum += h.spentSum;
    }
  });
  const mempool = emptyStats();
  for (const found of pooledTxs(reads, scriptHash)) {
    const activity = pooledActivity(reads, found.tx, scriptHash);
    mempool.tx_count++;
    mempool.funded_txo_count += activity.funded.length;
    mempool.funded_txo_sum += activity.funded.reduce((s, f) => s + f.value, 0n);
    mempool.spent_txo_count += activity.spent.length;
    mempool.spent_txo_sum += activity.spent.reduce((s, v) => s + v, 0n);
  }
  const stats = (s: Stats): EsploraJson => ({ ...s });
  return kind === 'address'
    ? { address: text, chain_stats: stats(chain), mempool_stats: stats(mempool) }
    : { chain_stats: stats(chain), mempool_stats: stats(mempool), scripthash: text };
}

function confirmedValue(reads: ChainReads, record: AddressHistoryRecord): EsploraJson | undefined {
  const found = reads.findTx(record.txid);
  if (!found) return undefined;
  return txValue(found.tx, reads.prevouts(found.tx), found.block, reads.snapshot.params.name);
}

/** Where a txid sits in a script's confirmed history (the paging cursor), if it is there. */
function historyPosition(reads: ChainReads, r: IndexesReader, scriptHash: Uint8Array, txid: Uint8Array): { height: number; txPos: number } | undefined {
  const found = reads.findTx(txid);
  if (found?.block) {
    const height = found.block.height;
    for (const h of r.addressHistory(scriptHash, { newestFirst: true, after: { height: height + 1, txPos: 0 } })) {
      if (h.height < height) break;
      if (bytesEqual(h.txid, txid)) return { height: h.height, txPos: h.txPos };
    }
    return undefined;
  }
  // Without the txindex the history is walked until the txid turns up.
  if (!reads.snapshot.txindex) {
    for (const h of r.addressHistory(scriptHash, { newestFirst: true })) if (bytesEqual(h.txid, txid)) return { height: h.height, txPos: h.txPos };
  }
  return undefined;
}

/** Up to 25 confirmed transactions, newest first, after `lastSeen` when given (an unknown one: none). */
export function chainHistory(reads: ChainReads, scriptHash: Uint8Array, lastSeen: Uint8Array | undefined): EsploraJson[] {
  const records = withIndex(reads, (r) => {
    let after: { height: number; txPos: number } | undefined;
    if (lastSeen) {
      after = historyPosition(reads, r, scriptHash, lastSeen);
      if (!after) return [];
    }
    const page: AddressHistoryRecord[] = [];
    for (const h of r.addressHistory(scriptHash, { newestFirst: true, ...(after ? { after } : {}) })) {
      page.push(h);
      if (page.length === CHAIN_TXS_PER_PAGE) break;
    }
    return page;
  });
  const out: EsploraJson[] = [];
  for (const record of records) {
    const value = confirmedValue(reads, record);
    if (value) out.push(value);
  }
  return out;
}

/** Up to 50 pooled transactions touching the script, oldest first. */
export function mempoolHistory(reads: ChainReads, scriptHash: Uint8Array): EsploraJson[] {
  return pooledTxs(reads, scriptHash)
    .slice(0, MAX_MEMPOOL_TXS)
    .map((found) => txValue(found.tx, reads.prevouts(found.tx), undefined, reads.snapshot.params.name));
}

/** GET …/txs: the pooled ones, then the first confirmed page. */
export function fullHistory(reads: ChainReads, scriptHash: Uint8Array): EsploraJson[] {
  return [...mempoolHistory(reads, scriptHash), ...chainHistory(reads, scriptHash, undefined)];
}

/** GET …/utxo: confirmed outputs not spent in the pool, then pooled outputs not spent in the pool. */
export function unspentOutputs(reads: ChainReads, scriptHash: Uint8Array): EsploraJson[] {
  const pooled = pooledTxs(reads, scriptHash);
  const spentInPool = new Set<string>();
  for (const found of pooled) for (const input of found.tx.inputs) spentInPool.add(`${hashToHex(input.prevout.txid)}:${input.prevout.vout}`);
  const out: EsploraJson[] = [];
  withIndex(reads, (r) => {
    for (const utxo of r.addressUtxos(scriptHash)) {
      if (spentInPool.size > 0 && spentInPool.has(`${hashToHex(utxo.txid)}:${utxo.vout}`)) continue;
      if (out.length >= UTXOS_LIMIT) throw new EsploraError(400, 'Too many history entries');
      out.push(utxoValue(utxo.txid, utxo.vout, reads.activeBlock(utxo.height), utxo.value));
    }
  });
  for (const found of pooled) {
    for (const { vout, value } of pooledActivity(reads, found.tx, scriptHash).funded) {
      if (spentInPool.has(`${found.tx.txidHex}:${vout}`)) continue;
      out.push(utxoValue(found.tx.txid, vout, undefined, value));
    }
  }
  if (out.length > UTXOS_LIMIT) throw new EsploraError(400, 'Too many unspent outputs');
  return out;
}

