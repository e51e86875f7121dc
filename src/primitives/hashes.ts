/**
 * Hash functions. SHA-256 uses node's one-shot `crypto.hash` (OpenSSL): native-bench/hash
 * measures it at 1.6x @noble/hashes on 64-byte inputs and far more on large ones, and
 * txids, merkle trees and sighashes are the hot path. The second round of SHA-256d and
 * merkle nodes are fixed one- and two-block shapes that sha256-small.ts does faster than a
 * crypto.hash call. RIPEMD-160 and tagged-hash midstates come from @noble/hashes, which
 * OpenSSL 3 does not offer portably.
 *
 * A thread that runs on the native addon (the daemon's default signature backend) installs
 * its hash entry points with useNativeHashes: they hash short messages (sighash midstates,
 * key hashes, merkle nodes) several times faster than crypto.hash, whose per-call cost
 * dominates there. The choice is explicit per thread, never a fallback.
 */
import { hash as nodeHash } from 'node:crypto';
import { ripemd160 as nobleRipemd160, sha1 as nobleSha1 } from '@noble/hashes/legacy.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { sha256dPair, sha256OfDigest } from './sha256-small.js';

/** The native addon's hash entry points (src/primitives/native/hashes.c): each writes into `out`. */
export interface NativeHashes {
  sha256Into(out: Uint8Array, data: Uint8Array): void;
  sha256dInto(out: Uint8Array, data: Uint8Array): void;
  hash160Into(out: Uint8Array, data: Uint8Array): void;
  /** Core's merkle root of the 32-byte leaves packed in `leaves` (overwritten); returns whether the tree is mutated. */
  merkleRootInto(out: Uint8Array, leaves: Uint8Array): boolean;
  /** Each transaction's txid and wtxid (64 bytes per transaction) from its place in `bytes` (see nativeTxHashes). */
  txHashesInto(out: Uint8Array, bytes: Uint8Array, layout: Int32Array): void;
  /** Both merkle roots of a block from txHashesInto's output; bit 0: txid tree mutated, bit 1: witness tree mutated. */
  blockRootsInto(out: Uint8Array, hashes: Uint8Array): number;
}

let native: NativeHashes | null = null;

/**
 * V8 keeps typed arrays of up to 64 bytes inside the JS heap, and a native call that reads
 * one first moves it out (an allocation and a copy, costlier than the hash). So the
 * native path hashes into an output buffer of its own and copies 32 bytes back, and copies
 * short inputs into an off-heap buffer first. ArrayBuffers are always off-heap.
 */
const ON_HEAP_LIMIT = 64;
const nativeOut32 = new Uint8Array(new ArrayBuffer(32));
const nativeOut20 = new Uint8Array(new ArrayBuffer(20));
const nativeShortInput = new Uint8Array(new ArrayBuffer(ON_HEAP_LIMIT));
/** A merkle node's two hashes, side by side off the heap. */
const nativePair = new Uint8Array(new ArrayBuffer(64));
/** A view of each length over nativeShortInput, so a short input costs a copy and no new object. */
const nativeShortViews = Array.from({ length: ON_HEAP_LIMIT + 1 }, (_, n) => nativeShortInput.subarray(0, n));

function nativeInput(data: Uint8Array): Uint8Array {
  if (data.length > ON_HEAP_LIMIT) return data;
  nativeShortInput.set(data);
  return nativeShortViews[data.length]!;
}

/** Makes this thread hash through the native addon (or, with null, through node:crypto and noble again). */
export function useNativeHashes(hashes: NativeHashes | null): void {
  native = hashes;
}

/** Whether this thread hashes through the native addon. */
export function nativeHashesInUse(): boolean {
  return native !== null;
}

