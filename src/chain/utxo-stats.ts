/**
 * Statistics over the whole UTXO set (Core's ComputeUTXOStats, behind gettxoutsetinfo):
 * counts, Core's "bogosize", the total amount, and the set hash — hash_serialized_3
 * (SHA256d over every coin's serialization in key order) or MuHash3072 (order-free).
 * Runs over one storage snapshot, so a concurrent block commit cannot tear it.
 */
import type { Coin } from '../consensus/index.js';
import { ByteWriter, MuHash3072, type OutPoint } from '../primitives/index.js';
import { createHash } from 'node:crypto';

export type UtxoHashType = 'hash_serialized_3' | 'muhash' | 'none';

export interface UtxoStats {
  txouts: number;
  bogosize: number;
  /** Internal byte order; undefined for 'none'. */
  hash: Uint8Array | undefined;
  totalAmount: bigint;
  transactions: number;
}

/** Core's TxOutSer: outpoint, height·2+coinbase as u32, then the output. */
export function serializeCoinRecord(outpoint: OutPoint, coin: Coin, writer = new ByteWriter(80)): Uint8Array {
  writer.bytes(outpoint.txid).u32(outpoint.vout).u32(coin.height * 2 + (coin.coinbase ? 1 : 0));
  writer.i64(coin.output.value).varBytes(coin.output.scriptPubKey);
  return writer.finish();
}

/** Core's GetBogoSize. */
export function bogoSize(coin: Coin): number {
  return 32 + 4 + 4 + 8 + 2 + coin.output.scriptPubKey.length;
}

export function computeUtxoStats(coins: Iterable<{ outpoint: OutPoint; coin: Coin }>, hashType: UtxoHashType): UtxoStats {
  // Streaming SHA-256: the set can be far larger than memory allows to concatenate.
  const serialized = hashType === 'hash_serialized_3' ? createHash('sha256') : undefined;
  const muhash = hashType === 'muhash' ? new MuHash3072() : undefined;
  let txouts = 0;
  let bogosize = 0;
  let totalAmount = 0n;
  let transactions = 0;
  let lastTxid: Uint8Array | undefined;
  for (const { outpoint, coin } of coins) {
    if (!lastTxid || !sameTxid(lastTxid, outpoint.txid)) {
      transactions++;
      lastTxid = outpoint.txid;
    }
    txouts++;
    bogosize += bogoSize(coin);
    totalAmount += coin.output.value;
    if (serialized || muhash) {
      const record = serializeCoinRecord(outpoint, coin);
      serialized?.update(record);
      muhash?.insert(record);
    }
  }
  let hash: Uint8Array | undefined;
  if (serialized) {
    // SHA256d: a second SHA-256 over the streamed first one.
    hash = createHash('sha256').update(serialized.digest()).digest();
  } else if (muhash) {
    hash = muhash.finalize();
  }
  return { txouts, bogosize, hash: hash ? new Uint8Array(hash) : undefined, totalAmount, transactions };
}

function sameTxid(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return false;
  return true;
}
