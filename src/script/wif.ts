/**
 * WIF private keys: Core's EncodeSecret / DecodeSecret. The payload is the chain's
 * secret-key version byte, the 32-byte secret, and 0x01 when the key's public key is
 * to be used compressed.
 */
import { utils as secp256k1Utils } from '@noble/secp256k1';
import { concatBytes } from '../primitives/index.js';
import { decodeBase58Check, encodeBase58Check } from './base58.js';
import { chainPrefixes, type ChainName } from './chain-prefixes.js';

const SECRET_SIZE = 32;
const COMPRESSED_FLAG = 0x01;

export interface WifSecret {
  /** The 32-byte secret, a valid secp256k1 scalar (1..n-1). */
  secret: Uint8Array;
  compressed: boolean;
}

/** Throws RangeError when `secret` is not a valid private key: Core asserts this too. */
export function encodeSecret(secret: Uint8Array, compressed: boolean, chain: ChainName): string {
  if (secret.length !== SECRET_SIZE || !secp256k1Utils.isValidSecretKey(secret)) {
    throw new RangeError('not a valid secp256k1 private key');
  }
  const version = Uint8Array.of(chainPrefixes(chain).secretKey);
  return encodeBase58Check(compressed ? concatBytes(version, secret, Uint8Array.of(COMPRESSED_FLAG)) : concatBytes(version, secret));
}

/**
 * The secret in a WIF string for `chain`, or null: wrong checksum, wrong version byte,
 * a 33rd byte other than 0x01, or a secret outside 1..n-1 (Core's CKey::Set refuses it).
 */
export function decodeSecret(text: string, chain: ChainName): WifSecret | null {
  const payload = decodeBase58Check(text, 1 + SECRET_SIZE + 1);
  if (!payload || payload[0] !== chainPrefixes(chain).secretKey) return null;
  const compressed = payload.length === 2 + SECRET_SIZE && payload[1 + SECRET_SIZE] === COMPRESSED_FLAG;
  if (payload.length !== 1 + SECRET_SIZE && !compressed) return null;
  const secret = payload.slice(1, 1 + SECRET_SIZE);
  if (!secp256k1Utils.isValidSecretKey(secret)) return null;
  return { secret, compressed };
}
