/**
 * The `tx` record: Core's CWalletTx as it serializes it (wallet/transaction.h). The
 * transaction with witness, then where it stands as a block hash and an index (the
 * encoding TxStateSerializedBlockHash / TxStateSerializedIndex give each state), two
 * vestigial empty vectors, the mapValue strings (with "fromaccount" always, "n" for the
 * order position and "timesmart" when set), the order form, whether the time received is
 * the transaction's time, the time received, and two flags of which only the first is used.
 */
import { ByteReader, ByteWriter, readTransaction, serializeTransaction, type Transaction } from '../primitives/index.js';
import { readString } from './record-keys.js';

/** A wallet transaction's state (Core's TxState variants). */
export type WalletTxState =
  | { readonly kind: 'confirmed'; readonly blockHash: Uint8Array; readonly blockHeight: number; readonly index: number }
  | { readonly kind: 'mempool' }
  | { readonly kind: 'conflicted'; readonly conflictingBlockHash: Uint8Array; readonly conflictingBlockHeight: number }
  | { readonly kind: 'inactive'; readonly abandoned: boolean };

/** What the record keeps. Heights are not serialized: Core finds them again from the block index on loading. */
export interface WalletTxRecord {
  readonly tx: Transaction;
  /** The serialized block hash and index, as stored (see walletTxStateOf). */
  readonly blockHash: Uint8Array;
  readonly index: number;
  /** mapValue without the keys the serialization adds ("fromaccount", "n", "timesmart"), which are below. */
  readonly mapValue: ReadonlyMap<string, string>;
  readonly orderForm: readonly (readonly [string, string])[];
  readonly timeReceivedIsTxTime: number;
  readonly timeReceived: number;
  readonly fromMe: boolean;
  /** nOrderPos: -1 when it has none. */
  readonly orderPos: number;
  /** nTimeSmart: 0 when unset. */
  readonly timeSmart: number;
}

const ZERO_HASH = new Uint8Array(32);
const ONE_HASH = (() => {
  const h = new Uint8Array(32);
  h[0] = 1;
  return h;
})();

const isHash = (h: Uint8Array, to: Uint8Array): boolean => h.length === 32 && h.every((b, i) => b === to[i]);

/** TxStateSerializedBlockHash and TxStateSerializedIndex. */
export function serializedWalletTxState(state: WalletTxState): { blockHash: Uint8Array; index: number } {
  switch (state.kind) {
    case 'confirmed':
      return { blockHash: state.blockHash, index: state.index };
    case 'mempool':
      return { blockHash: ZERO_HASH, index: 0 };
    case 'conflicted':
      return { blockHash: state.conflictingBlockHash, index: -1 };
    case 'inactive':
      return state.abandoned ? { blockHash: ONE_HASH, index: -1 } : { blockHash: ZERO_HASH, index: 0 };
  }
}

/**
 * Core's TxStateInterpretSerialized, given the height of the block the hash names (undefined
 * when the block is unknown): a zero hash is inactive (a mempool transaction is found again
 * when the pool is scanned), hash one with index -1 is abandoned, a known block with index
 * -1 conflicted, with any other index confirmed. An unknown block leaves the state
 * unrecognized, which Core treats as inactive until a rescan.
 */
export function walletTxStateOf(blockHash: Uint8Array, index: number, heightOf: (hash: Uint8Array) => number | undefined): WalletTxState {
  if (isHash(blockHash, ZERO_HASH)) return { kind: 'inactive', abandoned: false };
  if (isHash(blockHash, ONE_HASH) && index === -1) return { kind: 'inactive', abandoned: true };
  const height = heightOf(blockHash);
  if (height === undefined) return { kind: 'inactive', abandoned: false };
  if (index === -1) return { kind: 'conflicted', conflictingBlockHash: blockHash, conflictingBlockHeight: height };
  return { kind: 'confirmed', blockHash, blockHeight: height, index };
}

const SERIALIZATION_KEYS = new Set(['fromaccount', 'n', 'timesmart', 'spent']);

export const walletTxValue = {
  encode(record: WalletTxRecord): Uint8Array {
    const map = new Map(record.mapValue);
    map.set('fromaccount', '');
    if (record.orderPos !== -1) map.set('n', String(record.orderPos));
    if (record.timeSmart) map.set('timesmart', String(record.timeSmart >>> 0));
    // std::map orders its keys bytewise.
    const entries = [...map].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const w = new ByteWriter(512);
    serializeTransaction(record.tx, true, w);
    w.bytes(record.blockHash).compactSize(0).i32(record.index).compactSize(0);
    const text = new TextEncoder();
    w.compactSize(entries.length);
    for (const [k, v] of entries) w.varBytes(text.encode(k)).varBytes(text.encode(v));
    w.compactSize(record.orderForm.length);
    for (const [k, v] of record.orderForm) w.varBytes(text.encode(k)).varBytes(text.encode(v));
    w.u32(record.timeReceivedIsTxTime).u32(record.timeReceived).u8(record.fromMe ? 1 : 0).u8(0);
    return w.finish();
  },

  decode(bytes: Uint8Array): WalletTxRecord {
    const r = new ByteReader(bytes);
    const tx = readTransaction(r);
    const blockHash = r.slice(32);
    r.varBytes(); // vMerkleBranch, always empty now
    const index = r.i32();
    r.varBytes(); // vtxPrev
    const all = new Map<string, string>();
    for (let n = r.compactSize(); n > 0; n--) all.set(readString(r), readString(r));
    const orderForm: [string, string][] = [];
    for (let n = r.compactSize(); n > 0; n--) orderForm.push([readString(r), readString(r)]);
    const timeReceivedIsTxTime = r.u32();
    const timeReceived = r.u32();
    const fromMe = r.u8() !== 0;
    r.u8(); // fSpent, unused
    r.assertEnd();
    // As Core's Unserialize: the order position and smart time come out of mapValue, which keeps the rest.
    const orderPos = all.has('n') ? Number.parseInt(all.get('n')!, 10) : -1;
    const timeSmart = all.has('timesmart') ? Number.parseInt(all.get('timesmart')!, 10) >>> 0 : 0;
    const mapValue = new Map([...all].filter(([k]) => !SERIALIZATION_KEYS.has(k)));
    return { tx, blockHash, index, mapValue, orderForm, timeReceivedIsTxTime, timeReceived, fromMe, orderPos: Number.isNaN(orderPos) ? -1 : orderPos, timeSmart };
  },
};
