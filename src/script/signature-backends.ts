/**
 * Choosing the signature backend by name: `native` (libsecp256k1, the daemon's default)
 * or `noble` (@noble/secp256k1, the pure-JavaScript reference). The choice is remembered
 * so the script-check pool can start its worker threads, which are separate isolates
 * with their own module state, on the same backend as the thread that made it.
 */
import { nobleBackend, setSignatureBackend, type SignatureBackend } from './secp256k1.js';
import { useNativeHashes } from '../primitives/index.js';
import { loadNativeBackend, loadNativeHashes, loadNativeKeyTweaks, loadNativeXOnlyCheck } from './secp256k1-native.js';
import { useNativeKeyTweaks } from './key-tweaks.js';
import { useNativeXOnlyCheck } from './descriptors/index.js';

export const SIGNATURE_BACKEND_CHOICES = ['native', 'noble'] as const;
export type SignatureBackendChoice = (typeof SIGNATURE_BACKEND_CHOICES)[number];
/** What the daemon and tsbtcd-bench use unless told otherwise. */
export const DEFAULT_SIGNATURE_BACKEND: SignatureBackendChoice = 'native';

export function isSignatureBackendChoice(name: string): name is SignatureBackendChoice {
  return (SIGNATURE_BACKEND_CHOICES as readonly string[]).includes(name);
}

/** The backend of that name; `native` throws NativeBackendUnavailableError when the addon cannot load. */
export function signatureBackendFor(choice: SignatureBackendChoice): SignatureBackend {
  return choice === 'native' ? loadNativeBackend() : nobleBackend;
}

/** The module default (secp256k1.ts starts on noble, which needs nothing built). */
let chosen: SignatureBackendChoice = 'noble';

/** Makes `choice` the active backend of this thread and remembers it for new worker pools. */
export function chooseSignatureBackend(choice: SignatureBackendChoice): SignatureBackend {
  const backend = signatureBackendFor(choice);
  setSignatureBackend(backend);
  // The addon's hashes go with its signatures: short messages hash faster through it than through node:crypto.
  useNativeHashes(choice === 'native' ? loadNativeHashes() : null);
  useNativeXOnlyCheck(choice === 'native' ? loadNativeXOnlyCheck() : null);
  useNativeKeyTweaks(choice === 'native' ? loadNativeKeyTweaks() : null);
  chosen = choice;
  return backend;
}

/** The last backend chosen by name on this thread. */
export function chosenSignatureBackend(): SignatureBackendChoice {
  return chosen;
}