function digest(algorithm: string, data: Uint8Array): Uint8Array {
  const out = nodeHash(algorithm, data, 'buffer') as Buffer;
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

export function sha256(data: Uint8Array): Uint8Array {
  if (native) {
    native.sha256Into(nativeOut32, nativeInput(data));
    return nativeOut32.slice();
  }
  return digest('sha256', data);
}

/** SHA-256 applied twice: txids, block hashes, legacy sighashes. */
export function sha256d(data: Uint8Array): Uint8Array {
  if (native) {
    native.sha256dInto(nativeOut32, nativeInput(data));
    return nativeOut32.slice();
  }
  return sha256OfDigest(nodeHash('sha256', data, 'buffer') as Buffer);
}

/** SHA-256d(left ‖ right) of two 32-byte hashes: a merkle tree node, a witness commitment. */
export function sha256dOfPair(left: Uint8Array, right: Uint8Array): Uint8Array {
  if (left.length !== 32 || right.length !== 32) throw new RangeError('a merkle node hashes two 32-byte hashes');
  if (native) {
    nativePair.set(left, 0);
    nativePair.set(right, 32);
    native.sha256dInto(nativeOut32, nativePair);
    return nativeOut32.slice();
  }
  return sha256dPair(left, right);
}

/** Leaves packed for merkleRootInto; grown on demand, reused (hashing is synchronous). */
let nativeLeaves = new Uint8Array(new ArrayBuffer(32 * 4096));

/**
 * The merkle root of `leaves` in one native call, or null when this thread does not hash
 * natively (merkle.ts then hashes node by node).
 */
export function nativeMerkleRoot(leaves: readonly Uint8Array[]): { root: Uint8Array; mutated: boolean } | null {
  if (!native) return null;
  const bytes = 32 * leaves.length;
  if (nativeLeaves.length < bytes) nativeLeaves = new Uint8Array(new ArrayBuffer(Math.max(bytes, 2 * nativeLeaves.length)));
  for (let i = 0; i < leaves.length; i++) {
    const leaf = leaves[i]!;
    if (leaf.length !== 32) throw new RangeError('a merkle leaf is a 32-byte hash');
    nativeLeaves.set(leaf, 32 * i);
  }
  const mutated = native.merkleRootInto(nativeOut32, nativeLeaves.subarray(0, bytes));
  return { root: nativeOut32.slice(), mutated };
}

/**
 * Every txid and wtxid of a block in one native call, or null when this thread does not
 * hash natively (transactions then hash themselves when asked). `layout` holds three
 * numbers per transaction: its start in `bytes`, the offset of its BIP144 witness section
 * from that start (-1: none), and its end. The result holds the txid of transaction i at
 * 64i and its wtxid (the txid again without a witness) at 64i + 32.
 */
export function nativeTxHashes(bytes: Uint8Array, layout: Int32Array): Uint8Array | null {
  if (!native) return null;
  const out = new Uint8Array(new ArrayBuffer(64 * (layout.length / 3)));
  native.txHashesInto(out, bytes, layout);
  return out;
}

/**
 * A block's merkle root and BIP141 witness root (the coinbase's wtxid as zeros) from
 * nativeTxHashes' output, each with its tree's mutation flag; null when this thread does
 * not hash natively.
 */
export function nativeBlockRoots(hashes: Uint8Array): { root: Uint8Array; mutated: boolean; witnessRoot: Uint8Array; witnessMutated: boolean } | null {
  if (!native || hashes.length === 0) return null;
  const out = new Uint8Array(new ArrayBuffer(64));
  const flags = native.blockRootsInto(out, hashes);
  return { root: out.subarray(0, 32), mutated: (flags & 1) !== 0, witnessRoot: out.subarray(32), witnessMutated: (flags & 2) !== 0 };
}

export function ripemd160(data: Uint8Array): Uint8Array {
  return nobleRipemd160(data);
}

export function sha1(data: Uint8Array): Uint8Array {
  return nobleSha1(data);
}

/** RIPEMD-160 of SHA-256: public key and script hashes. */
export function hash160(data: Uint8Array): Uint8Array {
  if (native) {
    native.hash160Into(nativeOut20, nativeInput(data));
    return nativeOut20.slice();
  }
  return nobleRipemd160(digest('sha256', data));
}

const tagPrefixes = new Map<string, Uint8Array>();

/** SHA256(tag) ‖ SHA256(tag): the 64 bytes a BIP340 tagged hash starts with, for callers that write the rest themselves. */
export function taggedHashPrefix(tag: string): Uint8Array {
  return tagPrefix(tag).slice();
}

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
