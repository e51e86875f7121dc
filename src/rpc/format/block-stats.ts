/**
 * getblockstats (Core's rpc/blockchain.cpp): per-block statistics computed from the block
 * and its undo data alone. Amounts are satoshis, fee rates sat/vB with integer division,
 * percentiles weighted by transaction weight.
 */
import { blockSubsidy, isBIP30Repeat, MAX_BLOCK_SERIALIZED_SIZE, MAX_MONEY, type ChainParams, type IndexedHeader } from '../../consensus/index.js';
import { compactSizeLength, WITNESS_SCALE_FACTOR, type Block, type TxOut } from '../../primitives/index.js';
import { isUnspendable } from '../../script/index.js';
import { RPC_INVALID_PARAMETER, RPC_TYPE_ERROR, RpcError } from '../errors.js';
import { typeMismatchMessage } from '../json.js';
import type { ResultObject } from './result.js';
import type { SpentCoins } from './transaction.js';

/**
 * Core v31.0's PER_UTXO_OVERHEAD: outpoint (36) + height (4) + a coinbase flag counted as
 * a separate bool (1). What the node prints by default.
 */
export const PER_UTXO_OVERHEAD = 41;
/**
 * The overhead after Core PR #31449 (master, after v31.x): the coinbase flag shares the
 * height's 32 bits. Core master's rpc_getblockstats.json expects this value.
 */
export const PER_UTXO_OVERHEAD_PACKED = 40;

/** The fee-rate percentiles getblockstats reports, in order. */
export const FEERATE_PERCENTILES = 5;

/** Every statistic, in the order Core builds the full result. */
export const BLOCK_STAT_NAMES = [
  'avgfee',
  'avgfeerate',
  'avgtxsize',
  'blockhash',
  'feerate_percentiles',
  'height',
  'ins',
  'maxfee',
  'maxfeerate',
  'maxtxsize',
  'medianfee',
  'mediantime',
  'mediantxsize',
  'minfee',
  'minfeerate',
  'mintxsize',
  'outs',
  'subsidy',
  'swtotal_size',
  'swtotal_weight',
  'swtxs',
  'time',
  'total_out',
  'total_size',
  'total_weight',
  'totalfee',
  'txs',
  'utxo_increase',
  'utxo_size_inc',
  'utxo_increase_actual',
  'utxo_size_inc_actual',
] as const;

export type BlockStatName = (typeof BLOCK_STAT_NAMES)[number];

export type BlockStats = { [K in BlockStatName]: K extends 'blockhash' ? string : K extends 'feerate_percentiles' ? number[] : number };

export interface BlockStatsInput {
  block: Block;
  /** Spent coins of each non-coinbase transaction, in block order (empty for genesis). */
  undo: readonly SpentCoins[];
  height: number;
  /** The block's median time past. */
  medianTimePast: number;
  /** For the subsidy (halving interval). */
  params: Pick<ChainParams, 'subsidyHalvingInterval'>;
}

export interface BlockStatsOptions {
  /** Bytes added per UTXO to its serialized output; default v31.0's 41. */
  perUtxoOverhead?: number;
}

/** Serialized size of an output: value, CompactSize length, script. */
function txOutSize(out: TxOut): number {
  return 8 + compactSizeLength(out.scriptPubKey.length) + out.scriptPubKey.length;
}

/** Core's CalculateTruncatedMedian: the middle value, or the floor of the mean of the two middle ones; 0 if empty. */
export function truncatedMedian(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 0 ? Math.floor((sorted[mid - 1]! + sorted[mid]!) / 2) : sorted[mid]!;
}

/**
 * Core's CalculatePercentilesByWeight: sort (feerate, weight) pairs, walk the cumulative
 * weight, and take for each of the 10/25/50/75/90 % marks (doubles, as Core computes
 * them) the first feerate whose cumulative weight reaches it; marks never reached take
 * the last feerate. All zeros without transactions.
 */
export function percentilesByWeight(scores: readonly (readonly [feerate: number, weight: number])[], totalWeight: number): number[] {
  const result: number[] = new Array(FEERATE_PERCENTILES).fill(0);
  if (scores.length === 0) return result;
  const sorted = [...scores].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const marks = [totalWeight / 10.0, totalWeight / 4.0, totalWeight / 2.0, (totalWeight * 3.0) / 4.0, (totalWeight * 9.0) / 10.0];
  let next = 0;
  let cumulative = 0;
  for (const [feerate, weight] of sorted) {
    cumulative += weight;
    while (next < FEERATE_PERCENTILES && cumulative >= marks[next]!) result[next++] = feerate;
  }
  const last = sorted[sorted.length - 1]![0];
  for (; next < FEERATE_PERCENTILES; next++) result[next] = last;
  return result;
}

/** Core's IsBIP30Repeat, which reads only the block's hash and height. */
function bip30Repeat(hash: Uint8Array, height: number): boolean {
  return isBIP30Repeat({ hash, height } as IndexedHeader);
}

/**
 * Every statistic of getblockstats for a block, in Core's output order (the table of
 * rpc-results.md §10; the utxo_* keys end the object as utxo_increase, utxo_size_inc,
 * utxo_increase_actual, utxo_size_inc_actual).
 */
