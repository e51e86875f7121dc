/**
 * Block undo data: what a block spent, so the chain can disconnect it and report spent
 * outputs (getblockstats, spenttxouts, getblock verbosity 3). The bytes are Core's
 * CBlockUndo serialization, the payload of a rev*.dat record without its framing and
 * checksum: CompactSize(non-coinbase tx count), then per transaction in block order
 * CompactSize(input count) and per input, in input order, the spent coin as
 * VARINT(height·2 + coinbase), a VARINT 0 when height > 0 (a version field old Core wrote
 * and still reads past), and the compressed output. Keeping Core's exact form costs one
 * byte per input and lets undo data be checked against Core's own rev files.
 */
import type { Coin } from '../consensus/index.js';
import { ByteReader, ByteWriter } from '../primitives/index.js';
import { coinCode } from './coin-codec.js';
import { readCompressedTxOut, writeCompressedTxOut } from './compressor.js';
import { readVarInt, writeVarInt } from './varint.js';

/** The coins one transaction spent, in input order. */
export type TxUndo = readonly Coin[];
/** Per non-coinbase transaction of the block, in block order. */
export type BlockUndo = readonly TxUndo[];

function writeUndoCoin(writer: ByteWriter, coin: Coin): void {
  writeVarInt(writer, coinCode(coin));
  if (coin.height > 0) writer.u8(0);
  writeCompressedTxOut(writer, coin.output.value, coin.output.scriptPubKey);
}

function readUndoCoin(reader: ByteReader): Coin {
  const code = readVarInt(reader);
  const height = code >>> 1;
  // Any value is accepted here, as Core does: the field is read and ignored.
  if (height > 0) readVarInt(reader);
  return { output: readCompressedTxOut(reader), height, coinbase: (code & 1) === 1 };
}

export function encodeBlockUndo(undo: BlockUndo): Uint8Array {
  let inputs = 0;
  for (const tx of undo) inputs += tx.length;
  const writer = new ByteWriter(16 + inputs * 40);
  writer.compactSize(undo.length);
  for (const tx of undo) {
    writer.compactSize(tx.length);
    for (const coin of tx) writeUndoCoin(writer, coin);
  }
  return writer.finish();
}

/** Decodes an undo-table value. Scripts are views into `bytes`. */
export function decodeBlockUndo(bytes: Uint8Array): Coin[][] {
  const reader = new ByteReader(bytes);
  const txCount = reader.compactSize();
  const undo: Coin[][] = [];
  for (let t = 0; t < txCount; t++) {
    const inputCount = reader.compactSize();
    const coins: Coin[] = [];
    for (let i = 0; i < inputCount; i++) coins.push(readUndoCoin(reader));
    undo.push(coins);
  }
  reader.assertEnd();
  return undo;
}
