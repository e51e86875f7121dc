/**
 * Core's script-execution cache: transactions whose every input passed under a given set of
 * script flags. A transaction accepted to the mempool is entered under the flags of the
 * chain tip, so when its block connects the whole transaction is skipped: no sighash, no
 * interpreter, no signature lookup. An entry is SHA-256(salt ‖ wtxid ‖ flags), the salt
 * random per node (Core writes its 32-byte nonce twice to fill one SHA-256 block); the
 * wtxid commits to the witness, and the spent outputs are committed to by the txid.
 *
 * It lives in the coordinator, consulted before any work is sent to the worker pool: only
 * the coordinator knows which transactions went through the mempool, and a transaction
 * skipped here costs the workers nothing at all.
 */
import { randomBytes } from 'node:crypto';
import { HASH_ENTRY_SALT_BYTES, HashEntrySet, sha256, type Transaction } from '../primitives/index.js';

const NONCE_BYTES = 32;

export class ScriptExecutionCache {
  readonly set: HashEntrySet;
  readonly #scratch = new Uint8Array(HASH_ENTRY_SALT_BYTES + 32 + 4);
  readonly #flags = new DataView(this.#scratch.buffer, HASH_ENTRY_SALT_BYTES + 32, 4);

  /** A cache of at most `maxBytes` (Core gives it half of -maxsigcachesize). */
  constructor(maxBytes: number) {
    const nonce = randomBytes(NONCE_BYTES);
    const salt = new Uint8Array(HASH_ENTRY_SALT_BYTES);
    salt.set(nonce, 0);
    salt.set(nonce, NONCE_BYTES);
    this.set = HashEntrySet.create(maxBytes, salt, false);
    this.#scratch.set(salt);
  }

  /** The entry of `tx` checked under `flags`. */
  entry(tx: Transaction, flags: number): Uint8Array {
    this.#scratch.set(tx.wtxid, HASH_ENTRY_SALT_BYTES);
    this.#flags.setUint32(0, flags >>> 0, true);
    return sha256(this.#scratch);
  }

  get capacity(): number {
    return this.set.capacity;
  }
}
