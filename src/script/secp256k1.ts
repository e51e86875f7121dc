/**
 * The signature backend interface. Validation calls exactly three curve operations, so
 * they sit behind one small interface: a faster backend (WASM or native libsecp256k1) can
 * be swapped in and cross-checked against @noble/secp256k1, the reference.
 */
import * as noble from '@noble/secp256k1';
import { sha256Noble } from '../primitives/index.js';
import { parseDerLax } from './der.js';

export interface SignatureBackend {
  readonly name: string;
  /**
   * ECDSA verification of a 64-byte compact signature (r || s) over a 32-byte digest.
   * High-S signatures are accepted: Core normalizes before verifying, and LOW_S is a
   * script-flag rule checked elsewhere. The public key is 33 or 65 bytes (0x04 form).
   */
  verifyEcdsa(compactSig: Uint8Array, digest: Uint8Array, publicKey: Uint8Array): boolean;
  /** BIP340 verification against a 32-byte x-only key. */
  verifySchnorr(sig: Uint8Array, message: Uint8Array, xOnlyKey: Uint8Array): boolean;
  /** True when outputKey (x-only) with y parity `parity` equals lift_x(internalKey) + tweak·G. */
  checkTapTweak(internalKey: Uint8Array, tweak: Uint8Array, outputKey: Uint8Array, parity: number): boolean;
}

noble.hashes.sha256 = sha256Noble;

const CURVE_ORDER = noble.Point.CURVE().n;

function bytesToBigInt(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

export const nobleBackend: SignatureBackend = {
  name: '@noble/secp256k1',
  verifyEcdsa(compactSig, digest, publicKey) {
    try {
      return noble.verify(compactSig, digest, publicKey, { prehash: false, lowS: false, format: 'compact' });
    } catch {
      return false;
    }
  },
  verifySchnorr(sig, message, xOnlyKey) {
    try {
      return noble.schnorr.verify(sig, message, xOnlyKey);
    } catch {
      return false;
    }
  },
  checkTapTweak(internalKey, tweak, outputKey, parity) {
    try {
      const t = bytesToBigInt(tweak);
      if (t >= CURVE_ORDER) return false;
      const compressed = new Uint8Array(33);
      compressed[0] = 0x02;
      compressed.set(internalKey, 1);
      const p = noble.Point.fromBytes(compressed);
      const q = t === 0n ? p : p.add(noble.Point.BASE.multiply(t));
      if (q.is0()) return false;
      const { x, y } = q.toAffine();
      return x === bytesToBigInt(outputKey) && Number(y & 1n) === (parity & 1);
    } catch {
      return false;
    }
  },
};

let activeBackend: SignatureBackend = nobleBackend;

export function signatureBackend(): SignatureBackend {
  return activeBackend;
}

export function setSignatureBackend(backend: SignatureBackend): void {
  activeBackend = backend;
}

/** Core's CPubKey size rule: 33 bytes for 02/03, 65 for 04/06/07, nothing else. */
export function isValidPublicKeySize(key: Uint8Array): boolean {
  if (key.length === 0) return false;
  const header = key[0]!;
  if (header === 2 || header === 3) return key.length === 33;
  if (header === 4 || header === 6 || header === 7) return key.length === 65;
  return false;
}

/**
 * Core's CPubKey::IsFullyValid: the size rule, then a point on the curve (a hybrid key,
 * 06/07, is read as libsecp256k1 reads it: its uncompressed form with a matching parity).
 */
export function isFullyValidPublicKey(key: Uint8Array): boolean {
  if (!isValidPublicKeySize(key)) return false;
  let bytes = key;
  if (key[0] === 6 || key[0] === 7) {
    if ((key[64]! & 1) !== (key[0] & 1)) return false;
    bytes = Uint8Array.of(4, ...key.subarray(1));
  }
  try {
    noble.Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Core's CPubKey::Verify: lax DER parse, then verify. Hybrid keys (0x06/0x07), which
 * libsecp256k1 parses when the prefix matches y's parity, are rewritten to 0x04 because
 * not every backend accepts them. `backend` defaults to the active one (the differential
 * test passes each in turn).
 */
export function verifyEcdsaDer(derSig: Uint8Array, digest: Uint8Array, publicKey: Uint8Array, backend: SignatureBackend = activeBackend): boolean {
  if (!isValidPublicKeySize(publicKey)) return false;
  let key = publicKey;
  if (key[0] === 6 || key[0] === 7) {
    if ((key[64]! & 1) !== (key[0]! & 1)) return false;
    key = key.slice();
    key[0] = 4;
  }
  const parsed = parseDerLax(derSig);
  if (!parsed || parsed.overflow) return false;
  return backend.verifyEcdsa(parsed.bytes, digest, key);
}
