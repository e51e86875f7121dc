/**
 * The native signature backend: libsecp256k1 through the Node-API addon in native/
 * (secp256k1_addon.c), which `make build` compiles into dist/native/secp256k1.node.
 * Loading is explicit (loadNativeBackend) rather than at import, so code that runs on
 * noble never needs the addon; a failed load is a NativeBackendUnavailableError whose
 * message says how to build the addon or how to choose noble instead.
 */
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { NativeHashes } from '../primitives/index.js';
import type { SignatureBackend } from './secp256k1.js';
import type { NativeKeyTweaks } from './key-tweaks.js';

/** dist/native/secp256k1.node, beside dist/src (this module is dist/src/script/secp256k1-native.js). */
export const NATIVE_ADDON_FILE = fileURLToPath(new URL('../../native/secp256k1.node', import.meta.url));

/** The addon's exports (see the C file for the batch record layout). */
interface SecpAddon extends NativeHashes {
  verifyEcdsa(compactSig: Uint8Array, digest: Uint8Array, publicKey: Uint8Array): boolean;
  verifySchnorr(sig: Uint8Array, message: Uint8Array, xOnlyKey: Uint8Array): boolean;
  checkTapTweak(internalKey: Uint8Array, tweak: Uint8Array, outputKey: Uint8Array, parity: number): boolean;
  verifyBatch(records: Uint8Array, verdicts: Uint8Array): void;
  isValidXOnlyKey(x: Uint8Array): boolean;
  pubkeyTweakAdd(publicKey: Uint8Array, tweak: Uint8Array): Uint8Array | null;
  xonlyTweakAdd(internalKey: Uint8Array, tweak: Uint8Array): Uint8Array | null;
  readonly RECORD_SIZE: number;
}

export class NativeBackendUnavailableError extends Error {
  override readonly name = 'NativeBackendUnavailableError';
}

/** Bytes per batch record; the layout is the table in secp256k1_addon.c. */
export const BATCH_RECORD_SIZE = 168;
const KIND_ECDSA = 0;
const KIND_SCHNORR = 1;
const KIND_TAPTWEAK = 2;
const KEY_AT = 4;
const MESSAGE_AT = 69;
const SIG_AT = 101;

let addon: SecpAddon | undefined;

function loadAddon(): SecpAddon {
  if (addon) return addon;
  let loaded: SecpAddon;
  try {
    loaded = createRequire(import.meta.url)(NATIVE_ADDON_FILE) as SecpAddon;
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new NativeBackendUnavailableError(
      `the native signature backend (libsecp256k1 addon) could not be loaded from ${NATIVE_ADDON_FILE}: ${why}. ` +
        'Build it with `make build` (needs gcc and the libsecp256k1-dev package), or choose the pure-JavaScript backend with -sigbackend=noble (tsbtcd-bench: --sigbackend noble).',
    );
  }
  if (loaded.RECORD_SIZE !== BATCH_RECORD_SIZE) {
    throw new NativeBackendUnavailableError(
      `the native signature addon at ${NATIVE_ADDON_FILE} is from another build (batch records of ${loaded.RECORD_SIZE} bytes, expected ${BATCH_RECORD_SIZE}); rebuild it with \`make build\``,
    );
  }
  return (addon = loaded);
}

let backend: SignatureBackend | undefined;

/** The addon's SHA-256 and HASH160 entry points (src/primitives/native/hashes.c), for useNativeHashes. */
export function loadNativeHashes(): NativeHashes {
  return loadAddon();
}

/** The addon's x-only key check (Core's XOnlyPubKey::IsFullyValid), for useNativeXOnlyCheck. */
export function loadNativeXOnlyCheck(): (x: Uint8Array) => boolean {
  const a = loadAddon();
  // Keys cut out of scripts are often small arrays V8 keeps on its heap, which Node-API
  // would move off it (an allocation) on every call: they are copied into this one instead.
  const key = new Uint8Array(new ArrayBuffer(32));
  return (x) => {
    key.set(x);
    return a.isValidXOnlyKey(key);
  };
}

