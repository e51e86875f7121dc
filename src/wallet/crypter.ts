/**
 * Wallet encryption as Core's CCrypter does it (wallet/crypter.cpp): a passphrase becomes an
 * AES-256 key and IV by SHA-512 applied `rounds` times to passphrase ‖ salt (Core's
 * BytesToKeySHA512AES, derivation method 0); that key encrypts the wallet's random 32-byte
 * master key (CMasterKey), and the master key encrypts each private key with an IV taken from
 * the double SHA-256 of its public key. AES-256-CBC with PKCS#7 padding throughout, so an
 * encrypted wallet decrypts the same in bitcoind and here.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { sha256d } from '../primitives/index.js';
import type { MasterKeyRecord } from './records.js';

export const WALLET_CRYPTO_KEY_SIZE = 32;
export const WALLET_CRYPTO_SALT_SIZE = 8;
export const WALLET_CRYPTO_IV_SIZE = 16;
/** Core's CMasterKey default: 25,000 rounds (encryptwallet then times the machine to aim at 100 ms). */
export const DEFAULT_DERIVE_ITERATIONS = 25_000;

/** The AES key and IV a passphrase gives (BytesToKeySHA512AES); null for another derivation method or no rounds. */
export function keyFromPassphrase(passphrase: Uint8Array, salt: Uint8Array, rounds: number, derivationMethod: number): { key: Uint8Array; iv: Uint8Array } | null {
  if (rounds < 1 || salt.length !== WALLET_CRYPTO_SALT_SIZE || derivationMethod !== 0) return null;
  let buf = createHash('sha512').update(passphrase).update(salt).digest();
  for (let i = 1; i < rounds; i++) buf = createHash('sha512').update(buf).digest();
  return { key: new Uint8Array(buf.subarray(0, WALLET_CRYPTO_KEY_SIZE)), iv: new Uint8Array(buf.subarray(WALLET_CRYPTO_KEY_SIZE, WALLET_CRYPTO_KEY_SIZE + WALLET_CRYPTO_IV_SIZE)) };
}

/** AES-256-CBC with PKCS#7 padding (Core's AES256CBCEncrypt with pad = true). */
export function aesEncrypt(key: Uint8Array, iv: Uint8Array, plaintext: Uint8Array): Uint8Array {
  const cipher = createCipheriv('aes-256-cbc', key, iv);
  return new Uint8Array(Buffer.concat([cipher.update(plaintext), cipher.final()]));
}

/** The plaintext, or null when the padding is wrong (a wrong key, most likely), as Core's Decrypt fails. */
export function aesDecrypt(key: Uint8Array, iv: Uint8Array, ciphertext: Uint8Array): Uint8Array | null {
  try {
    const decipher = createDecipheriv('aes-256-cbc', key, iv);
    return new Uint8Array(Buffer.concat([decipher.update(ciphertext), decipher.final()]));
  } catch {
    return null;
  }
}

/** The wallet's master key from its CMasterKey record and the passphrase; null when the passphrase is wrong. */
export function decryptMasterKey(record: MasterKeyRecord, passphrase: Uint8Array): Uint8Array | null {
  const derived = keyFromPassphrase(passphrase, record.salt, record.deriveIterations, record.derivationMethod);
  if (!derived) return null;
  const masterKey = aesDecrypt(derived.key, derived.iv, record.cryptedKey);
  return masterKey && masterKey.length === WALLET_CRYPTO_KEY_SIZE ? masterKey : null;
}

/**
 * Core's EncryptMasterKey timing: as many rounds as take about 100 ms here, measured twice
 * and averaged, and never fewer than 25,000.
 */
export function timedDeriveIterations(passphrase: Uint8Array, salt: Uint8Array): number {
  const targetMs = 100;
  const measure = (rounds: number): number => {
    const start = performance.now();
    keyFromPassphrase(passphrase, salt, rounds, 0);
    return Math.max(performance.now() - start, 0.001);
  };
  let rounds = Math.floor((DEFAULT_DERIVE_ITERATIONS * targetMs) / measure(DEFAULT_DERIVE_ITERATIONS));
  rounds = Math.floor((rounds + Math.floor((rounds * targetMs) / measure(rounds))) / 2);
  return Math.max(rounds, DEFAULT_DERIVE_ITERATIONS);
}

/** A new CMasterKey record: `masterKey` encrypted under the passphrase with a fresh salt (rounds timed as Core times them unless given). */
export function encryptMasterKey(masterKey: Uint8Array, passphrase: Uint8Array, deriveIterations?: number): MasterKeyRecord {
  const salt = new Uint8Array(randomBytes(WALLET_CRYPTO_SALT_SIZE));
  deriveIterations ??= timedDeriveIterations(passphrase, salt);
  const derived = keyFromPassphrase(passphrase, salt, deriveIterations, 0)!;
  return { cryptedKey: aesEncrypt(derived.key, derived.iv, masterKey), salt, derivationMethod: 0, deriveIterations, otherDerivationParameters: new Uint8Array(0) };
}

/** The IV of a private key's encryption: the first 16 bytes of the double SHA-256 of its public key. */
function secretIv(pubkey: Uint8Array): Uint8Array {
  return sha256d(pubkey).subarray(0, WALLET_CRYPTO_IV_SIZE);
}

/** Core's EncryptSecret. */
export function encryptSecret(masterKey: Uint8Array, secret: Uint8Array, pubkey: Uint8Array): Uint8Array {
  return aesEncrypt(masterKey, secretIv(pubkey), secret);
}

/** Core's DecryptSecret: the 32-byte secret, or null. The caller checks it against the public key (Core's DecryptKey). */
export function decryptSecret(masterKey: Uint8Array, crypted: Uint8Array, pubkey: Uint8Array): Uint8Array | null {
  const secret = aesDecrypt(masterKey, secretIv(pubkey), crypted);
  return secret && secret.length === 32 ? secret : null;
}
