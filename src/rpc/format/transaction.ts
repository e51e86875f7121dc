/**
 * Transaction objects as RPC prints them (Core's TxToUniv, core_write.cpp), the
 * getrawtransaction wrapping around it (rawtransaction.cpp TxToJSON), and
 * decoderawtransaction with Core's witness/legacy decoding heuristics (DecodeHexTx).
 */
import type { Coin } from '../../consensus/index.js';
import { DecodeError, fromHex, hashToHex, isHex, parseTransaction, toHex, type Transaction } from '../../primitives/index.js';
import { MAX_SCRIPT_SIZE, type ChainName } from '../../script/index.js';
import { RPC_DESERIALIZATION_ERROR, RpcError } from '../errors.js';
import { amountJson } from '../values.js';
import type { ResultObject } from './result.js';
import { hasValidOps, scriptPubKeyJson, scriptSigJson } from './script.js';

/** The coins a transaction's inputs spent, in input order (one entry of a block's undo data). */
export type SpentCoins = readonly Coin[];

export interface TxJsonOptions {
  chain: ChainName;
  /** Append "hex" (the witness serialization). Default true; decoderawtransaction passes false. */
  includeHex?: boolean;
  /**
   * The spent coins of a non-coinbase transaction (its undo data). With them the object
   * carries "fee"; ignored for a coinbase, which Core never gives undo data.
   */
  undo?: SpentCoins;
  /** With `undo`: put a "prevout" object in every input (getblock 3, getrawtransaction 2). */
  prevouts?: boolean;
  /** REST /rest/tx only: "blockhash" after "fee". RPC callers add their own (rawTransactionJson). */
  blockhash?: string;
}

function prevoutJson(coin: Coin, chain: ChainName): ResultObject {
  return {
    generated: coin.coinbase,
    height: coin.height,
    value: amountJson(coin.output.value),
    scriptPubKey: scriptPubKeyJson(coin.output.scriptPubKey, chain),
  };
}

/** The coins a transaction's inputs spent, checked against its inputs; none for a coinbase, which Core never gives undo data. */
export function spentCoinsOf(tx: Transaction, coinbase: boolean, options: TxJsonOptions): SpentCoins | undefined {
  const undo = coinbase ? undefined : options.undo;
  if (undo && undo.length !== tx.inputs.length) {
    throw new Error(`undo data has ${undo.length} coins for ${tx.inputs.length} inputs of ${tx.txidHex}`);
  }
  return undo;
}

/**
 * Core's TxToUniv: txid, hash, version (unsigned), size, vsize, weight, locktime, vin,
 * vout, fee?, blockhash?, hex?. Coinbase inputs show "coinbase" instead of the prevout and
 * scriptSig; "txinwitness" only for inputs with witness items.
 */
export function txToJson(tx: Transaction, options: TxJsonOptions): ResultObject {
  const { chain } = options;
  const coinbase = tx.isCoinbase();
  const undo = spentCoinsOf(tx, coinbase, options);
  const vin = tx.inputs.map((input, i) => {
    const entry: ResultObject = {};
    if (coinbase) {
      entry.coinbase = toHex(input.scriptSig);
    } else {
      entry.txid = hashToHex(input.prevout.txid);
      entry.vout = input.prevout.vout;
      entry.scriptSig = scriptSigJson(input.scriptSig);
    }
    if (input.witness.length > 0) entry.txinwitness = input.witness.map(toHex);
    if (undo && options.prevouts) entry.prevout = prevoutJson(undo[i]!, chain);
    entry.sequence = input.sequence;
    return entry;
  });
  const vout = tx.outputs.map((output, n) => ({
    value: amountJson(output.value),
    n,
    scriptPubKey: scriptPubKeyJson(output.scriptPubKey, chain),
  }));
  const out: ResultObject = {
    txid: tx.txidHex,
    hash: tx.wtxidHex,
    version: tx.version,
    size: tx.totalSize,
    vsize: tx.vsize,
    weight: tx.weight,
    locktime: tx.locktime,
    vin,
    vout,
  };
  if (undo) {
    let fee = 0n;
    for (const coin of undo) fee += coin.output.value;
    for (const output of tx.outputs) fee -= output.value;
    out.fee = amountJson(fee);
  }
  if (options.blockhash !== undefined) out.blockhash = options.blockhash;
  if (options.includeHex ?? true) out.hex = toHex(tx.toBytes());
  return out;
}