/** The addon's point arithmetic for key derivation and taproot output keys (useNativeKeyTweaks). */
export function loadNativeKeyTweaks(): NativeKeyTweaks {
  const a = loadAddon();
  return { pubkeyTweakAdd: (key, tweak) => a.pubkeyTweakAdd(key, tweak), xonlyTweakAdd: (key, tweak) => a.xonlyTweakAdd(key, tweak) };
}

/** The libsecp256k1 backend; loads the addon on first use (NativeBackendUnavailableError if it cannot). */
export function loadNativeBackend(): SignatureBackend {
  if (backend) return backend;
  const a = loadAddon();
  return (backend = {
    name: 'libsecp256k1 (native)',
    verifyEcdsa: (compactSig, digest, publicKey) => a.verifyEcdsa(compactSig, digest, publicKey),
    verifySchnorr: (sig, message, xOnlyKey) => a.verifySchnorr(sig, message, xOnlyKey),
    checkTapTweak: (internalKey, tweak, outputKey, parity) => a.checkTapTweak(internalKey, tweak, outputKey, parity),
  });
}

/**
 * Many checks in one addon call: add them, then run() returns one verdict byte per check
 * (1 valid, 0 not) in the order added. The arguments are those of the SignatureBackend
 * methods with the same lengths (an ECDSA key of 33 or 65 bytes, in 0x02/03/04 form).
 */
export class SignatureBatch {
  #records: Uint8Array;
  #count = 0;

  constructor(capacity = 64) {
    this.#records = new Uint8Array(Math.max(1, capacity) * BATCH_RECORD_SIZE);
  }

  get size(): number {
    return this.#count;
  }

  #next(kind: number, lengthByte: number): number {
    if ((this.#count + 1) * BATCH_RECORD_SIZE > this.#records.length) {
      const grown = new Uint8Array(this.#records.length * 2);
      grown.set(this.#records);
      this.#records = grown;
    }
    const at = this.#count++ * BATCH_RECORD_SIZE;
    this.#records.fill(0, at, at + BATCH_RECORD_SIZE);
    this.#records[at] = kind;
    this.#records[at + 1] = lengthByte;
    return at;
  }

  #put(at: number, bytes: Uint8Array, length: number, what: string): void {
    if (bytes.length !== length) throw new TypeError(`${what} must be ${length} bytes, got ${bytes.length}`);
    this.#records.set(bytes, at);
  }

  addEcdsa(compactSig: Uint8Array, digest: Uint8Array, publicKey: Uint8Array): void {
    if (publicKey.length !== 33 && publicKey.length !== 65) throw new TypeError(`public key must be 33 or 65 bytes, got ${publicKey.length}`);
    const at = this.#next(KIND_ECDSA, publicKey.length);
    this.#records.set(publicKey, at + KEY_AT);
    this.#put(at + MESSAGE_AT, digest, 32, 'digest');
    this.#put(at + SIG_AT, compactSig, 64, 'signature');
  }

  addSchnorr(sig: Uint8Array, message: Uint8Array, xOnlyKey: Uint8Array): void {
    const at = this.#next(KIND_SCHNORR, 32);
    this.#put(at + KEY_AT, xOnlyKey, 32, 'x-only key');
    this.#put(at + MESSAGE_AT, message, 32, 'message');
    this.#put(at + SIG_AT, sig, 64, 'signature');
  }

  addTapTweak(internalKey: Uint8Array, tweak: Uint8Array, outputKey: Uint8Array, parity: number): void {
    const at = this.#next(KIND_TAPTWEAK, parity & 1);
    this.#put(at + KEY_AT, internalKey, 32, 'internal key');
    this.#put(at + MESSAGE_AT, tweak, 32, 'tweak');
    this.#put(at + SIG_AT, outputKey, 32, 'output key');
  }

  /** Verifies every check added so far in one addon call; the batch is then empty again. */
  run(): Uint8Array {
    const verdicts = new Uint8Array(this.#count);
    if (this.#count > 0) verifyPackedRecords(this.#records.subarray(0, this.#count * BATCH_RECORD_SIZE), verdicts);
    this.#count = 0;
    return verdicts;
  }
}

/** The raw batch entry point: `records` packed as in secp256k1_addon.c, one verdict byte each. */
export function verifyPackedRecords(records: Uint8Array, verdicts: Uint8Array): void {
  loadAddon().verifyBatch(records, verdicts);
}
