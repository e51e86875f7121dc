/**
 * BIP32 hierarchical deterministic keys as Core's CExtKey / CExtPubKey and key_io.cpp
 * handle them: the 78-byte serialization behind xpub/xprv (tpub/tprv off main), child
 * derivation (CKDpriv, CKDpub) and key fingerprints. Decoding applies Core's validity
 * rules, so a string Core refuses is refused here too (BIP32 test vector 5).
 */
import { nativeKeyTweaks } from './key-tweaks.js';
import { Point, etc, getPublicKey, utils as secp256k1Utils } from '@noble/secp256k1';
import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';
import { bytesEqual, concatBytes, hash160 } from '../primitives/index.js';
import { decodeBase58Check, encodeBase58Check } from './base58.js';
import type { ChainName } from './chain-prefixes.js';

/** The high bit of a child number marks hardened derivation. */
export const BIP32_HARDENED = 0x80000000;

/** Depth, fingerprint, child number and chain code: what both kinds of extended key carry. */
export interface ExtKeyHeader {
  /** 0 for a master key; Core refuses to derive past 255. */
  readonly depth: number;
  /** First four bytes of HASH160 of the parent's public key (zero for a master key). */
  readonly parentFingerprint: Uint8Array;
  /** The child number this key was derived with, hardened bit included. */
  readonly childNumber: number;
  readonly chainCode: Uint8Array;
}

export interface ExtPubKey extends ExtKeyHeader {
  /** 33-byte compressed public key. */
  readonly publicKey: Uint8Array;
}

export interface ExtPrivKey extends ExtKeyHeader {
  /** 32-byte secret, a valid scalar 1..n-1. */
  readonly privateKey: Uint8Array;
}

/** Payload size of a serialized extended key after its 4 version bytes (Core's BIP32_EXTKEY_SIZE). */
const EXTKEY_SIZE = 74;
const VERSION_SIZE = 4;
const MAX_DEPTH = 255;
const CURVE_ORDER = Point.CURVE().n;
const MASTER_HMAC_KEY = new TextEncoder().encode('Bitcoin seed');

interface ExtKeyVersions {
  readonly pub: number;
  readonly priv: number;
}

const MAIN_VERSIONS: ExtKeyVersions = { pub: 0x0488b21e, priv: 0x0488ade4 };
// testnet3, testnet4, signet and regtest all use tpub/tprv.
const TEST_VERSIONS: ExtKeyVersions = { pub: 0x043587cf, priv: 0x04358394 };

function extKeyVersions(chain: ChainName): ExtKeyVersions {
  return chain === 'main' ? MAIN_VERSIONS : TEST_VERSIONS;
}

function writeU32BE(value: number): Uint8Array {
  return Uint8Array.of((value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
}

function readU32BE(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset]! << 24) | (bytes[offset + 1]! << 16) | (bytes[offset + 2]! << 8) | bytes[offset + 3]!) >>> 0;
}

function serializeHeader(version: number, header: ExtKeyHeader, keyData: Uint8Array): Uint8Array {
  return concatBytes(
    writeU32BE(version),
    Uint8Array.of(header.depth),
    header.parentFingerprint,
    writeU32BE(header.childNumber),
    header.chainCode,
    keyData,
  );
}

export function encodeExtPubKey(key: ExtPubKey, chain: ChainName): string {
  return encodeBase58Check(serializeHeader(extKeyVersions(chain).pub, key, key.publicKey));
}

export function encodeExtPrivKey(key: ExtPrivKey, chain: ChainName): string {
  return encodeBase58Check(serializeHeader(extKeyVersions(chain).priv, key, concatBytes(Uint8Array.of(0), key.privateKey)));
}

/** The payload of a base58check string that carries this version, or null. */
function decodeVersioned(text: string, version: number): Uint8Array | null {
  const payload = decodeBase58Check(text, VERSION_SIZE + EXTKEY_SIZE);
  if (!payload || payload.length !== VERSION_SIZE + EXTKEY_SIZE) return null;
  if (readU32BE(payload, 0) !== version) return null;
  return payload.subarray(VERSION_SIZE);
}

/**
 * Core refuses a master key (depth 0) that names a parent or a child number: such a key
 * cannot have been produced by derivation.
 */