/** Where a confirmed transaction's block stands, for getrawtransaction's trailing fields. */
export interface TxBlockContext {
  /** The block hash (display hex): always printed as "blockhash". */
  hash: string;
  /**
   * Known block: in the active chain, its confirmations (≥ 1) and time; off the active
   * chain, confirmations 0 and no time. Absent when the hash is not in the block index.
   */
  index?: { confirmations: number; time?: number };
}

export interface RawTransactionJsonOptions {
  chain: ChainName;
  /** Set when the caller passed a blockhash argument: "in_active_chain" comes first. */
  inActiveChain?: boolean;
  block?: TxBlockContext;
  /** Verbosity 2 for a confirmed non-coinbase transaction whose undo data was read: fee and prevouts. */
  undo?: SpentCoins;
}

/**
 * getrawtransaction verbosity 1 and 2: in_active_chain?, TxToUniv with hex (and with fee
 * and prevouts given undo data), then blockhash, confirmations, time, blocktime.
 */
export function rawTransactionJson(tx: Transaction, options: RawTransactionJsonOptions): ResultObject {
  const out: ResultObject = {};
  if (options.inActiveChain !== undefined) out.in_active_chain = options.inActiveChain;
  Object.assign(out, txToJson(tx, { chain: options.chain, includeHex: true, undo: options.undo, prevouts: true }));
  const block = options.block;
  if (block) {
    out.blockhash = block.hash;
    if (block.index) {
      out.confirmations = block.index.confirmations;
      if (block.index.time !== undefined) {
        out.time = block.index.time;
        out.blocktime = block.index.time;
      }
    }
  }
  return out;
}

/**
 * Core's CheckTxScriptsSanity: every scriptSig of a non-coinbase and every scriptPubKey
 * has valid opcodes and fits MAX_SCRIPT_SIZE. Used to choose between two readings.
 */
function scriptsSane(tx: Transaction): boolean {
  const sane = (script: Uint8Array) => hasValidOps(script) && script.length <= MAX_SCRIPT_SIZE;
  if (!tx.isCoinbase() && !tx.inputs.every((input) => sane(input.scriptSig))) return false;
  return tx.outputs.every((output) => sane(output.scriptPubKey));
}

function tryParse(bytes: Uint8Array, allowWitness: boolean): Transaction | null {
  try {
    return parseTransaction(bytes, { allowWitness });
  } catch (err) {
    if (err instanceof DecodeError) return null;
    throw err;
  }
}

/**
 * Core's DecodeHexTx: the extended (BIP144) reading and the legacy reading, each only if
 * allowed and only if it consumes every byte. A reading whose scripts are sane wins
 * (extended first); if neither is sane, the extended one; else whichever parsed. Null
 * for non-hex text (including the empty string) or when no reading parses.
 */
export function decodeTxHex(hex: string, tryNoWitness = true, tryWitness = true): Transaction | null {
  if (hex.length === 0 || !isHex(hex)) return null;
  const bytes = fromHex(hex);
  const extended = tryWitness ? tryParse(bytes, true) : null;
  if (extended && scriptsSane(extended)) return extended;
  const legacy = tryNoWitness ? tryParse(bytes, false) : null;
  if (legacy && scriptsSane(legacy)) return legacy;
  return extended ?? legacy;
}

/**
 * The decoderawtransaction RPC: TxToUniv without hex. `isWitness` undefined tries both
 * readings; true only the extended one; false only the legacy one. Undecodable input
 * is -22 "TX decode failed".
 */
export function decodeRawTransaction(hex: string, chain: ChainName, isWitness?: boolean): ResultObject {
  const tx = decodeTxHex(hex, isWitness === undefined ? true : !isWitness, isWitness === undefined ? true : isWitness);
  if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed');
  return txToJson(tx, { chain, includeHex: false });
}
