/**
 * Core's UTXO snapshot file (node/utxo_snapshot.h SnapshotMetadata and WriteUTXOSnapshot):
 * "utxo" 0xff, version 2 (u16), the network magic, the base block hash, the coin count
 * (u64), then the coins grouped by txid in key order: txid, CompactSize count, and per coin
 * CompactSize vout and Core's Coin serialization. loadtxoutset on bitcoind reads it.
 */
import type { Coin } from '../consensus/index.js';
import { ByteWriter, bytesEqual, type OutPoint } from '../primitives/index.js';
import { writeCoin } from '../storage/index.js';

const SNAPSHOT_MAGIC = Uint8Array.of(0x75, 0x74, 0x78, 0x6f, 0xff);
const SNAPSHOT_VERSION = 2;
/** Bytes gathered before each write to the file. */
const CHUNK_BYTES = 1 << 20;

export function utxoSnapshotHeader(messageStart: Uint8Array, baseHash: Uint8Array, coinCount: number): Uint8Array {
  return new ByteWriter(51).bytes(SNAPSHOT_MAGIC).u16(SNAPSHOT_VERSION).bytes(messageStart).bytes(baseHash).u64(BigInt(coinCount)).finish();
}

/** The coins section in chunks of about a megabyte; `coins` in key order (txid, then vout). */
export function* utxoSnapshotCoins(coins: Iterable<{ outpoint: OutPoint; coin: Coin }>): Generator<Uint8Array> {
  let writer = new ByteWriter(CHUNK_BYTES + 4096);
  let group: { vout: number; coin: Coin }[] = [];
  let txid: Uint8Array | undefined;
  const flushGroup = (): void => {
    if (!txid) return;
    writer.bytes(txid).compactSize(group.length);
    for (const { vout, coin } of group) {
      writer.compactSize(vout);
      writeCoin(writer, coin);
    }
    group = [];
  };
  for (const { outpoint, coin } of coins) {
    if (!txid || !bytesEqual(txid, outpoint.txid)) {
      flushGroup();
      txid = outpoint.txid;
      if (writer.length >= CHUNK_BYTES) {
        yield writer.finish();
        writer = new ByteWriter(CHUNK_BYTES + 4096);
      }
    }
    group.push({ vout: outpoint.vout, coin });
  }
  flushGroup();
  yield writer.finish();
}
