/**
 * A memoizing wrapper around the active signature backend, for vector suites only.
 * Verification is a pure function of its inputs, so remembering results changes no
 * outcome; it lets suites re-run the same signature under dozens of flag combinations
 * (as Core's harness does with its signature cache) in seconds rather than minutes.
 */
import { toHex } from '../../src/primitives/index.js';
import { setSignatureBackend, signatureBackend, type SignatureBackend } from '../../src/script/index.js';

export function installMemoizingBackend(): () => void {
  const inner = signatureBackend();
  const ecdsa = new Map<string, boolean>();
  const schnorr = new Map<string, boolean>();
  const tweak = new Map<string, boolean>();
  const memo: SignatureBackend = {
    name: `memoized ${inner.name}`,
    verifyEcdsa(sig, digest, key) {
      const k = toHex(sig) + toHex(digest) + toHex(key);
      let r = ecdsa.get(k);
      if (r === undefined) ecdsa.set(k, (r = inner.verifyEcdsa(sig, digest, key)));
      return r;
    },
    verifySchnorr(sig, message, key) {
      const k = toHex(sig) + toHex(message) + toHex(key);
      let r = schnorr.get(k);
      if (r === undefined) schnorr.set(k, (r = inner.verifySchnorr(sig, message, key)));
      return r;
    },
    checkTapTweak(internal, t, output, parity) {
      const k = toHex(internal) + toHex(t) + toHex(output) + parity;
      let r = tweak.get(k);
      if (r === undefined) tweak.set(k, (r = inner.checkTapTweak(internal, t, output, parity)));
      return r;
    },
  };
  setSignatureBackend(memo);
  return () => setSignatureBackend(inner);
}

/** Deterministic xorshift32, so "random" flag combinations are the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
}
