/**
 * The raw signature checks `make bench-sig` measures, called the way consensus calls the
 * backends (ECDSA on a 64-byte compact signature and a compressed key, high S allowed;
 * BIP340 Schnorr), over a small ring of signed samples. Shared by the main thread and the
 * bare-thread workers so both time exactly the same call.
 */
import * as noble from '@noble/secp256k1';
import { sha256 } from '../src/primitives/index.js';
// The script module installs noble's SHA-256 and HMAC hooks that signing and BIP340 need.
import { SignatureBatch, signatureBackendFor, type SignatureBackendChoice } from '../src/script/index.js';
import { secretFromSeed } from '../test/support/spends.js';

export type SigKind = 'ecdsa' | 'schnorr';
/** A backend called once per signature, or the native backend's batch entry point. */
export type SigPath = SignatureBackendChoice | 'native-batch';

/** Samples in the ring; also the signatures verified per call on the batch path. */
export const SAMPLES = 32;

interface Sample {
  sig: Uint8Array;
  message: Uint8Array;
  key: Uint8Array;
}

function samples(kind: SigKind): Sample[] {
  return Array.from({ length: SAMPLES }, (_, n) => {
    const secret = secretFromSeed(n);
    const message = sha256(Uint8Array.of(n));
    return kind === 'ecdsa'
      ? { sig: noble.sign(message, secret, { prehash: false }), message, key: noble.getPublicKey(secret, true) }
      : { sig: noble.schnorr.sign(message, secret, new Uint8Array(32)), message, key: noble.schnorr.getPublicKey(secret) };
  });
}

/**
 * A function that verifies the next sample (the whole ring of SAMPLES on the batch path,
 * packing included) and throws if one does not verify. `perCall` is the number of
 * signatures one call verifies.
 */
export function rawVerifier(kind: SigKind, path: SigPath): { verify: () => void; perCall: number } {
  const ring = samples(kind);
  if (path === 'native-batch') {
    const batch = new SignatureBatch(SAMPLES);
    return {
      perCall: SAMPLES,
      verify: () => {
        for (const s of ring) {
          if (kind === 'ecdsa') batch.addEcdsa(s.sig, s.message, s.key);
          else batch.addSchnorr(s.sig, s.message, s.key);
        }
        if (batch.run().includes(0)) throw new Error('sample signature failed');
      },
    };
  }
  const backend = signatureBackendFor(path);
  let i = 0;
  const check = kind === 'ecdsa' ? backend.verifyEcdsa.bind(backend) : backend.verifySchnorr.bind(backend);
  return {
    perCall: 1,
    verify: () => {
      const s = ring[i++ % SAMPLES]!;
      if (!check(s.sig, s.message, s.key)) throw new Error('sample signature failed');
    },
  };
}
