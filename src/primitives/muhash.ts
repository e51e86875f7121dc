/**
 * MuHash3072 (Core's crypto/muhash.cpp): a rolling set hash where elements are mapped to
 * numbers modulo the prime 2^3072 − 1103717 and multiplied together; removing divides.
 * gettxoutsetinfo's `muhash` and the coinstats index use it: the result does not depend
 * on the order coins are added.
 */
import { createCipheriv } from 'node:crypto';
import { sha256 } from './hashes.js';

const BYTE_SIZE = 384;
const PRIME = (1n << 3072n) - 1103717n;

function fromLittleEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]!);
  return n;
}

function toLittleEndian(n: bigint, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let v = n;
  for (let i = 0; i < length; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/**
 * The inverse of `a` modulo the prime, by the extended Euclidean algorithm: about forty
 * times faster in BigInt arithmetic than Fermat's a^(p-2), which the index pays per query.
 */
function modInverse(a: bigint, modulus: bigint): bigint {
  let [r0, r1] = [a % modulus, modulus];
  let [s0, s1] = [1n, 0n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [s0, s1] = [s1, s0 - q * s1];
  }
  return ((s0 % modulus) + modulus) % modulus;
}

/** Core's ToNum3072: SHA256 of the data keys ChaCha20, whose first 384 keystream bytes are the number. */
function elementNumber(data: Uint8Array): bigint {
  const cipher = createCipheriv('chacha20', sha256(data), new Uint8Array(16));
  const keystream = cipher.update(new Uint8Array(BYTE_SIZE));
  return fromLittleEndian(new Uint8Array(keystream.buffer, keystream.byteOffset, BYTE_SIZE)) % PRIME;
}

export class MuHash3072 {
  private numerator = 1n;
  private denominator = 1n;

  insert(data: Uint8Array): this {
    this.numerator = (this.numerator * elementNumber(data)) % PRIME;
    return this;
  }

  remove(data: Uint8Array): this {
    this.denominator = (this.denominator * elementNumber(data)) % PRIME;
    return this;
  }

  /** Combines another set into this one (Core's operator*=). */
  combine(other: MuHash3072): this {
    this.numerator = (this.numerator * other.numerator) % PRIME;
    this.denominator = (this.denominator * other.denominator) % PRIME;
    return this;
  }

  /** Removes another set from this one (Core's operator/=). */
  subtract(other: MuHash3072): this {
    this.numerator = (this.numerator * other.denominator) % PRIME;
    this.denominator = (this.denominator * other.numerator) % PRIME;
    return this;
  }

  /** SHA256 of the 384-byte little-endian numerator/denominator, in internal byte order. */
  finalize(): Uint8Array {
    const inverse = modInverse(this.denominator, PRIME);
    const value = (this.numerator * inverse) % PRIME;
    return sha256(toLittleEndian(value, BYTE_SIZE));
  }

  /** The state as numerator ‖ denominator (768 bytes), for persisting a running hash. */
  serialize(): Uint8Array {
    const out = new Uint8Array(2 * BYTE_SIZE);
    out.set(toLittleEndian(this.numerator, BYTE_SIZE), 0);
    out.set(toLittleEndian(this.denominator, BYTE_SIZE), BYTE_SIZE);
    return out;
  }

  static deserialize(bytes: Uint8Array): MuHash3072 {
    const m = new MuHash3072();
    m.numerator = fromLittleEndian(bytes.subarray(0, BYTE_SIZE));
    m.denominator = fromLittleEndian(bytes.subarray(BYTE_SIZE, 2 * BYTE_SIZE));
    return m;
  }

  /** Core's MuHash3072(span): a set holding one element. */
  static of(data: Uint8Array): MuHash3072 {
    return new MuHash3072().insert(data);
  }
}
