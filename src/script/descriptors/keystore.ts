/**
 * The private keys a descriptor was written with (Core collects them in a
 * FlatSigningProvider while parsing). Keys are found by the HASH160 of their public key
 * as it is serialized, compressed or not, exactly as Core's CKeyID lookup does.
 */
import { getPublicKey } from '@noble/secp256k1';
import { concatBytes, hash160, toHex } from '../../primitives/index.js';

export interface StoredKey {
  readonly secret: Uint8Array;
  /** Whether the key's public key is used compressed (the WIF flag; always true for xprvs). */
  readonly compressed: boolean;
}

export class KeyStore {
  private readonly keys = new Map<string, StoredKey>();

  /** Adds a private key; the public key is computed here so lookups need no curve work. */
  add(secret: Uint8Array, compressed: boolean): Uint8Array {
    const publicKey = getPublicKey(secret, compressed);
    this.keys.set(toHex(hash160(publicKey)), { secret, compressed });
    return publicKey;
  }

  /** The private key whose public key serializes to `publicKey`, if known. */
  get(publicKey: Uint8Array): StoredKey | null {
    return this.keys.get(toHex(hash160(publicKey))) ?? null;
  }

  /** Core's GetKeyByXOnly: a key whose compressed public key has this x coordinate, either parity. */
  getByXOnly(xOnly: Uint8Array): StoredKey | null {
    for (const prefix of [2, 3]) {
      const key = this.get(concatBytes(Uint8Array.of(prefix), xOnly));
      if (key) return key;
    }
    return null;
  }

  get size(): number {
    return this.keys.size;
  }

  /** Every private key held (a wallet writes them when it imports a descriptor). */
  all(): StoredKey[] {
    return [...this.keys.values()];
  }
}
