/**
 * The output and redeem scripts descriptors produce (Core's GetScriptForRawPubKey,
 * GetScriptForMultisig, the multi_a template and GetScriptForDestination of each
 * destination kind), assembled from minimal pushes as CScript's << operator writes them.
 */
import { concatBytes, hash160, sha256 } from '../../primitives/index.js';
import { payToPubkeyHashScript, payToScriptHashScript, witnessProgramScript } from '../address.js';
import { OP } from '../opcodes.js';
import { pushData } from '../parse.js';
import { pushInt } from '../scriptnum.js';

export { pushInt };

/** <key> OP_CHECKSIG, for full (33/65-byte) and x-only (32-byte) keys alike. */
export function payToPubkeyScript(key: Uint8Array): Uint8Array {
  return concatBytes(pushData(key), Uint8Array.of(OP.OP_CHECKSIG));
}

export function payToPubkeyHashOf(key: Uint8Array): Uint8Array {
  return payToPubkeyHashScript(hash160(key));
}

export function payToWitnessPubkeyHashOf(key: Uint8Array): Uint8Array {
  return witnessProgramScript(0, hash160(key));
}

export function payToScriptHashOf(script: Uint8Array): Uint8Array {
  return payToScriptHashScript(hash160(script));
}

export function payToWitnessScriptHashOf(script: Uint8Array): Uint8Array {
  return witnessProgramScript(0, sha256(script));
}

/** <m> <key>... <n> OP_CHECKMULTISIG. */
export function multisigScript(threshold: number, keys: readonly Uint8Array[]): Uint8Array {
  return concatBytes(pushInt(threshold), ...keys.map(pushData), pushInt(keys.length), Uint8Array.of(OP.OP_CHECKMULTISIG));
}

/** <key1> OP_CHECKSIG <key2> OP_CHECKSIGADD ... <m> OP_NUMEQUAL over x-only keys. */
export function multiAScript(threshold: number, xOnlyKeys: readonly Uint8Array[]): Uint8Array {
  const parts = xOnlyKeys.map((key, i) => concatBytes(pushData(key), Uint8Array.of(i === 0 ? OP.OP_CHECKSIG : OP.OP_CHECKSIGADD)));
  return concatBytes(...parts, pushInt(threshold), Uint8Array.of(OP.OP_NUMEQUAL));
}

/** Core's XOnlyPubKey(CPubKey): the 32 bytes after the prefix byte (the x coordinate). */
export function xOnly(key: Uint8Array): Uint8Array {
  return key.length === 32 ? key : key.subarray(1, 33);
}