export function computeBlockStats(input: BlockStatsInput, options: BlockStatsOptions = {}): BlockStats {
  const { block, undo, height } = input;
  const overhead = options.perUtxoOverhead ?? PER_UTXO_OVERHEAD;
  const txs = block.transactions;
  if (undo.length !== Math.max(0, txs.length - 1)) {
    throw new Error(`undo data covers ${undo.length} transactions, the block has ${txs.length - 1} besides the coinbase`);
  }
  const repeat = bip30Repeat(block.header.hash, height);

  let maxfee = 0n;
  let maxfeerate = 0n;
  // Core's sentinels: a minimum still equal to them prints as 0.
  let minfee = MAX_MONEY;
  let minfeerate = MAX_MONEY;
  let totalOut = 0n;
  let totalfee = 0n;
  let inputs = 0;
  let outputs = 0;
  let maxtxsize = 0;
  let mintxsize = MAX_BLOCK_SERIALIZED_SIZE;
  let swtotalSize = 0;
  let swtotalWeight = 0;
  let swtxs = 0;
  let totalSize = 0;
  let totalWeight = 0;
  let utxos = 0;
  let utxoSizeInc = 0;
  let utxoSizeIncActual = 0;
  const fees: number[] = [];
  const feerates: [number, number][] = [];
  const sizes: number[] = [];

  txs.forEach((tx, i) => {
    outputs += tx.outputs.length;
    const coinbase = i === 0;
    let txOut = 0n;
    for (const out of tx.outputs) {
      txOut += out.value;
      const size = txOutSize(out) + overhead;
      utxoSizeInc += size;
      // The genesis outputs and the coinbases of the two BIP30 repeats never entered the UTXO set.
      if (height === 0 || (repeat && coinbase)) continue;
      if (isUnspendable(out.scriptPubKey)) continue;
      utxos++;
      utxoSizeIncActual += size;
    }
    if (coinbase) return;

    inputs += tx.inputs.length;
    totalOut += txOut;
    const size = tx.totalSize;
    sizes.push(size);
    maxtxsize = Math.max(maxtxsize, size);
    mintxsize = Math.min(mintxsize, size);
    totalSize += size;
    const weight = tx.weight;
    totalWeight += weight;
    if (tx.hasWitness) {
      swtxs++;
      swtotalSize += size;
      swtotalWeight += weight;
    }

    let txIn = 0n;
    for (const coin of undo[i - 1]!) {
      txIn += coin.output.value;
      const spent = txOutSize(coin.output) + overhead;
      utxoSizeInc -= spent;
      utxoSizeIncActual -= spent;
    }
    const fee = txIn - txOut;
    fees.push(Number(fee));
    if (fee > maxfee) maxfee = fee;
    if (fee < minfee) minfee = fee;
    totalfee += fee;
    // sat/vB: fee × 4 / weight, truncated like C++ integer division.
    const feerate = weight ? (fee * BigInt(WITNESS_SCALE_FACTOR)) / BigInt(weight) : 0n;
    feerates.push([Number(feerate), weight]);
    if (feerate > maxfeerate) maxfeerate = feerate;
    if (feerate < minfeerate) minfeerate = feerate;
  });

  const nonCoinbase = txs.length - 1;
  return {
    avgfee: nonCoinbase > 0 ? Number(totalfee / BigInt(nonCoinbase)) : 0,
    avgfeerate: totalWeight ? Number((totalfee * BigInt(WITNESS_SCALE_FACTOR)) / BigInt(totalWeight)) : 0,
    avgtxsize: nonCoinbase > 0 ? Math.floor(totalSize / nonCoinbase) : 0,
    blockhash: block.header.hashHex,
    feerate_percentiles: percentilesByWeight(feerates, totalWeight),
    height,
    ins: inputs,
    maxfee: Number(maxfee),
    maxfeerate: Number(maxfeerate),
    maxtxsize,
    medianfee: truncatedMedian(fees),
    mediantime: input.medianTimePast,
    mediantxsize: truncatedMedian(sizes),
    minfee: minfee === MAX_MONEY ? 0 : Number(minfee),
    minfeerate: minfeerate === MAX_MONEY ? 0 : Number(minfeerate),
    mintxsize: mintxsize === MAX_BLOCK_SERIALIZED_SIZE ? 0 : mintxsize,
    outs: outputs,
    subsidy: Number(blockSubsidy(height, input.params as ChainParams)),
    swtotal_size: swtotalSize,
    swtotal_weight: swtotalWeight,
    swtxs,
    time: block.header.time,
    total_out: Number(totalOut),
    total_size: totalSize,
    total_weight: totalWeight,
    totalfee: Number(totalfee),
    txs: txs.length,
    utxo_increase: outputs - inputs,
    utxo_size_inc: utxoSizeInc,
    utxo_increase_actual: utxos - inputs,
    utxo_size_inc_actual: utxoSizeIncActual,
  };
}

/** UTF-8 byte order, as std::set<std::string> sorts the requested names. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The getblockstats "stats" argument's elements as names: each must be a JSON string
 * (-3 "JSON value of type … is not of expected type string", Core's get_str()).
 * Core checks this before reading the block.
 */
export function parseStatNames(stats: readonly unknown[] | null | undefined): string[] {
  if (!stats) return [];
  return stats.map((stat) => {
    if (typeof stat !== 'string') throw new RpcError(RPC_TYPE_ERROR, typeMismatchMessage(stat, 'string'));
    return stat;
  });
}

/**
 * The getblockstats result: every statistic when no name was requested (or the array was
 * empty), else the requested ones once each in byte-lexicographic order. An unknown name
 * is -8 "Invalid selected statistic '<name>'" (the first in that order).
 */
export function selectBlockStats(all: BlockStats, names: readonly string[]): ResultObject {
  if (names.length === 0) return all as unknown as ResultObject;
  const known = all as unknown as Record<string, ResultObject[string]>;
  const out: ResultObject = {};
  for (const name of [...new Set(names)].sort(byteOrder)) {
    if (!Object.hasOwn(known, name)) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid selected statistic '${name}'`);
    out[name] = known[name]!;
  }
  return out;
}
