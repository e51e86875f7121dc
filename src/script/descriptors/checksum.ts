/**
 * BIP380 descriptor checksums (Core's DescriptorChecksum and CheckChecksum). The
 * polynomial arithmetic is on 40-bit values, which JavaScript's 32-bit bitwise operators
 * cannot hold, so each value is kept as an 8-bit high part and a 32-bit low part.
 */
import { DescriptorError } from './errors.js';

const INPUT_CHARSET = "0123456789()[],'/*abcdefgh@:$%{}" + 'IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~' + 'ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
export const CHECKSUM_LENGTH = 8;

/** Position of each ASCII character in INPUT_CHARSET, -1 for characters outside it. */
const POSITIONS = new Int16Array(128).fill(-1);
for (let i = 0; i < INPUT_CHARSET.length; i++) POSITIONS[INPUT_CHARSET.charCodeAt(i)] = i;

/** The generator's multiples for bits 0..4 of the coefficient shifted out, split high/low. */
const GENERATOR_HIGH = [0xf5, 0xa9, 0x1b, 0x37, 0x64];
const GENERATOR_LOW = [0xdee51989, 0xfdca3312, 0xab10e32d, 0x06b1677a, 0x4d626ffd];

/** The XOR of those multiples for each 5-bit value shifted out: one lookup per step instead of five tests. */
const REDUCE_HIGH = new Uint8Array(32);
const REDUCE_LOW = new Uint32Array(32);
for (let top = 0; top < 32; top++) {
  for (let bit = 0; bit < 5; bit++) {
    if ((top >>> bit) & 1) {
      REDUCE_HIGH[top]! ^= GENERATOR_HIGH[bit]!;
      REDUCE_LOW[top] = (REDUCE_LOW[top]! ^ GENERATOR_LOW[bit]!) >>> 0;
    }
  }
}

class PolyMod {
  high = 0;
  low = 1;

  /** Multiply by x modulo the generator, then add `value` (0..31). */
  feed(value: number): void {
    const top = this.high >>> 3;
    this.high = (((this.high & 7) << 5) | (this.low >>> 27)) ^ REDUCE_HIGH[top]!;
    this.low = (((this.low << 5) | value) ^ REDUCE_LOW[top]!) >>> 0;
  }
}

/**
 * The 8-character checksum of a descriptor payload (the text before '#'), or '' when the
 * payload holds a character outside the descriptor character set.
 */
export function descriptorChecksum(payload: string): string {
  const poly = new PolyMod();
  let groups = 0;
  let groupCount = 0;
  for (let i = 0; i < payload.length; i++) {
    const code = payload.charCodeAt(i);
    const position = code < 128 ? POSITIONS[code]! : -1;
    if (position < 0) return '';
    poly.feed(position & 31);
    groups = groups * 3 + (position >> 5);
    if (++groupCount === 3) {
      poly.feed(groups);
      groups = 0;
      groupCount = 0;
    }
  }
  if (groupCount > 0) poly.feed(groups);
  for (let i = 0; i < CHECKSUM_LENGTH; i++) poly.feed(0);
  poly.low = (poly.low ^ 1) >>> 0;
  const value = poly.high * 2 ** 32 + poly.low;
  let out = '';
  for (let j = 0; j < CHECKSUM_LENGTH; j++) out += CHECKSUM_CHARSET[Math.floor(value / 2 ** (5 * (7 - j))) % 32];
  return out;
}

/** `payload#checksum` (Core's AddChecksum). */
export function addChecksum(payload: string): string {
  return `${payload}#${descriptorChecksum(payload)}`;
}

/** Core counts the bytes of its UTF-8 input, so lengths in messages are byte counts. */
function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

export interface CheckedDescriptor {
  /** The descriptor without '#' and checksum. */
  readonly payload: string;
  /** The checksum computed for the payload. */
  readonly checksum: string;
}

/**
 * Core's CheckChecksum: splits off an optional `#checksum`, verifies it, and throws
 * DescriptorError with Core's message when it is missing (and required), malformed or
 * wrong, or when the payload has characters outside the descriptor set.
 */
export function checkChecksum(text: string, requireChecksum: boolean): CheckedDescriptor {
  const parts = text.split('#');
  if (parts.length > 2) throw new DescriptorError("Multiple '#' symbols");
  if (parts.length === 1 && requireChecksum) throw new DescriptorError('Missing checksum');
  const provided = parts.length === 2 ? parts[1]! : null;
  if (provided !== null && utf8Length(provided) !== CHECKSUM_LENGTH) {
    throw new DescriptorError(`Expected 8 character checksum, not ${utf8Length(provided)} characters`);
  }
  const payload = parts[0]!;
  const checksum = descriptorChecksum(payload);
  if (checksum === '') throw new DescriptorError('Invalid characters in payload');
  if (provided !== null && provided !== checksum) {
    throw new DescriptorError(`Provided checksum '${provided}' does not match computed checksum '${checksum}'`);
  }
  return { payload, checksum };
}

/**
 * Core's GetDescriptorChecksum: the checksum of the payload, or '' when the text would fail
 * checkChecksum (getdescriptorinfo's "checksum" field).
 */
export function getDescriptorChecksum(text: string): string {
  try {
    return checkChecksum(text, false).checksum;
  } catch (err) {
    if (err instanceof DescriptorError) return '';
    throw err;
  }
}
