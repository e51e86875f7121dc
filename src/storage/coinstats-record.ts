/**
 * The coinstatsindex value of one block (Core's CoinStatsIndex DBVal, plus the running
 * MuHash3072 state Core keeps only for its best block): the UTXO set's counts and amounts
 * after the block, the running totals Core's gettxoutsetinfo subtracts between a block and
 * its parent for block_info, and the set hash as numerator ‖ denominator, so the index can
 * continue from any stored block (a reorg moves it back to the fork without replaying) and
 * the digest is computed only when asked for. Keyed by block hash, so the stats of blocks a
 * reorg disconnected stay readable, as Core's hash-keyed copies are.
 *
 * Layout: height u32 LE, txouts u64 LE, bogosize u64 LE, then ten i64 LE amounts in the
 * order of CoinStatsTotals, then the 768-byte MuHash state.
 */
import { DecodeError } from '../primitives/index.js';

export interface CoinStatsTotals {
  totalAmount: bigint;
  totalSubsidy: bigint;
  totalUnspendable: bigint;
  prevoutSpent: bigint;
  newOutputsExCoinbase: bigint;
  coinbase: bigint;
  unspendableGenesis: bigint;
  unspendableBip30: bigint;
  unspendableScripts: bigint;
  unspendableUnclaimed: bigint;
}

export interface CoinStatsRecord extends CoinStatsTotals {
  height: number;
  txouts: bigint;
  bogosize: bigint;
  /** MuHash3072 numerator ‖ denominator, 768 bytes. */
  muhashState: Uint8Array;
}

export const COINSTATS_TOTAL_KEYS = [
  'totalAmount',
  'totalSubsidy',
  'totalUnspendable',
  'prevoutSpent',
  'newOutputsExCoinbase',
  'coinbase',
  'unspendableGenesis',
  'unspendableBip30',
  'unspendableScripts',
  'unspendableUnclaimed',
] as const satisfies readonly (keyof CoinStatsTotals)[];

const MUHASH_STATE_SIZE = 768;
const HEADER_SIZE = 4 + 8 + 8 + 8 * COINSTATS_TOTAL_KEYS.length;
export const COINSTATS_RECORD_SIZE = HEADER_SIZE + MUHASH_STATE_SIZE;

export function encodeCoinStatsRecord(record: CoinStatsRecord): Uint8Array {
  if (record.muhashState.length !== MUHASH_STATE_SIZE) throw new RangeError(`coinstats MuHash state must be ${MUHASH_STATE_SIZE} bytes`);
  const out = new Uint8Array(COINSTATS_RECORD_SIZE);
  const view = new DataView(out.buffer);
  view.setUint32(0, record.height, true);
  view.setBigUint64(4, record.txouts, true);
  view.setBigUint64(12, record.bogosize, true);
  COINSTATS_TOTAL_KEYS.forEach((key, i) => view.setBigInt64(20 + 8 * i, record[key], true));
  out.set(record.muhashState, HEADER_SIZE);
  return out;
}

export function decodeCoinStatsRecord(bytes: Uint8Array): CoinStatsRecord {
  if (bytes.length !== COINSTATS_RECORD_SIZE) throw new DecodeError(`coinstats record must be ${COINSTATS_RECORD_SIZE} bytes, got ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const totals = Object.fromEntries(COINSTATS_TOTAL_KEYS.map((key, i) => [key, view.getBigInt64(20 + 8 * i, true)])) as unknown as CoinStatsTotals;
  return {
    height: view.getUint32(0, true),
    txouts: view.getBigUint64(4, true),
    bogosize: view.getBigUint64(12, true),
    ...totals,
    muhashState: bytes.slice(HEADER_SIZE),
  };
}
