/**
 * Hash functions. SHA-256 uses node's one-shot `crypto.hash` (OpenSSL): native-bench/hash
 * measures it at 1.6x @noble/hashes on 64-byte inputs and far more on large ones, and
 * txids, merkle trees and sighashes are the hot path. The second round of SHA-256d and
 * merkle nodes are fixed one- and two-block shapes that sha256-small.ts does faster than a
 * crypto.hash call. RIPEMD-160 and tagged-hash midstates come from @noble/hashes, which
 * OpenSSL 3 does not offer portably.
 */
import { hash as nodeHash } from 'node:crypto';
import { ripemd160 as nobleRipemd160, sha1 as nobleSha1 } from '@noble/hashes/legacy.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { sha256dPair, sha256OfDigest } from './sha256-small.js';

function digest(algorithm: string, data: Uint8Array): Uint8Array {
  const out = nodeHash(algorithm, data, 'buffer') as Buffer;
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

export function sha256(data: Uint8Array): Uint8Array {
  return digest('sha256', data);
}

/** SHA-256 applied twice: txids, block hashes, legacy sighashes. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256OfDigest(nodeHash('sha256', data, 'buffer') as Buffer);
}

/** SHA-256d(left ‖ right) of two 32-byte hashes: a merkle tree node, a witness commitment. */
export function sha256dOfPair(left: Uint8Array, right: Uint8Array): Uint8Array {
  if (left.length !== 32 || right.length !== 32) throw new RangeError('a merkle node hashes two 32-byte hashes');
  return sha256dPair(left, right);
}

export function ripemd160(data: Uint8Array): Uint8Array {
  return nobleRipemd160(data);
}

export function sha1(data: Uint8Array): Uint8Array {
  return nobleSha1(data);
}

/** RIPEMD-160 of SHA-256: public key and script hashes. */
export function hash160(data: Uint8Array): Uint8Array {
  return nobleRipemd160(digest('sha256', data));
}

const tagPrefixes = new Map<string, Uint8Array>();

function tagPrefix(tag: string): Uint8Array {
  let prefix = tagPrefixes.get(tag);
  if (!prefix) {
    const tagHash = sha256(new TextEncoder().encode(tag));
    prefix = new Uint8Array(64);
    prefix.set(tagHash, 0);
    prefix.set(tagHash, 32);
    tagPrefixes.set(tag, prefix);
  }
  return prefix;
}

/** BIP340 tagged hash: SHA256(SHA256(tag) || SHA256(tag) || data...). */
export function taggedHash(tag: string, ...parts: Uint8Array[]): Uint8Array {
  const prefix = tagPrefix(tag);
  let length = prefix.length;
  for (const p of parts) length += p.length;
  const buffer = new Uint8Array(length);
  buffer.set(prefix, 0);
  let offset = prefix.length;
  for (const p of parts) {
    buffer.set(p, offset);
    offset += p.length;
  }
  return sha256(buffer);
}

/** The pure-JS SHA-256, kept reachable for benchmarks and cross-checks against the native one. */
export const sha256Noble = nobleSha256;
