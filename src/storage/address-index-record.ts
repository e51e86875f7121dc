/**
 * The address index's keys and values (-addressindex, layout.ts): a script's confirmed
 * history, its unspent outputs, and who spent each output. A script is named by its
 * script hash, SHA-256 of the scriptPubKey (internal byte order, as Electrum and Esplora
 * hash it). Integers in keys are big-endian, so a prefix scan over one script hash walks
 * its history in chain order (height, then position in the block); values are little-endian.
 *
 * - history  key: script hash (32) ‖ height u32 BE ‖ tx position in block u32 BE
 *            value: txid (32) ‖ funded outputs u32 ‖ spent outputs u32 ‖ funded sats u64 ‖ spent sats u64 (56)
 * - utxo     key: script hash (32) ‖ txid (32) ‖ vout u32 BE
 *            value: height u32 ‖ value u64 (12)
 * - spender  key: txid (32) ‖ vout u32 BE   (the spent output)
 *            value: spending txid (32) ‖ input index u32 ‖ height u32 (40)
 * - mempool  key: script hash (32) ‖ txid (32) (a pooled transaction funding or spending
 *            the script; chainstate environment, committed with the mempool table); value: one zero byte.
 */
import { DecodeError, sha256 } from '../primitives/index.js';

export const SCRIPT_HASH_SIZE = 32;

/** The name the index gives a script: SHA-256 of the scriptPubKey (Electrum's and Esplora's script hash). */
export function scriptHashOf(scriptPubKey: Uint8Array): Uint8Array {
  return sha256(scriptPubKey);
}
const HASH = 32;

/** One transaction's part in a script's confirmed history. */
export interface AddressHistoryRecord {
  readonly height: number;
  /** Position of the transaction in its block. */
  readonly txPos: number;
  readonly txid: Uint8Array;
  readonly fundedCount: number;
  readonly spentCount: number;
  readonly fundedSum: bigint;
  readonly spentSum: bigint;
}

/** An unspent confirmed output of a script. */
export interface AddressUtxoRecord {
  readonly txid: Uint8Array;
  readonly vout: number;
  readonly height: number;
  readonly value: bigint;
}

/** The confirmed input that spent an output. */
export interface SpenderRecord {
  readonly txid: Uint8Array;
  readonly vin: number;
  readonly height: number;
}

function checkScriptHash(scriptHash: Uint8Array): void {
  if (scriptHash.length !== SCRIPT_HASH_SIZE) throw new RangeError(`script hash must be ${SCRIPT_HASH_SIZE} bytes, got ${scriptHash.length}`);
}

function viewOf(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** history key; with only `scriptHash` the prefix itself (a range start). */
export function addressHistoryKey(scriptHash: Uint8Array, height: number, txPos: number): Uint8Array {
  checkScriptHash(scriptHash);
  const key = new Uint8Array(SCRIPT_HASH_SIZE + 8);
  key.set(scriptHash);
  const view = viewOf(key);
  view.setUint32(SCRIPT_HASH_SIZE, height, false);
  view.setUint32(SCRIPT_HASH_SIZE + 4, txPos, false);
  return key;
}

/** The first key after every key that starts with `prefix` (the end of a prefix range). */
export function prefixEnd(prefix: Uint8Array): Uint8Array {
  const end = prefix.slice();
  for (let i = end.length - 1; i >= 0; i--) {
    if (end[i] !== 0xff) {
      end[i]!++;
      return end.subarray(0, i + 1);
    }
  }
  throw new RangeError('a prefix of 0xff bytes has no end');
}

export function encodeAddressHistory(record: AddressHistoryRecord): Uint8Array {
  const out = new Uint8Array(HASH + 24);
  out.set(record.txid);
  const view = viewOf(out);
  view.setUint32(HASH, record.fundedCount, true);
  view.setUint32(HASH + 4, record.spentCount, true);
  view.setBigUint64(HASH + 8, record.fundedSum, true);
  view.setBigUint64(HASH + 16, record.spentSum, true);
  return out;
}

export function decodeAddressHistory(key: Uint8Array, value: Uint8Array): AddressHistoryRecord {
  if (key.length !== SCRIPT_HASH_SIZE + 8 || value.length !== HASH + 24) throw new DecodeError('address history entry has the wrong size');
  const k = viewOf(key);
  const v = viewOf(value);
  return {
    height: k.getUint32(SCRIPT_HASH_SIZE, false),
    txPos: k.getUint32(SCRIPT_HASH_SIZE + 4, false),
    txid: value.slice(0, HASH),
    fundedCount: v.getUint32(HASH, true),
    spentCount: v.getUint32(HASH + 4, true),
    fundedSum: v.getBigUint64(HASH + 8, true),
    spentSum: v.getBigUint64(HASH + 16, true),
  };
}

export function addressUtxoKey(scriptHash: Uint8Array, txid: Uint8Array, vout: number): Uint8Array {
  checkScriptHash(scriptHash);
  const key = new Uint8Array(SCRIPT_HASH_SIZE + HASH + 4);
  key.set(scriptHash);
  key.set(txid, SCRIPT_HASH_SIZE);
  viewOf(key).setUint32(SCRIPT_HASH_SIZE + HASH, vout, false);
  return key;
}

export function encodeAddressUtxo(height: number, value: bigint): Uint8Array {
  const out = new Uint8Array(12);
  const view = viewOf(out);
  view.setUint32(0, height, true);
  view.setBigUint64(4, value, true);
  return out;
}

export function decodeAddressUtxo(key: Uint8Array, value: Uint8Array): AddressUtxoRecord {
  if (key.length !== SCRIPT_HASH_SIZE + HASH + 4 || value.length !== 12) throw new DecodeError('address utxo entry has the wrong size');
  const v = viewOf(value);
  return {
    txid: key.slice(SCRIPT_HASH_SIZE, SCRIPT_HASH_SIZE + HASH),
    vout: viewOf(key).getUint32(SCRIPT_HASH_SIZE + HASH, false),
    height: v.getUint32(0, true),
    value: v.getBigUint64(4, true),
  };
}

export function spenderKey(txid: Uint8Array, vout: number): Uint8Array {
  const key = new Uint8Array(HASH + 4);
  key.set(txid);
  viewOf(key).setUint32(HASH, vout, false);
  return key;
}

export function encodeSpender(record: SpenderRecord): Uint8Array {
  const out = new Uint8Array(HASH + 8);
  out.set(record.txid);
  const view = viewOf(out);
  view.setUint32(HASH, record.vin, true);
  view.setUint32(HASH + 4, record.height, true);
  return out;
}

export function decodeSpender(value: Uint8Array): SpenderRecord {
  if (value.length !== HASH + 8) throw new DecodeError('spender entry has the wrong size');
  const view = viewOf(value);
  return { txid: value.slice(0, HASH), vin: view.getUint32(HASH, true), height: view.getUint32(HASH + 4, true) };
}

export function mempoolAddressKey(scriptHash: Uint8Array, txid: Uint8Array): Uint8Array {
  checkScriptHash(scriptHash);
  const key = new Uint8Array(SCRIPT_HASH_SIZE + HASH);
  key.set(scriptHash);
  key.set(txid, SCRIPT_HASH_SIZE);
  return key;
}
