/**
 * Core's message signing (common/signmessage.cpp): the digest is the double SHA-256 of the
 * serialized strings "Bitcoin Signed Message:\n" and the message, the signature a 65-byte
 * compact recoverable ECDSA signature (header 27 + recovery id, + 4 for a compressed key)
 * in base64. Core signs with RFC6979 nonces and no extra entropy, so signatures match it
 * byte for byte.
 */
import * as secp from '@noble/secp256k1';
import { hmac } from '@noble/hashes/hmac.js';
import { ByteWriter, hash160, sha256d, sha256Noble } from '../primitives/index.js';
import { decodeAddress } from './address.js';
import { decodeBase64, encodeBase64 } from './base64.js';
import type { ChainName } from './chain-prefixes.js';
import { solve } from './standard.js';

secp.hashes.hmacSha256 ??= (key, message) => hmac(sha256Noble, key, message);

const MESSAGE_MAGIC = new TextEncoder().encode('Bitcoin Signed Message:\n');
const COMPACT_SIGNATURE_SIZE = 65;
const HEADER_BASE = 27;
const HEADER_COMPRESSED = 4;

/** Core's MessageVerificationResult. */
export type MessageVerification = 'ok' | 'invalid_address' | 'address_no_key' | 'malformed_signature' | 'pubkey_not_recovered' | 'not_signed';

export function messageHash(message: string): Uint8Array {
  const body = new TextEncoder().encode(message);
  return sha256d(new ByteWriter(MESSAGE_MAGIC.length + body.length + 10).varBytes(MESSAGE_MAGIC).varBytes(body).finish());
}

/** Core's MessageSign with a valid secret: the base64 compact signature. */
export function signMessage(secret: Uint8Array, compressed: boolean, message: string): string {
  const recovered = secp.sign(messageHash(message), secret, { prehash: false, lowS: true, format: 'recovered' });
  const compact = new Uint8Array(COMPACT_SIGNATURE_SIZE);
  compact[0] = HEADER_BASE + recovered[0]! + (compressed ? HEADER_COMPRESSED : 0);
  compact.set(recovered.subarray(1), 1);
  return encodeBase64(compact);
}

/** Core's CPubKey::RecoverCompact: the public key, or null. */
function recoverCompact(digest: Uint8Array, signature: Uint8Array): Uint8Array | null {
  if (signature.length !== COMPACT_SIGNATURE_SIZE) return null;
  const header = (signature[0]! - HEADER_BASE) & 0xff;
  const recovered = new Uint8Array(COMPACT_SIGNATURE_SIZE);
  recovered[0] = header & 3;
  recovered.set(signature.subarray(1), 1);
  try {
    return secp.recoverPublicKey(recovered, digest, { prehash: false, isCompressed: (header & HEADER_COMPRESSED) !== 0 });
  } catch {
    return null;
  }
}

/** Core's MessageVerify: only P2PKH addresses identify a key. */
export function verifyMessage(address: string, signature: string, message: string, chain: ChainName): MessageVerification {
  const decoded = decodeAddress(address, chain);
  if (!decoded.ok) return 'invalid_address';
  const destination = solve(decoded.scriptPubKey);
  if (destination.type !== 'pubkeyhash') return 'address_no_key';
  const signatureBytes = decodeBase64(signature);
  if (!signatureBytes) return 'malformed_signature';
  const pubkey = recoverCompact(messageHash(message), signatureBytes);
  if (!pubkey) return 'pubkey_not_recovered';
  const keyHash = hash160(pubkey);
  return keyHash.every((b, i) => b === destination.hash[i]) ? 'ok' : 'not_signed';
}
