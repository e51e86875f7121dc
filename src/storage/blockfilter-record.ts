/**
 * The block filter index's per-block header record: the filter's double-SHA-256 and the
 * filter header, 32 bytes each in internal byte order (Core's DBVal without the flat-file
 * position, since the encoded filter sits in its own table under the same key).
 */
import { DecodeError } from '../primitives/index.js';

export interface FilterHeaderRecord {
  /** double-SHA-256 of the encoded filter. */
  readonly filterHash: Uint8Array;
  /** double-SHA-256(filterHash ‖ previous block's header). */
  readonly header: Uint8Array;
}

export const FILTER_HEADER_RECORD_SIZE = 64;

export function encodeFilterHeaderRecord(record: FilterHeaderRecord): Uint8Array {
  if (record.filterHash.length !== 32 || record.header.length !== 32) throw new RangeError('filter hash and header must be 32 bytes each');
  const out = new Uint8Array(FILTER_HEADER_RECORD_SIZE);
  out.set(record.filterHash, 0);
  out.set(record.header, 32);
  return out;
}

export function decodeFilterHeaderRecord(bytes: Uint8Array): FilterHeaderRecord {
  if (bytes.length !== FILTER_HEADER_RECORD_SIZE) throw new DecodeError(`filter header record must be ${FILTER_HEADER_RECORD_SIZE} bytes, got ${bytes.length}`);
  return { filterHash: bytes.slice(0, 32), header: bytes.slice(32, 64) };
}
