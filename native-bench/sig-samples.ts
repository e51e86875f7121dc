/**
 * The raw signature checks `make bench-sig` measures: @noble/secp256k1 verify, called the
 * way the consensus backend calls it (ECDSA with prehash:false, lowS:false; BIP340
 * Schnorr), over a small ring of signed samples. Shared by the main thread and the
 * bare-thread workers so both time exactly the same call.
 */
import * as noble from '@noble/secp256k1';
import { sha256 } from '../src/primitives/index.js';
// The script module installs noble's SHA-256 and HMAC hooks that signing and BIP340 need.
import '../src/script/index.js';
import { secretFromSeed } from '../test/support/spends.js';

export type SigKind = 'ecdsa' | 'schnorr';

const SAMPLES = 32;

/** A function that verifies the next sample and throws if it does not verify. */
export function rawVerifier(kind: SigKind): () => void {
  let i = 0;
  if (kind === 'ecdsa') {
    const samples = Array.from({ length: SAMPLES }, (_, n) => {
      const secret = secretFromSeed(n);
      const digest = sha256(Uint8Array.of(n));
      return { sig: noble.sign(digest, secret, { prehash: false }), digest, key: noble.getPublicKey(secret, true) };
    });
    return () => {
      const s = samples[i++ % SAMPLES]!;
      if (!noble.verify(s.sig, s.digest, s.key, { prehash: false, lowS: false })) throw new Error('sample signature failed');
    };
  }
  const samples = Array.from({ length: SAMPLES }, (_, n) => {
    const secret = secretFromSeed(n);
    const message = sha256(Uint8Array.of(n));
    return { sig: noble.schnorr.sign(message, secret, new Uint8Array(32)), message, key: noble.schnorr.getPublicKey(secret) };
  });
  return () => {
    const s = samples[i++ % SAMPLES]!;
    if (!noble.schnorr.verify(s.sig, s.message, s.key)) throw new Error('sample signature failed');
  };
}
