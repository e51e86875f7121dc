/**
 * Wallet encryption and private-key DER round trips (the interop test against bitcoind's own
 * encrypted wallet is test/integration/wallet-database-bitcoind.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as noble from '@noble/secp256k1';
import {
  decodePrivateKeyDer,
  decryptMasterKey,
  decryptSecret,
  encodePrivateKeyDer,
  encryptMasterKey,
  encryptSecret,
  keyFromPassphrase,
  masterKeyValue,
  privateKeyChecksum,
  privateKeyChecksumMatches,
} from '../../src/wallet/index.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

test('a master key encrypted under a passphrase opens with it and with no other; its record round-trips', () => {
  const masterKey = Uint8Array.from({ length: 32 }, (_, i) => i * 3 + 1);
  const record = encryptMasterKey(masterKey, text('correct horse'), 1000);
  assert.equal(record.cryptedKey.length, 48);
  assert.equal(record.salt.length, 8);
  assert.deepEqual(masterKeyValue.decode(masterKeyValue.encode(record)), record);
  assert.deepEqual(decryptMasterKey(record, text('correct horse')), masterKey);
  assert.equal(decryptMasterKey(record, text('wrong horse')), null);
  assert.equal(decryptMasterKey({ ...record, derivationMethod: 1 }, text('correct horse')), null);
  // Rounds change the key: one round fewer does not open it.
  assert.equal(decryptMasterKey({ ...record, deriveIterations: 999 }, text('correct horse')), null);
  assert.equal(keyFromPassphrase(text('x'), new Uint8Array(8), 0, 0), null);
});

test('a private key encrypted under the master key opens only with its own public key (the IV)', () => {
  const masterKey = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);
  const secret = Uint8Array.from({ length: 32 }, (_, i) => i + 7);
  const pubkey = noble.getPublicKey(secret, true);
  const crypted = encryptSecret(masterKey, secret, pubkey);
  assert.equal(crypted.length, 48);
  assert.deepEqual(decryptSecret(masterKey, crypted, pubkey), secret);
  const other = decryptSecret(masterKey, crypted, noble.getPublicKey(Uint8Array.from({ length: 32 }, (_, i) => i + 8), true));
  assert.ok(other === null || !Buffer.from(other).equals(Buffer.from(secret)));
});

test('private keys in Core\'s DER: 214 bytes compressed, 279 uncompressed, read back, checksummed', () => {
  const secret = Uint8Array.from({ length: 32 }, (_, i) => (i * 11 + 5) & 0xff);
  for (const compressed of [true, false]) {
    const pubkey = noble.getPublicKey(secret, compressed);
    const der = encodePrivateKeyDer(secret, pubkey);
    assert.equal(der.length, compressed ? 214 : 279);
    assert.deepEqual(decodePrivateKeyDer(der), secret);
    assert.deepEqual([...der.subarray(der.length - pubkey.length)], [...pubkey]);
    const checksum = privateKeyChecksum(pubkey, der);
    assert.ok(privateKeyChecksumMatches(pubkey, der, checksum));
    const tampered = Uint8Array.from(der);
    tampered[10]! ^= 1;
    assert.equal(privateKeyChecksumMatches(pubkey, tampered, checksum), false);
  }
  // What Core's import refuses: no sequence, a wrong version, an octet string over 32 bytes.
  assert.equal(decodePrivateKeyDer(Uint8Array.of(0x31, 0x81, 0x03)), null);
  const der = encodePrivateKeyDer(secret, noble.getPublicKey(secret, true));
  const badVersion = Uint8Array.from(der);
  badVersion[5] = 2;
  assert.equal(decodePrivateKeyDer(badVersion), null);
  const longOctets = Uint8Array.from(der);
  longOctets[7] = 33;
  assert.equal(decodePrivateKeyDer(longOctets), null);
  assert.equal(decodePrivateKeyDer(der.subarray(0, 20)), null);
});
