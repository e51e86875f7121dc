/**
 * The storage layer's error vocabulary. Codecs throw primitives' DecodeError for bytes
 * that do not decode; the typed readers wrap it in CorruptionError naming the table and
 * key, because at that level a decode failure means the stored state is damaged.
 */

/** Base class: environment misuse or state the layer cannot work with. */
export class StorageError extends Error {
  override readonly name: string = 'StorageError';
}

/** A stored record does not decode: the database or a file was damaged or written by something else. */
export class CorruptionError extends StorageError {
  override readonly name: string = 'CorruptionError';
}

export type BlockFileErrorReason =
  | 'missing' // the blk file does not exist (never written, or pruned)
  | 'bad-position' // the position cannot hold a record (before the 8-byte header, beyond the file)
  | 'bad-magic' // the record header does not start with the network magic
  | 'bad-size' // the header's size is out of range
  | 'out-of-range' // a partial read asks for bytes outside the block
  | 'truncated' // the file ends inside the record
  | 'read-only'; // a write was attempted on a store opened read-only

/** A flat block file cannot give what was asked: the reason says which way, for the edge to map. */
export class BlockFileError extends StorageError {
  override readonly name: string = 'BlockFileError';
  readonly reason: BlockFileErrorReason;

  constructor(reason: BlockFileErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/** blocks/xor.dat is unusable or conflicts with the -blocksxor setting. */
export class XorKeyError extends StorageError {
  override readonly name: string = 'XorKeyError';
}
