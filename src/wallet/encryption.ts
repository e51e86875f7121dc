/**
 * Encrypting a wallet file and changing its passphrase, as Core's CWallet::EncryptWallet and
 * ChangeWalletPassphrase do them on the records:
 *  - encryptwallet: a random master key under the passphrase (master key 1); every plain
 *    descriptor key replaced by its encrypted form; a descriptor wallet with keys then gets a
 *    new seed's descriptors, active from then on (the old ones stay, inactive: addresses
 *    handed out before stay the wallet's); and the file is rewritten (VACUUM) so no page
 *    keeps a plain key in its slack space.
 *  - walletpassphrasechange: the same master key under the new passphrase, with the same
 *    salt and the rounds timed again.
 */
import { randomBytes } from 'node:crypto';
import { decryptMasterKey, encryptMasterKey, encryptSecret, keyFromPassphrase, aesEncrypt, timedDeriveIterations } from './crypter.js';
import { decodePrivateKeyDer } from './private-key-der.js';
import { cryptedKeyValue, masterKeyValue, recordKeys } from './records.js';
import { readStoredWallet } from './stored-wallet.js';
import { WALLET_FLAG, writeDescriptorSet, type DescriptorSetOptions } from './new-wallet.js';
import type { WalletDatabase } from './wallet-database.js';

/** A wallet operation refused with Core's reason. */
export class WalletEncryptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WalletEncryptionError';
  }
}

/** encryptwallet on the file. `descriptors` says how a new seed's descriptors are made (Core's SetupDescriptorScriptPubKeyMans). */
export function encryptWalletFile(db: WalletDatabase, passphrase: Uint8Array, descriptors: DescriptorSetOptions): void {
  const wallet = readStoredWallet(db);
  if (wallet.masterKeys.size > 0) throw new WalletEncryptionError('Error: running with an encrypted wallet, but encryptwallet was called.');
  if (wallet.flags & WALLET_FLAG.DISABLE_PRIVATE_KEYS) throw new WalletEncryptionError('Error: wallet does not contain private keys, nothing to encrypt.');
  const masterKey = new Uint8Array(randomBytes(32));
  const record = encryptMasterKey(masterKey, passphrase);
  db.transaction(() => {
    db.write(recordKeys.masterKey(1), masterKeyValue.encode(record));
    for (const descriptor of wallet.descriptors.values()) {
      for (const [pubkeyHex, key] of descriptor.keys) {
        const pubkey = new Uint8Array(Buffer.from(pubkeyHex, 'hex'));
        const secret = decodePrivateKeyDer(key.privateKey);
        if (!secret) throw new WalletEncryptionError(`the private key of ${pubkeyHex} cannot be read`);
        db.write(recordKeys.descriptorCryptedKey(descriptor.id, pubkey), cryptedKeyValue.encode(encryptSecret(masterKey, secret, pubkey)));
        db.erase(recordKeys.descriptorKey(descriptor.id, pubkey));
      }
    }
    if (!(wallet.flags & WALLET_FLAG.BLANK_WALLET)) writeDescriptorSet(db, descriptors, masterKey);
  });
  if (!db.rewrite()) throw new WalletEncryptionError('Error: the wallet file could not be rewritten after encryption.');
}

/** walletpassphrasechange on the file; false when the old passphrase does not open any master key (Core's -14). */
export function changeWalletPassphrase(db: WalletDatabase, oldPassphrase: Uint8Array, newPassphrase: Uint8Array): boolean {
  const wallet = readStoredWallet(db);
  if (wallet.masterKeys.size === 0) throw new WalletEncryptionError('Error: running with an unencrypted wallet, but walletpassphrasechange was called.');
  // Core changes the first master key the old passphrase opens.
  for (const [id, record] of wallet.masterKeys) {
    const masterKey = decryptMasterKey(record, oldPassphrase);
    if (!masterKey) continue;
    const deriveIterations = timedDeriveIterations(newPassphrase, record.salt);
    const derived = keyFromPassphrase(newPassphrase, record.salt, deriveIterations, record.derivationMethod)!;
    db.write(recordKeys.masterKey(id), masterKeyValue.encode({ ...record, deriveIterations, cryptedKey: aesEncrypt(derived.key, derived.iv, masterKey) }));
    return true;
  }
  return false;
}
