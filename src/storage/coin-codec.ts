/**
 * Core's Coin serialization (coins.h): VARINT(height·2 + coinbase) then the compressed
 * output. This is the value of every entry in the coins table and, with one extra byte,
 * the unit of undo data (see undo-codec.ts). The Coin type is consensus's, so the chain,
 * the checks and storage share one vocabulary.
 */
import type { Coin } from '../consensus/index.js';
import { ByteReader, ByteWriter } from '../primitives/index.js';
import { readCompressedTxOut, writeCompressedTxOut } from './compressor.js';
import { readVarInt, writeVarInt } from './varint.js';

/** Heights are stored as height·2 + coinbase in 32 bits, so this is the largest that fits. */
export const MAX_COIN_HEIGHT = 0x7fffffff;

export function coinCode(coin: Coin): number {
  if (!Number.isInteger(coin.height) || coin.height < 0 || coin.height > MAX_COIN_HEIGHT) {
    throw new RangeError(`coin height out of range: ${coin.height}`);
  }
  return coin.height * 2 + (coin.coinbase ? 1 : 0);
}

export function writeCoin(writer: ByteWriter, coin: Coin): void {
  writeVarInt(writer, coinCode(coin));
  writeCompressedTxOut(writer, coin.output.value, coin.output.scriptPubKey);
}

/** Reads one coin. The script may be a view into the reader's bytes. */
export function readCoin(reader: ByteReader): Coin {
  const code = readVarInt(reader);
  return { output: readCompressedTxOut(reader), height: code >>> 1, coinbase: (code & 1) === 1 };
}

export function encodeCoin(coin: Coin): Uint8Array {
  const writer = new ByteWriter(32 + coin.output.scriptPubKey.length);
  writeCoin(writer, coin);
  return writer.finish();
}

/** Decodes a whole coins-table value; trailing bytes are corruption, not slack. */
export function decodeCoin(bytes: Uint8Array): Coin {
  const reader = new ByteReader(bytes);
  const coin = readCoin(reader);
  reader.assertEnd();
  return coin;
}