function decodeHeader(code: Uint8Array): ExtKeyHeader | null {
  const depth = code[0]!;
  const parentFingerprint = code.slice(1, 5);
  const childNumber = readU32BE(code, 5);
  if (depth === 0 && (childNumber !== 0 || parentFingerprint.some((b) => b !== 0))) return null;
  return { depth, parentFingerprint, childNumber, chainCode: code.slice(9, 41) };
}

/** True when `key` is a 33-byte compressed point on the curve (Core's CPubKey::IsFullyValid for 02/03). */
export function isValidCompressedPublicKey(key: Uint8Array): boolean {
  if (key.length !== 33 || (key[0] !== 2 && key[0] !== 3)) return false;
  try {
    Point.fromBytes(key);
    return true;
  } catch {
    return false;
  }
}

/** Core's DecodeExtPubKey for `chain`: null unless the string is a valid xpub (tpub) of that chain. */
export function decodeExtPubKey(text: string, chain: ChainName): ExtPubKey | null {
  const code = decodeVersioned(text, extKeyVersions(chain).pub);
  if (!code) return null;
  const header = decodeHeader(code);
  const publicKey = code.slice(41, 74);
  if (!header || !isValidCompressedPublicKey(publicKey)) return null;
  return { ...header, publicKey };
}

/** Core's DecodeExtKey for `chain`: null unless the string is a valid xprv (tprv) of that chain. */
export function decodeExtPrivKey(text: string, chain: ChainName): ExtPrivKey | null {
  const code = decodeVersioned(text, extKeyVersions(chain).priv);
  if (!code) return null;
  const header = decodeHeader(code);
  const privateKey = code.slice(42, 74);
  if (!header || code[41] !== 0 || !secp256k1Utils.isValidSecretKey(privateKey)) return null;
  return { ...header, privateKey };
}

/** First four bytes of HASH160 of a public key: BIP32's key fingerprint (Core's CKeyID prefix). */
export function keyFingerprint(publicKey: Uint8Array): Uint8Array {
  return hash160(publicKey).slice(0, 4);
}

export function isHardenedChild(childNumber: number): boolean {
  return childNumber >= BIP32_HARDENED;
}

function bip32Hash(chainCode: Uint8Array, data: Uint8Array, childNumber: number): { tweak: bigint; chainCode: Uint8Array } {
  const digest = hmac(sha512, chainCode, concatBytes(data, writeU32BE(childNumber)));
  return { tweak: etc.bytesToNumberBE(digest.subarray(0, 32)), chainCode: digest.slice(32) };
}

function scalarBytes(n: bigint): Uint8Array {
  const bytes = etc.numberToBytesBE(n);
  const out = new Uint8Array(32);
  out.set(bytes, 32 - bytes.length);
  return out;
}

function assertChildNumber(childNumber: number): void {
  if (!Number.isInteger(childNumber) || childNumber < 0 || childNumber > 0xffffffff) {
    throw new RangeError(`child number ${childNumber} is not a 32-bit unsigned integer`);
  }
}

/**
 * Points and public keys of parent keys, by the identity of their bytes: deriving the children
 * of one parent (a descriptor's range) decompresses or multiplies it once, not once per child.
 */
const parentPoints = new WeakMap<Uint8Array, Point>();
const parentPublics = new WeakMap<Uint8Array, Uint8Array>();

function parentPointOf(publicKey: Uint8Array): Point {
  let point = parentPoints.get(publicKey);
  if (!point) parentPoints.set(publicKey, (point = Point.fromBytes(publicKey)));
  return point;
}

function parentPublicOf(privateKey: Uint8Array): Uint8Array {
  let publicKey = parentPublics.get(privateKey);
  if (!publicKey) parentPublics.set(privateKey, (publicKey = getPublicKey(privateKey, true)));
  return publicKey;
}

/**
 * CKDpub: the public child `childNumber` of `parent`. Null for hardened numbers (they
 * need the private key), at depth 255, and in the 2^-127 cases BIP32 declares invalid.
 */
