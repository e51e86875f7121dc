import { hashToHex } from './bytes.js';
import { sha256d } from './hashes.js';
import { ByteReader } from './reader.js';
import { ByteWriter } from './writer.js';

export const HEADER_SIZE = 80;

export interface BlockHeaderFields {
  /** Signed 32-bit, as Core's CBlockHeader::nVersion (version bits are read from it). */
  version: number;
  prevHash: Uint8Array;
  merkleRoot: Uint8Array;
  time: number;
  bits: number;
  nonce: number;
}

export class BlockHeader implements BlockHeaderFields {
  readonly version: number;
  readonly prevHash: Uint8Array;
  readonly merkleRoot: Uint8Array;
  readonly time: number;
  readonly bits: number;
  readonly nonce: number;
  private cachedHash: Uint8Array | undefined;
  private cachedBytes: Uint8Array | undefined;

  constructor(fields: BlockHeaderFields) {
    this.version = fields.version | 0;
    this.prevHash = fields.prevHash;
    this.merkleRoot = fields.merkleRoot;
    this.time = fields.time >>> 0;
    this.bits = fields.bits >>> 0;
    this.nonce = fields.nonce >>> 0;
  }

  toBytes(): Uint8Array {
    this.cachedBytes ??= new ByteWriter(HEADER_SIZE)
      .i32(this.version)
      .bytes(this.prevHash)
      .bytes(this.merkleRoot)
      .u32(this.time)
      .u32(this.bits)
      .u32(this.nonce)
      .finish();
    return this.cachedBytes;
  }

  get hash(): Uint8Array {
    this.cachedHash ??= sha256d(this.toBytes());
    return this.cachedHash;
  }

  get hashHex(): string {
    return hashToHex(this.hash);
  }
}

export function readHeader(reader: ByteReader): BlockHeader {
  const start = reader.offset;
  const header = new BlockHeader({
    version: reader.i32(),
    prevHash: reader.slice(32),
    merkleRoot: reader.slice(32),
    time: reader.u32(),
    bits: reader.u32(),
    nonce: reader.u32(),
  });
  // Keep the exact wire bytes so hashing never re-serializes.
  (header as unknown as { cachedBytes: Uint8Array }).cachedBytes = reader.bytes.subarray(start, start + HEADER_SIZE);
  return header;
}

export function parseHeader(bytes: Uint8Array): BlockHeader {
  const reader = new ByteReader(bytes);
  const header = readHeader(reader);
  reader.assertEnd();
  return header;
}
