/**
 * Core's CPrivKey: a private key as the DER of SEC 1's ECPrivateKey with the secp256k1
 * parameters written out in full (key.cpp ec_seckey_export_der / ec_seckey_import_der), the
 * form walletdescriptorkey records keep. 214 bytes for a key whose public key is compressed,
 * 279 for an uncompressed one. The structure is built from the curve's constants here.
 */
import { bytesEqual, fromHex, sha256d } from '../primitives/index.js';

const P = fromHex('fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f');
const N = fromHex('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');
const GX = fromHex('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798');
const GY = fromHex('483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8');
/** The OID of a prime field (1.2.840.10045.1.1). */
const PRIME_FIELD_OID = [0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x01, 0x01];

/** A DER length: one byte below 128, else 0x81 or 0x82 and the length. */
function derLength(n: number): number[] {
  if (n < 0x80) return [n];
  if (n < 0x100) return [0x81, n];
  return [0x82, n >> 8, n & 0xff];
}

const tlv = (tag: number, body: readonly number[]): number[] => [tag, ...derLength(body.length), ...body];

/** The ECParameters of secp256k1, with the base point compressed or not. */
function curveParameters(compressed: boolean): number[] {
  const base = compressed ? [0x02, ...GX] : [0x04, ...GX, ...GY];
  return tlv(0x30, [
    ...tlv(0x02, [0x01]),
    ...tlv(0x30, [...PRIME_FIELD_OID, ...tlv(0x02, [0x00, ...P])]),
    ...tlv(0x30, [...tlv(0x04, [0x00]), ...tlv(0x04, [0x07])]),
    ...tlv(0x04, base),
    ...tlv(0x02, [0x00, ...N]),
    ...tlv(0x02, [0x01]),
  ]);
}

/** Core's ec_seckey_export_der: the 32-byte secret and its public key (33 or 65 bytes, which decides the form). */
export function encodePrivateKeyDer(secret: Uint8Array, pubkey: Uint8Array): Uint8Array {
  if (secret.length !== 32) throw new RangeError('a private key is 32 bytes');
  if (pubkey.length !== 33 && pubkey.length !== 65) throw new RangeError('a public key is 33 or 65 bytes');
  const compressed = pubkey.length === 33;
  return Uint8Array.from(
    tlv(0x30, [
      ...tlv(0x02, [0x01]),
      ...tlv(0x04, [...secret]),
      ...tlv(0xa0, curveParameters(compressed)),
      ...tlv(0xa1, tlv(0x03, [0x00, ...pubkey])),
    ]),
  );
}

/**
 * Core's ec_seckey_import_der: the secret (right-aligned in 32 bytes) from a DER private
 * key, reading only what Core reads (sequence, version 1, an octet string of at most 32
 * bytes); null when those are not there. The caller checks the secret against the public key.
 */
export function decodePrivateKeyDer(der: Uint8Array): Uint8Array | null {
  let at = 0;
  const left = (): number => der.length - at;
  if (left() < 1 || der[at] !== 0x30) return null;
  at++;
  if (left() < 1 || !(der[at]! & 0x80)) return null;
  const lengthBytes = der[at]! & 0x7f;
  at++;
  if (lengthBytes < 1 || lengthBytes > 2 || left() < lengthBytes) return null;
  const length = lengthBytes === 2 ? (der[at]! << 8) | der[at + 1]! : der[at]!;
  at += lengthBytes;
  if (left() < length) return null;
  if (left() < 3 || der[at] !== 0x02 || der[at + 1] !== 0x01 || der[at + 2] !== 0x01) return null;
  at += 3;
  if (left() < 2 || der[at] !== 0x04) return null;
  const octets = der[at + 1]!;
  at += 2;
  if (octets > 32 || left() < octets) return null;
  const secret = new Uint8Array(32);
  secret.set(der.subarray(at, at + octets), 32 - octets);
  return secret;
}

/** The checksum walletdescriptorkey keeps beside the key: Hash(pubkey ‖ privkey DER). */
export function privateKeyChecksum(pubkey: Uint8Array, der: Uint8Array): Uint8Array {
  const joined = new Uint8Array(pubkey.length + der.length);
  joined.set(pubkey, 0);
  joined.set(der, pubkey.length);
  return sha256d(joined);
}

/** Whether a record's checksum matches its key (Core refuses to load a wallet whose key fails it). */
export function privateKeyChecksumMatches(pubkey: Uint8Array, der: Uint8Array, checksum: Uint8Array): boolean {
  return bytesEqual(privateKeyChecksum(pubkey, der), checksum);
}
