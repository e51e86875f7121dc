/**
 * Signature, locktime and sequence checks against a spending transaction (Core's
 * GenericTransactionSignatureChecker). The interpreter only sees the SignatureChecker
 * interface, so script evaluation without a transaction stays possible.
 */
import type { Transaction } from '../primitives/index.js';
import { ScriptError } from './errors.js';
import { signatureBackend, verifyEcdsaDer, isValidPublicKeySize } from './secp256k1.js';
import type { SignatureCacheUse, SignatureCheckCounters } from './signature-cache.js';
import {
  legacySignatureHash,
  PrecomputedTransactionData,
  taprootSignatureHash,
  witnessV0SignatureHash,
  SIGHASH_DEFAULT,
  type TaprootExecutionContext,
} from './sighash.js';

export enum SigVersion {
  BASE = 0,
  WITNESS_V0 = 1,
  TAPROOT = 2,
  TAPSCRIPT = 3,
}

export const LOCKTIME_THRESHOLD = 500000000;
export const SEQUENCE_LOCKTIME_DISABLE_FLAG = 0x80000000;
export const SEQUENCE_LOCKTIME_TYPE_FLAG = 0x00400000;
export const SEQUENCE_LOCKTIME_MASK = 0x0000ffff;

export interface SignatureChecker {
  checkEcdsaSignature(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sigversion: SigVersion): boolean;
  /** Returns OK, or the Schnorr error (size, hash type, invalid) the script fails with. */
  checkSchnorrSignature(sig: Uint8Array, pubkey: Uint8Array, sigversion: SigVersion, context: TaprootExecutionContext): ScriptError;
  checkLockTime(lockTime: number): boolean;
  checkSequence(sequence: number): boolean;
}

/** A checker with no transaction: every signature fails, as Core's BaseSignatureChecker. */
export const NULL_SIGNATURE_CHECKER: SignatureChecker = {
  checkEcdsaSignature: () => false,
  checkSchnorrSignature: () => ScriptError.SCHNORR_SIG,
  checkLockTime: () => false,
  checkSequence: () => false,
};

/** What a transaction checker may use beyond the transaction: Core's signature cache, and counters of its work. */
export interface SignatureCheckOptions {
  readonly cache?: SignatureCacheUse;
  readonly counters?: SignatureCheckCounters;
}

/**
 * Core's GenericTransactionSignatureChecker, and with `options.cache` its
 * CachingTransactionSignatureChecker: a signature in the cache is valid without a curve
 * operation, and with `store` one found valid is added.
 */
export class TransactionSignatureChecker implements SignatureChecker {
  constructor(
    readonly tx: Transaction,
    readonly inputIndex: number,
    readonly amount: bigint,
    readonly txdata: PrecomputedTransactionData = new PrecomputedTransactionData(tx),
    readonly options: SignatureCheckOptions = {},
  ) {}

  checkEcdsaSignature(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sigversion: SigVersion): boolean {
    if (!isValidPublicKeySize(pubkey)) return false;
    if (sig.length === 0) return false;
    const hashType = sig[sig.length - 1]!;
    const der = sig.subarray(0, sig.length - 1);
    const digest =
      sigversion === SigVersion.WITNESS_V0
        ? witnessV0SignatureHash(scriptCode, this.tx, this.inputIndex, hashType, this.amount, this.txdata)
        : legacySignatureHash(scriptCode, this.tx, this.inputIndex, hashType);
    const use = this.options.cache;
    const entry = use?.cache.ecdsaEntry(digest, pubkey, der);
    if (entry && use!.cache.set.has(entry, !use!.store)) return this.#hit();
    if (this.options.counters) this.options.counters.verified++;
    if (!verifyEcdsaDer(der, digest, pubkey)) return false;
    if (entry && use!.store) use!.cache.set.add(entry);
    return true;
  }

  #hit(): true {
    if (this.options.counters) this.options.counters.cacheHits++;
    return true;
  }

  checkSchnorrSignature(sig: Uint8Array, pubkey: Uint8Array, sigversion: SigVersion, context: TaprootExecutionContext): ScriptError {
    if (sig.length !== 64 && sig.length !== 65) return ScriptError.SCHNORR_SIG_SIZE;
    let hashType = SIGHASH_DEFAULT;
    let signature = sig;
    if (sig.length === 65) {
      hashType = sig[64]!;
      if (hashType === SIGHASH_DEFAULT) return ScriptError.SCHNORR_SIG_HASHTYPE;
      signature = sig.subarray(0, 64);
    }
    const digest = taprootSignatureHash(this.tx, this.inputIndex, hashType, this.txdata, context, sigversion === SigVersion.TAPSCRIPT);
    if (!digest) return ScriptError.SCHNORR_SIG_HASHTYPE;
    const use = this.options.cache;
    const entry = use?.cache.schnorrEntry(digest, pubkey, signature);
    if (entry && use!.cache.set.has(entry, !use!.store)) {
      this.#hit();
      return ScriptError.OK;
    }
    if (this.options.counters) this.options.counters.verified++;
    if (!signatureBackend().verifySchnorr(signature, digest, pubkey)) return ScriptError.SCHNORR_SIG;
    if (entry && use!.store) use!.cache.set.add(entry);
    return ScriptError.OK;
  }

  checkLockTime(lockTime: number): boolean {
    const txLockTime = this.tx.locktime;
    // Height and time locks are different units: they cannot be compared.
    if (!((txLockTime < LOCKTIME_THRESHOLD && lockTime < LOCKTIME_THRESHOLD) || (txLockTime >= LOCKTIME_THRESHOLD && lockTime >= LOCKTIME_THRESHOLD))) {
      return false;
    }
    if (lockTime > txLockTime) return false;
    // A final input would let the transaction bypass nLockTime entirely.
    if (this.tx.inputs[this.inputIndex]!.sequence === 0xffffffff) return false;
    return true;
  }

  checkSequence(sequence: number): boolean {
    const txSequence = this.tx.inputs[this.inputIndex]!.sequence;
    if (this.tx.version < 2) return false;
    if ((txSequence & SEQUENCE_LOCKTIME_DISABLE_FLAG) !== 0) return false;
    const mask = SEQUENCE_LOCKTIME_TYPE_FLAG | SEQUENCE_LOCKTIME_MASK;
    const txMasked = txSequence & mask;
    const masked = sequence & mask;
    if (!((txMasked < SEQUENCE_LOCKTIME_TYPE_FLAG && masked < SEQUENCE_LOCKTIME_TYPE_FLAG) || (txMasked >= SEQUENCE_LOCKTIME_TYPE_FLAG && masked >= SEQUENCE_LOCKTIME_TYPE_FLAG))) {
      return false;
    }
    return masked <= txMasked;
  }
}
