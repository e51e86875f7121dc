/**
 * Esplora's mempool queries over the mirrored mempool table: the backlog (count, vsize,
 * total fee and electrs's fee histogram), the txids, and the ten newest entries.
 */
import type { SnapshotChainView } from '../chain/index.js';
import { hashToHex, parseTransaction } from '../primitives/index.js';
import type { ChainReads } from './chain-reads.js';
import { f64, type EsploraJson } from './json-text.js';

/** electrs's VSIZE_BIN_WIDTH: a histogram bin closes once it holds more than this many vbytes. */
const VSIZE_BIN_WIDTH = 50_000;
/** electrs's RECENT_TXS_SIZE. */
const RECENT_TXS = 10;

/** electrs's make_fee_histogram: [fee rate (sat/vB, the bin's lowest), vsize] from the highest rate down. */
export function feeHistogram(entries: readonly { feeRate: number; vsize: number }[]): EsploraJson[] {
  const sorted = [...entries].sort((a, b) => b.feeRate - a.feeRate);
  const histogram: EsploraJson[] = [];
  let binSize = 0;
  let lastRate = 0;
  for (const e of sorted) {
    if (binSize > VSIZE_BIN_WIDTH && lastRate !== e.feeRate) {
      histogram.push([f64(lastRate), binSize]);
      binSize = 0;
    }
    lastRate = e.feeRate;
    binSize += e.vsize;
  }
  if (binSize > 0) histogram.push([f64(lastRate), binSize]);
  return histogram;
}

export function mempoolBacklog(snapshot: SnapshotChainView): EsploraJson {
  let count = 0;
  let vsize = 0;
  let totalFee = 0n;
  const rates: { feeRate: number; vsize: number }[] = [];
  for (const { entry } of snapshot.reader.mempoolEntries()) {
    count++;
    vsize += entry.vsize;
    totalFee += entry.fee;
    rates.push({ feeRate: Number(entry.fee) / entry.vsize, vsize: entry.vsize });
  }
  return { count, vsize, total_fee: totalFee, fee_histogram: feeHistogram(rates) };
}

export function mempoolTxids(snapshot: SnapshotChainView): string[] {
  return [...snapshot.reader.mempoolEntries()].map(({ txid }) => hashToHex(txid));
}

/** GET /mempool/recent: the ten latest entries, newest first; `value` is what their inputs spend. */
export function mempoolRecent(reads: ChainReads): EsploraJson[] {
  const newest: { txid: Uint8Array; sequence: number; time: number; fee: bigint; vsize: number; tx: Uint8Array }[] = [];
  for (const { txid, entry } of reads.snapshot.reader.mempoolEntries()) {
    newest.push({ txid, sequence: entry.sequence, time: entry.time, fee: entry.fee, vsize: entry.vsize, tx: entry.tx });
    if (newest.length > RECENT_TXS * 4) {
      newest.sort((a, b) => b.time - a.time || b.sequence - a.sequence);
      newest.length = RECENT_TXS;
    }
  }
  newest.sort((a, b) => b.time - a.time || b.sequence - a.sequence);
  return newest.slice(0, RECENT_TXS).map((e) => {
    const value = reads.prevouts(parseTransaction(e.tx)).reduce((sum, p) => sum + (p?.value ?? 0n), 0n);
    return { txid: hashToHex(e.txid), fee: e.fee, vsize: e.vsize, value };
  });
}
