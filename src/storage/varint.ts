/**
 * Bitcoin Core's VARINT (serialize.h), the on-disk integer of coins and undo data — not
 * the wire's CompactSize. Base-128, most significant group first; every group but the
 * last has the high bit set and, when decoding, adds one to the value so far. That "+1"
 * makes each number's encoding unique (no redundant leading groups), which is why a
 * plain LEB128 codec would read Core's bytes wrongly.
 */
import { ByteReader, ByteWriter, DecodeError } from '../primitives/index.js';

const MAX_U64 = 0xffffffffffffffffn;

/** Writes `value` (a non-negative integer up to 2^64−1) as a VARINT. */
export function writeVarInt(writer: ByteWriter, value: number | bigint): ByteWriter {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`VARINT needs a non-negative safe integer, got ${value}`);
    // Numbers below 2^32 are the common case (heights, script sizes, most amounts): stay out of bigint.
    if (value <= 0xffffffff) return writeSmallVarInt(writer, value);
    value = BigInt(value);
  }
  if (value < 0n || value > MAX_U64) throw new RangeError(`VARINT needs a u64, got ${value}`);
  if (value <= 0xffffffffn) return writeSmallVarInt(writer, Number(value));
  const groups: number[] = [];
  let n = value;
  for (;;) {
    groups.push(Number(n & 0x7fn) | (groups.length ? 0x80 : 0));
    if (n <= 0x7fn) break;
    n = (n >> 7n) - 1n;
  }
  for (let i = groups.length - 1; i >= 0; i--) writer.u8(groups[i]!);
  return writer;
}

/** The groups of one VARINT below 2^32, least significant first (at most five); reused, writing is synchronous. */
const smallGroups = new Uint8Array(5);

function writeSmallVarInt(writer: ByteWriter, value: number): ByteWriter {
  // Every coin and undo record writes several of these: no array per call.
  let count = 0;
  let n = value;
  for (;;) {
    smallGroups[count] = (n & 0x7f) | (count ? 0x80 : 0);
    count++;
    if (n <= 0x7f) break;
    n = Math.floor(n / 128) - 1;
  }
  for (let i = count - 1; i >= 0; i--) writer.u8(smallGroups[i]!);
  return writer;
}

/**
 * Reads a VARINT into a 32-bit unsigned value, failing exactly where Core's
 * ReadVarInt<unsigned int> does: a value that would overflow 32 bits, including the
 * "+1" step landing on 2^32.
 */
export function readVarInt(reader: ByteReader): number {
  let n = 0;
  for (;;) {
    const byte = reader.u8();
    if (n > 0xffffffff >>> 7) throw new DecodeError('VARINT too large for 32 bits');
    n = n * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return n;
    if (n === 0xffffffff) throw new DecodeError('VARINT too large for 32 bits');
    n++;
  }
}

/** Reads a VARINT into a 64-bit unsigned bigint, with Core's overflow checks for uint64_t. */
export function readVarInt64(reader: ByteReader): bigint {
  let n = 0n;
  for (;;) {
    const byte = reader.u8();
    if (n > MAX_U64 >> 7n) throw new DecodeError('VARINT too large for 64 bits');
    n = (n << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) return n;
    if (n === MAX_U64) throw new DecodeError('VARINT too large for 64 bits');
    n++;
  }
}