export function deriveExtPubKey(parent: ExtPubKey, childNumber: number): ExtPubKey | null {
  assertChildNumber(childNumber);
  if (isHardenedChild(childNumber) || parent.depth >= MAX_DEPTH) return null;
  const { tweak, chainCode } = bip32Hash(parent.chainCode, parent.publicKey, childNumber);
  if (tweak >= CURVE_ORDER) return null;
  const native = nativeKeyTweaks();
  let publicKey: Uint8Array;
  if (native) {
    const sum = native.pubkeyTweakAdd(parent.publicKey, scalarBytes(tweak));
    if (!sum) return null;
    publicKey = new Uint8Array(sum);
  } else {
    const parentPoint = parentPointOf(parent.publicKey);
    const child = tweak === 0n ? parentPoint : parentPoint.add(Point.BASE.multiply(tweak));
    if (child.is0()) return null;
    publicKey = child.toBytes(true);
  }
  return { depth: parent.depth + 1, parentFingerprint: keyFingerprint(parent.publicKey), childNumber, chainCode, publicKey };
}

/** CKDpriv: the private child `childNumber` (hardened or not) of `parent`, or null where BIP32 says so. */
export function deriveExtPrivKey(parent: ExtPrivKey, childNumber: number): ExtPrivKey | null {
  assertChildNumber(childNumber);
  if (parent.depth >= MAX_DEPTH) return null;
  const parentPublic = parentPublicOf(parent.privateKey);
  // Hardened children hash the private key (0x00 || k), the others the public key.
  const data = isHardenedChild(childNumber) ? concatBytes(Uint8Array.of(0), parent.privateKey) : parentPublic;
  const { tweak, chainCode } = bip32Hash(parent.chainCode, data, childNumber);
  if (tweak >= CURVE_ORDER) return null;
  const child = (tweak + etc.bytesToNumberBE(parent.privateKey)) % CURVE_ORDER;
  if (child === 0n) return null;
  return {
    depth: parent.depth + 1,
    parentFingerprint: keyFingerprint(parentPublic),
    childNumber,
    chainCode,
    privateKey: scalarBytes(child),
  };
}

/** The extended public key of an extended private key (Core's CExtKey::Neuter). */
export function neuterExtKey(key: ExtPrivKey): ExtPubKey {
  return {
    depth: key.depth,
    parentFingerprint: key.parentFingerprint,
    childNumber: key.childNumber,
    chainCode: key.chainCode,
    publicKey: getPublicKey(key.privateKey, true),
  };
}

function derivePath<K>(key: K, path: readonly number[], step: (parent: K, childNumber: number) => K | null): K | null {
  let current: K | null = key;
  for (const childNumber of path) {
    current = step(current, childNumber);
    if (!current) return null;
  }
  return current;
}

/** Public derivation along a path; null at a hardened step or where BIP32 derivation fails. */
export function deriveExtPubKeyPath(key: ExtPubKey, path: readonly number[]): ExtPubKey | null {
  return derivePath(key, path, deriveExtPubKey);
}

/** Private derivation along a path; null where BIP32 derivation fails. */
export function deriveExtPrivKeyPath(key: ExtPrivKey, path: readonly number[]): ExtPrivKey | null {
  return derivePath(key, path, deriveExtPrivKey);
}

/** BIP32 master key generation from a 16..64 byte seed (Core's CExtKey::SetSeed). */
export function extKeyFromSeed(seed: Uint8Array): ExtPrivKey | null {
  if (seed.length < 16 || seed.length > 64) throw new RangeError('BIP32 seeds are 16 to 64 bytes');
  const digest = hmac(sha512, MASTER_HMAC_KEY, seed);
  const privateKey = digest.slice(0, 32);
  if (!secp256k1Utils.isValidSecretKey(privateKey)) return null;
  return { depth: 0, parentFingerprint: new Uint8Array(4), childNumber: 0, chainCode: digest.slice(32), privateKey };
}

/** Field-by-field equality of two extended public keys. */
export function extPubKeyEquals(a: ExtPubKey, b: ExtPubKey): boolean {
  return (
    a.depth === b.depth &&
    a.childNumber === b.childNumber &&
    bytesEqual(a.parentFingerprint, b.parentFingerprint) &&
    bytesEqual(a.chainCode, b.chainCode) &&
    bytesEqual(a.publicKey, b.publicKey)
  );
}
