/**
 * fee_estimates.dat in Core v31's format (CBlockPolicyEstimator::Write/Read): int32
 * version 309900 (v31 dropped the unused int32 earlier versions wrote after the version
 * and so raised it from 149900), uint32 best seen height, uint32 historical first and best,
 * the bucket bounds, then the medium, short and long horizons (decay, scale, fee-rate
 * averages, counts, confirmation and failure averages); doubles as their IEEE-754 bits in
 * a little-endian uint64 (Core's EncodeDouble), vectors with a CompactSize length.
 * Reading checks what Core checks and throws its messages.
 */
import { ByteReader, ByteWriter } from '../primitives/index.js';
import { CURRENT_FEES_FILE_VERSION } from './constants.js';
import type { EstimatorState } from './block-policy-estimator.js';
import type { TxConfirmStatsData } from './tx-confirm-stats.js';

const scratch = new DataView(new ArrayBuffer(8));

function writeDouble(w: ByteWriter, v: number): void {
  scratch.setFloat64(0, v, true);
  w.u64(scratch.getBigUint64(0, true));
}

function readDouble(r: ByteReader): number {
  scratch.setBigUint64(0, r.u64(), true);
  return scratch.getFloat64(0, true);
}

function writeDoubles(w: ByteWriter, values: readonly number[]): void {
  w.compactSize(values.length);
  for (const v of values) writeDouble(w, v);
}

function readDoubles(r: ByteReader): number[] {
  const n = r.compactSize();
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(readDouble(r));
  return out;
}

function writeMatrix(w: ByteWriter, rows: readonly (readonly number[])[]): void {
  w.compactSize(rows.length);
  for (const row of rows) writeDoubles(w, row);
}

function readMatrix(r: ByteReader): number[][] {
  const n = r.compactSize();
  const out: number[][] = [];
  for (let i = 0; i < n; i++) out.push(readDoubles(r));
  return out;
}

function writeStats(w: ByteWriter, s: TxConfirmStatsData): void {
  writeDouble(w, s.decay);
  w.u32(s.scale);
  writeDoubles(w, s.feeRateAvg);
  writeDoubles(w, s.txCtAvg);
  writeMatrix(w, s.confAvg);
  writeMatrix(w, s.failAvg);
}

/** TxConfirmStats::Read with its sanity checks. */
function readStats(r: ByteReader, numBuckets: number): TxConfirmStatsData {
  const decay = readDouble(r);
  if (decay <= 0 || decay >= 1) throw new Error('Corrupt estimates file. Decay must be between 0 and 1 (non-inclusive)');
  const scale = r.u32();
  if (scale === 0) throw new Error('Corrupt estimates file. Scale must be non-zero');
  const feeRateAvg = readDoubles(r);
  if (feeRateAvg.length !== numBuckets) throw new Error('Corrupt estimates file. Mismatch in feerate average bucket count');
  const txCtAvg = readDoubles(r);
  if (txCtAvg.length !== numBuckets) throw new Error('Corrupt estimates file. Mismatch in tx count bucket count');
  const confAvg = readMatrix(r);
  const maxPeriods = confAvg.length;
  const maxConfirms = scale * maxPeriods;
  if (maxConfirms <= 0 || maxConfirms > 6 * 24 * 7) throw new Error('Corrupt estimates file.  Must maintain estimates for between 1 and 1008 (one week) confirms');
  if (confAvg.some((row) => row.length !== numBuckets)) throw new Error('Corrupt estimates file. Mismatch in feerate conf average bucket count');
  const failAvg = readMatrix(r);
  if (failAvg.length !== maxPeriods) throw new Error('Corrupt estimates file. Mismatch in confirms tracked for failures');
  if (failAvg.some((row) => row.length !== numBuckets)) throw new Error('Corrupt estimates file. Mismatch in one of failure average bucket counts');
  return { decay, scale, feeRateAvg, txCtAvg, confAvg, failAvg };
}

export function encodeFeeEstimates(state: EstimatorState): Uint8Array {
  const w = new ByteWriter(64 * 1024);
  w.i32(CURRENT_FEES_FILE_VERSION);
  w.u32(state.bestSeenHeight);
  w.u32(state.historicalFirst);
  w.u32(state.historicalBest);
  writeDoubles(w, state.buckets);
  writeStats(w, state.horizons.medium);
  writeStats(w, state.horizons.short);
  writeStats(w, state.horizons.long);
  return w.finish();
}

/**
 * The file's state, or `{ oldVersion }` for a version below the current one (Core
 * warns "Incompatible old fee estimation data" and keeps its empty estimator). Throws
 * Core's message on a version too high or corrupt contents.
 */
export function decodeFeeEstimates(bytes: Uint8Array): EstimatorState | { oldVersion: number } {
  const r = new ByteReader(bytes);
  const versionRequired = r.i32();
  if (versionRequired > CURRENT_FEES_FILE_VERSION) throw new Error(`File version (${versionRequired}) too high to be read.`);
  const bestSeenHeight = r.u32();
  if (versionRequired < CURRENT_FEES_FILE_VERSION) return { oldVersion: versionRequired };
  const historicalFirst = r.u32();
  const historicalBest = r.u32();
  if (historicalFirst > historicalBest || historicalBest > bestSeenHeight) throw new Error('Corrupt estimates file. Historical block range for estimates is invalid');
  const buckets = readDoubles(r);
  if (buckets.length <= 1 || buckets.length > 1000) throw new Error('Corrupt estimates file. Must have between 2 and 1000 feerate buckets');
  const medium = readStats(r, buckets.length);
  const short = readStats(r, buckets.length);
  const long = readStats(r, buckets.length);
  return { bestSeenHeight, historicalFirst, historicalBest, buckets, horizons: { medium, short, long } };
}
