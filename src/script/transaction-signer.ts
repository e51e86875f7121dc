/**
 * Signing transaction inputs with private keys, as Core's MutableTransactionSignatureCreator
 * over a FlatSigningProvider of keys and scripts (what signrawtransactionwithkey builds).
 * ECDSA only: a provider of bare keys knows no taproot spend data, so Core signs no taproot
 * input this way either. Signatures are RFC6979 ground to a low R, as CKey::Sign makes
 * them, so the bytes equal bitcoind's.
 */
import * as secp from '@noble/secp256k1';
import { hmac } from '@noble/hashes/hmac.js';
import { hash160, sha256Noble, toHex, type Transaction } from '../primitives/index.js';
import { SigVersion } from './checker.js';
import type { InputSigner } from './produce-signature.js';
import { legacySignatureHash, PrecomputedTransactionData, SIGHASH_ALL, SIGHASH_DEFAULT, witnessV0SignatureHash } from './sighash.js';

secp.hashes.hmacSha256 ??= (key, message) => hmac(sha256Noble, key, message);

interface SigningKey {
  readonly secret: Uint8Array;
  readonly pubkey: Uint8Array;
  readonly compressed: boolean;
}

/** Private keys by key id (HASH160 of the public key as serialized) and scripts by HASH160. */
export class SigningKeyStore {
  readonly #keys = new Map<string, SigningKey>();
  readonly #scripts = new Map<string, Uint8Array>();

  /** `pubkey`, when the caller has it already, saves computing it. */
  addKey(secret: Uint8Array, compressed: boolean, pubkey: Uint8Array = secp.getPublicKey(secret, compressed)): void {
    this.#keys.set(toHex(hash160(pubkey)), { secret, pubkey, compressed });
  }

  /** The first script with a hash stays, as std::map::emplace keeps it. */
  addScript(script: Uint8Array): void {
    const id = toHex(hash160(script));
    if (!this.#scripts.has(id)) this.#scripts.set(id, script);
  }

  key(keyId: string): SigningKey | undefined {
    return this.#keys.get(keyId);
  }

  script(scriptId: Uint8Array): Uint8Array | undefined {
    return this.#scripts.get(toHex(scriptId));
  }
}

/** Minimal DER INTEGER of a 32-byte big-endian value. */
function derInteger(value: Uint8Array): number[] {
  let start = 0;
  while (start < value.length - 1 && value[start] === 0) start++;
  const bytes = [...value.subarray(start)];
  if (bytes[0]! >= 0x80) bytes.unshift(0);
  return [0x02, bytes.length, ...bytes];
}

/** CKey::Sign: RFC6979, retried with a counter as extra entropy until R's top bit is clear; DER-encoded. */
export function signEcdsaLowR(digest: Uint8Array, secret: Uint8Array): Uint8Array {
  const entropy = new Uint8Array(32);
  let compact = secp.sign(digest, secret, { prehash: false, lowS: true });
  for (let counter = 1; compact[0]! >= 0x80; counter++) {
    new DataView(entropy.buffer).setUint32(0, counter, true);
    compact = secp.sign(digest, secret, { prehash: false, lowS: true, extraEntropy: entropy });
  }
  const body = [...derInteger(compact.subarray(0, 32)), ...derInteger(compact.subarray(32))];
  return Uint8Array.of(0x30, body.length, ...body);
}

/** The signer ProduceSignature uses for input `inputIndex` of `tx`, spending `amount`. */
export function transactionInputSigner(store: SigningKeyStore, tx: Transaction, inputIndex: number, amount: bigint, hashType: number, txdata: PrecomputedTransactionData): InputSigner {
  // Legacy and segwit v0 signatures have no SIGHASH_DEFAULT: it means ALL there.
  const sigHashType = hashType === SIGHASH_DEFAULT ? SIGHASH_ALL : hashType;
  return {
    pubkey: (keyId) => store.key(keyId)?.pubkey,
    script: (scriptId) => store.script(scriptId),
    sign(keyId, scriptCode, sigversion) {
      const key = store.key(keyId);
      if (!key) return null;
      // Core signs no uncompressed key in a witness script.
      if (sigversion === SigVersion.WITNESS_V0 && !key.compressed) return null;
      const digest =
        sigversion === SigVersion.WITNESS_V0
          ? witnessV0SignatureHash(scriptCode, tx, inputIndex, sigHashType, amount, txdata)
          : legacySignatureHash(scriptCode, tx, inputIndex, sigHashType);
      const der = signEcdsaLowR(digest, key.secret);
      const sig = new Uint8Array(der.length + 1);
      sig.set(der);
      sig[der.length] = sigHashType;
      return sig;
    },
  };
}
