/**
 * Core's output compression (compressor.cpp), used by coins and undo records: amounts as
 * CompressAmount's decimal-exponent form, and scripts either as a one-byte template code
 * plus payload (P2PKH, P2SH, P2PK) or as VARINT(length + 6) and the raw bytes. Exact to
 * Core's bytes, so stored coins can be compared with Core's and hashed the same way.
 */
import * as secp from '@noble/secp256k1';
import { ByteReader, ByteWriter, DecodeError, type TxOut } from '../primitives/index.js';
import { readVarInt, readVarInt64, writeVarInt } from './varint.js';

const U64_MASK = 0xffffffffffffffffn;
/** Below this, CompressAmount's intermediate values stay exact in a double (9·n + 100 < 2^53). */
const FAST_AMOUNT_LIMIT = 900_000_000_000_000;

/**
 * CompressAmount: strip up to nine trailing decimal zeros into an exponent so that round
 * amounts take one or two bytes. Works on the uint64 reinterpretation of the value, as
 * Core casts CAmount to uint64_t.
 */
export function compressAmount(amount: bigint): bigint {
  const n = BigInt.asUintN(64, amount);
  if (n <= FAST_AMOUNT_LIMIT_BIG) return BigInt(compressAmountNumber(Number(n)));
  return compressAmountBig(n);
}

const FAST_AMOUNT_LIMIT_BIG = BigInt(FAST_AMOUNT_LIMIT);

/** CompressAmount as a number when it is one exactly (every amount an output can validly hold), else as a bigint. */
function compressAmountValue(amount: bigint): number | bigint {
  return amount >= 0n && amount <= FAST_AMOUNT_LIMIT_BIG ? compressAmountNumber(Number(amount)) : compressAmount(amount);
}

function compressAmountNumber(value: number): number {
  if (value === 0) return 0;
  let n = value;
  let e = 0;
  while (n % 10 === 0 && e < 9) {
    n /= 10;
    e++;
  }
  if (e < 9) {
    const d = n % 10;
    n = (n - d) / 10;
    return 1 + (n * 9 + d - 1) * 10 + e;
  }
  return 1 + (n - 1) * 10 + 9;
}

function compressAmountBig(value: bigint): bigint {
  let n = value;
  let e = 0n;
  while (n % 10n === 0n && e < 9n) {
    n /= 10n;
    e++;
  }
  if (e < 9n) {
    const d = n % 10n;
    n /= 10n;
    return (1n + (n * 9n + d - 1n) * 10n + e) & U64_MASK;
  }
  return (1n + (n - 1n) * 10n + 9n) & U64_MASK;
}

/**
 * DecompressAmount, the inverse, with uint64 wrap-around where Core's arithmetic would
 * wrap (only reachable from values no valid output has). Returns the uint64 result;
 * callers building an output reinterpret it as a signed amount.
 */
export function decompressAmount(compressed: bigint): bigint {
  let x = BigInt.asUintN(64, compressed);
  if (x === 0n) return 0n;
  x--;
  const e = x % 10n;
  x /= 10n;
  let n: bigint;
  if (e < 9n) {
    const d = (x % 9n) + 1n;
    x /= 9n;
    n = (x * 10n + d) & U64_MASK;
  } else {
    n = (x + 1n) & U64_MASK;
  }
  for (let i = 0n; i < e; i++) n = (n * 10n) & U64_MASK;
  return n;
}

/** Script template codes 0–5 stand for themselves; larger sizes are stored as size + 6. */
const SPECIAL_SCRIPTS = 6;
/** Core's MAX_SCRIPT_SIZE: longer stored scripts decode to a lone OP_RETURN, as in Core. */
const MAX_SCRIPT_SIZE = 10_000;
const OP_DUP = 0x76;
const OP_HASH160 = 0xa9;
const OP_EQUAL = 0x87;
const OP_EQUALVERIFY = 0x88;
const OP_CHECKSIG = 0xac;
const OP_RETURN = 0x6a;

function isValidUncompressedKey(key: Uint8Array): boolean {
  try {
    secp.Point.fromBytes(key);
    return true;
  } catch {
    return false;
  }
}

/**
 * The special (template) form of a script, or undefined when it has none: code 0 and the
 * hash for P2PKH, 1 for P2SH, 2/3 and x for compressed P2PK, 4/5 (4 | y parity) and x for
 * uncompressed P2PK whose key is a valid curve point (an invalid one could not be rebuilt).
 */
