/**
 * MuSig2 public key aggregation (BIP327 KeyAgg) and the BIP328 synthetic xpub that
 * musig() key expressions derive from. Core sorts the participants' keys before
 * aggregating (BIP390), so callers pass them sorted.
 */
import { Point, etc } from '@noble/secp256k1';
import { bytesEqual, compareBytes, concatBytes, fromHex, taggedHash } from '../../primitives/index.js';
import type { ExtPubKey } from '../bip32.js';

const CURVE_ORDER = Point.CURVE().n;

/** BIP328's chain code: SHA256 of "MuSig2MuSig2MuSig2". */
export const MUSIG_CHAINCODE = fromHex('868087ca02a6f974c4598924c36b57762d32cb45717167e300622c7167e38965');

/** Sorts 33-byte keys as Core's CPubKey operator< does (lexicographically). */
export function sortPublicKeys(keys: readonly Uint8Array[]): Uint8Array[] {
  return [...keys].sort(compareBytes);
}

/**
 * BIP327 KeyAgg of compressed public keys in the given order: the aggregate key Q as a
 * 33-byte compressed key, or null when a key does not parse or Q is the point at infinity.
 */
export function aggregatePublicKeys(keys: readonly Uint8Array[]): Uint8Array | null {
  if (keys.length === 0) return null;
  let points: Point[];
  try {
    points = keys.map((key) => {
      if (key.length !== 33) throw new RangeError('MuSig2 participants are compressed keys');
      return Point.fromBytes(key);
    });
  } catch {
    return null;
  }
  const listHash = taggedHash('KeyAgg list', concatBytes(...keys));
  // The first key that differs from the first one gets coefficient 1 (BIP327 GetSecondKey).
  const second = keys.find((key) => !bytesEqual(key, keys[0]!)) ?? null;
  let aggregate = Point.ZERO;
  keys.forEach((key, i) => {
    const coefficient =
      second && bytesEqual(key, second) ? 1n : etc.bytesToNumberBE(taggedHash('KeyAgg coefficient', listHash, key)) % CURVE_ORDER;
    if (coefficient !== 0n) aggregate = aggregate.add(points[i]!.multiply(coefficient));
  });
  if (aggregate.is0()) return null;
  return aggregate.toBytes(true);
}

/** BIP328: the extended public key whose unhardened children a musig(...)/path expression uses. */
export function musigSyntheticXpub(aggregateKey: Uint8Array): ExtPubKey {
  return { depth: 0, parentFingerprint: new Uint8Array(4), childNumber: 0, chainCode: MUSIG_CHAINCODE, publicKey: aggregateKey };
}
