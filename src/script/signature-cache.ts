/**
 * Core's signature cache: the signatures already found valid, so a transaction checked on
 * its way into the mempool costs no curve operation when its block connects (or when the
 * mempool checks it again under the block's flags). An entry is a salted SHA-256 of what a
 * verification depends on, as Core's SignatureCache::ComputeEntryECDSA/Schnorr: the salt,
 * a padding byte naming the kind ('E' or 'S'), the digest, the public key and the signature.
 * The salt is random per node, so nobody can aim collisions at the table.
 *
 * The table is a HashEntrySet in a SharedArrayBuffer: the coordinator creates it and every
 * worker thread attaches to the same memory (see workers/), so a signature stored by an
 * inline mempool check is found by a worker checking the block.
 */
import { randomBytes } from 'node:crypto';
import { HASH_ENTRY_SALT_BYTES, HashEntrySet, sha256 } from '../primitives/index.js';

const NONCE_BYTES = 32;
/** Room for the longest message: 64-byte prefix, digest, 65-byte key, 72-byte DER signature (and spare). */
const SCRATCH_BYTES = 64 + 32 + 65 + 80;

/** What one thread's checks cost: curve verifications run, and those the cache answered. */
export class SignatureCheckCounters {
  verified = 0;
  cacheHits = 0;
}

export class SignatureCache {
  readonly set: HashEntrySet;
  readonly #ecdsa = new Uint8Array(SCRATCH_BYTES);
  readonly #schnorr = new Uint8Array(SCRATCH_BYTES);

  /** A new cache of at most `maxBytes` (Core gives it half of -maxsigcachesize), shared between threads. */
  static create(maxBytes: number): SignatureCache {
    const salt = new Uint8Array(HASH_ENTRY_SALT_BYTES);
    salt.set(randomBytes(NONCE_BYTES));
    return new SignatureCache(HashEntrySet.create(maxBytes, salt, true));
  }

  /** Attaches to the table of a cache made by `create`, possibly in another thread. */
  static attach(buffer: SharedArrayBuffer | ArrayBuffer): SignatureCache {
    return new SignatureCache(new HashEntrySet(buffer));
  }

  private constructor(set: HashEntrySet) {
    this.set = set;
    const nonce = set.salt.subarray(0, NONCE_BYTES);
    // Core pads its 32-byte nonce to one 64-byte SHA-256 block with the kind's letter.
    this.#ecdsa.set(nonce);
    this.#ecdsa[NONCE_BYTES] = 0x45; // 'E'
    this.#schnorr.set(nonce);
    this.#schnorr[NONCE_BYTES] = 0x53; // 'S'
  }

  /** The entry of an ECDSA check: digest, public key as given, DER signature without its hash type. */
  ecdsaEntry(digest: Uint8Array, publicKey: Uint8Array, derSignature: Uint8Array): Uint8Array {
    return entry(this.#ecdsa, digest, publicKey, derSignature);
  }

  /** The entry of a BIP340 check: digest, x-only key, 64-byte signature. */
  schnorrEntry(digest: Uint8Array, xOnlyKey: Uint8Array, signature: Uint8Array): Uint8Array {
    return entry(this.#schnorr, digest, xOnlyKey, signature);
  }

  get capacity(): number {
    return this.set.capacity;
  }
}

function entry(scratch: Uint8Array, digest: Uint8Array, key: Uint8Array, signature: Uint8Array): Uint8Array {
  const length = 64 + digest.length + key.length + signature.length;
  // Oversized inputs (never valid signatures, but script data) get a buffer of their own.
  const buffer = length <= scratch.length ? scratch : copyPrefix(scratch, length);
  let offset = 64;
  buffer.set(digest, offset);
  offset += digest.length;
  buffer.set(key, offset);
  offset += key.length;
  buffer.set(signature, offset);
  return sha256(buffer.subarray(0, length));
}

function copyPrefix(scratch: Uint8Array, length: number): Uint8Array {
  const buffer = new Uint8Array(length);
  buffer.set(scratch.subarray(0, 64));
  return buffer;
}

/**
 * How a check uses the cache (Core's CachingTransactionSignatureChecker): it always looks
 * signatures up; `store` adds those it verified (mempool acceptance does, block validation
 * does not: its signatures will not be seen again, so a hit marks the entry collectable).
 */
export interface SignatureCacheUse {
  readonly cache: SignatureCache;
  readonly store: boolean;
}