export function compressScript(script: Uint8Array): Uint8Array | undefined {
  const s = script;
  if (s.length === 25 && s[0] === OP_DUP && s[1] === OP_HASH160 && s[2] === 20 && s[23] === OP_EQUALVERIFY && s[24] === OP_CHECKSIG) {
    const out = new Uint8Array(21);
    out.set(s.subarray(3, 23), 1);
    return out;
  }
  if (s.length === 23 && s[0] === OP_HASH160 && s[1] === 20 && s[22] === OP_EQUAL) {
    const out = new Uint8Array(21);
    out[0] = 0x01;
    out.set(s.subarray(2, 22), 1);
    return out;
  }
  if (s.length === 35 && s[0] === 33 && s[34] === OP_CHECKSIG && (s[1] === 0x02 || s[1] === 0x03)) {
    const out = new Uint8Array(33);
    out[0] = s[1]!;
    out.set(s.subarray(2, 34), 1);
    return out;
  }
  if (s.length === 67 && s[0] === 65 && s[66] === OP_CHECKSIG && s[1] === 0x04 && isValidUncompressedKey(s.subarray(1, 66))) {
    const out = new Uint8Array(33);
    out[0] = 0x04 | (s[65]! & 0x01);
    out.set(s.subarray(2, 34), 1);
    return out;
  }
  return undefined;
}

function decompressSpecial(code: number, payload: Uint8Array): Uint8Array {
  switch (code) {
    case 0x00: {
      const out = new Uint8Array(25);
      out.set([OP_DUP, OP_HASH160, 20]);
      out.set(payload, 3);
      out[23] = OP_EQUALVERIFY;
      out[24] = OP_CHECKSIG;
      return out;
    }
    case 0x01: {
      const out = new Uint8Array(23);
      out.set([OP_HASH160, 20]);
      out.set(payload, 2);
      out[22] = OP_EQUAL;
      return out;
    }
    case 0x02:
    case 0x03: {
      const out = new Uint8Array(35);
      out.set([33, code]);
      out.set(payload, 2);
      out[34] = OP_CHECKSIG;
      return out;
    }
    default: {
      // 0x04 / 0x05: rebuild y from x and the parity bit.
      const compressed = new Uint8Array(33);
      compressed[0] = code - 2;
      compressed.set(payload, 1);
      let full: Uint8Array;
      try {
        full = secp.Point.fromBytes(compressed).toBytes(false);
      } catch (err) {
        throw new DecodeError('compressed P2PK script holds an x that is not on the curve', { cause: err });
      }
      const out = new Uint8Array(67);
      out[0] = 65;
      out.set(full, 1);
      out[66] = OP_CHECKSIG;
      return out;
    }
  }
}

/** ScriptCompression serialization: the special form if there is one, else VARINT(size + 6) ‖ script. */
export function writeCompressedScript(writer: ByteWriter, script: Uint8Array): void {
  const special = compressScript(script);
  if (special) {
    writer.bytes(special);
    return;
  }
  writeVarInt(writer, script.length + SPECIAL_SCRIPTS);
  writer.bytes(script);
}

export function readCompressedScript(reader: ByteReader): Uint8Array {
  const size = readVarInt(reader);
  if (size < SPECIAL_SCRIPTS) return decompressSpecial(size, reader.slice(size <= 1 ? 20 : 32));
  const length = size - SPECIAL_SCRIPTS;
  if (length > MAX_SCRIPT_SIZE) {
    // Core keeps such outputs unspendable without storing them: skip the bytes, yield OP_RETURN.
    reader.slice(length);
    return Uint8Array.of(OP_RETURN);
  }
  return reader.slice(length);
}

/** TxOutCompression: VARINT(CompressAmount(value)) then the compressed script. */
export function writeCompressedTxOut(writer: ByteWriter, value: bigint, scriptPubKey: Uint8Array): void {
  // Coins and undo records write one per output: numbers, not bigints, where they are exact.
  writeVarInt(writer, compressAmountValue(value));
  writeCompressedScript(writer, scriptPubKey);
}

export function readCompressedTxOut(reader: ByteReader): TxOut {
  const value = BigInt.asIntN(64, decompressAmount(readVarInt64(reader)));
  return { value, scriptPubKey: readCompressedScript(reader) };
}
