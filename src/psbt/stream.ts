/**
 * Core's SpanReader as the PSBT deserializer sees it: every failure is the text of the
 * std::ios_base::failure Core throws (libstdc++ appends ": iostream error" to what()).
 */
import { Transaction, type TxIn, type TxOut } from '../primitives/index.js';

/** Core's MAX_SIZE: the largest CompactSize a range-checked read accepts. */
const MAX_SIZE = 0x02000000;

export class PsbtDecodeError extends Error {
  override readonly name = 'PsbtDecodeError';
}

/** A std::ios_base::failure: what() with libstdc++'s suffix. */
export const iosFailure = (message: string) => new PsbtDecodeError(`${message}: iostream error`);

export class SpanReader {
  offset = 0;
  constructor(readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  get empty(): boolean {
    return this.remaining === 0;
  }

  read(n: number): Uint8Array {
    if (n > this.remaining) throw iosFailure('SpanReader::read(): end of data');
    const out = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return out;
  }

  u8(): number {
    return this.read(1)[0]!;
  }

  u32(): number {
    const b = this.read(4);
    return (b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24)) >>> 0;
  }

  i32(): number {
    return this.u32() | 0;
  }

  i64(): bigint {
    const b = this.read(8);
    return new DataView(b.buffer, b.byteOffset, 8).getBigInt64(0, true);
  }

  /** Core's ReadCompactSize. */
  compactSize(rangeCheck = true): bigint {
    const first = this.u8();
    let size: bigint;
    if (first < 253) size = BigInt(first);
    else if (first === 253) {
      const b = this.read(2);
      size = BigInt(b[0]! | (b[1]! << 8));
      if (size < 253n) throw iosFailure('non-canonical ReadCompactSize()');
    } else if (first === 254) {
      size = BigInt(this.u32());
      if (size < 0x10000n) throw iosFailure('non-canonical ReadCompactSize()');
    } else {
      const b = this.read(8);
      size = new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
      if (size < 0x100000000n) throw iosFailure('non-canonical ReadCompactSize()');
    }
    if (rangeCheck && size > BigInt(MAX_SIZE)) throw iosFailure('ReadCompactSize(): size too large');
    return size;
  }

  count(): number {
    return Number(this.compactSize());
  }

  /** A std::vector<unsigned char>. */
  bytesVector(): Uint8Array {
    return this.read(this.count()).slice();
  }

  txOut(): TxOut {
    const value = this.i64();
    return { value, scriptPubKey: this.bytesVector() };
  }

  /** Core's UnserializeTransaction, with or without the extended (BIP144) reading. */
  transaction(allowWitness: boolean): Transaction {
    const version = this.u32();
    const readInputs = (): TxIn[] =>
      Array.from({ length: this.count() }, () => {
        const txid = this.read(32).slice();
        const vout = this.u32();
        const scriptSig = this.bytesVector();
        return { prevout: { txid, vout }, scriptSig, sequence: this.u32(), witness: [] };
      });
    const readOutputs = (): TxOut[] => Array.from({ length: this.count() }, () => this.txOut());
    let flags = 0;
    let inputs = readInputs();
    let outputs: TxOut[] = [];
    if (inputs.length === 0 && allowWitness) {
      flags = this.u8();
      if (flags !== 0) {
        inputs = readInputs();
        outputs = readOutputs();
      }
    } else {
      outputs = readOutputs();
    }
    if (flags & 1 && allowWitness) {
      flags ^= 1;
      inputs = inputs.map((input) => ({ ...input, witness: this.witnessStack() }));
      if (!inputs.some((input) => input.witness.length > 0)) throw iosFailure('Superfluous witness record');
    }
    if (flags) throw iosFailure('Unknown transaction optional data');
    const locktime = this.u32();
    return new Transaction({ version, inputs, outputs, locktime });
  }

  witnessStack(): Uint8Array[] {
    return Array.from({ length: this.count() }, () => this.bytesVector());
  }

  /** Core's UnserializeFromVector: a length, then `read` must consume exactly that many bytes. */
  fromVector<T>(read: () => T): T {
    const expected = this.count();
    const before = this.remaining;
    const value = read();
    if (this.remaining + expected !== before) throw iosFailure('Size of value was not the stated size');
    return value;
  }
}
