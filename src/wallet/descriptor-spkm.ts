/**
 * One wallet descriptor at work (Core's DescriptorScriptPubKeyMan, the parts that read): the
 * stored descriptor parsed, its private keys in a key store (the plain ones, or the encrypted
 * ones once the wallet is unlocked), the scripts and addresses at each position, and the
 * listdescriptors entry Core prints for it.
 */
import { getPublicKey } from '@noble/secp256k1';
import { encodeAddress, KeyStore, parseDescriptor, type ChainName, type Descriptor } from '../script/index.js';
import { decryptSecret } from './crypter.js';
import { decodePrivateKeyDer, privateKeyChecksumMatches } from './private-key-der.js';
import type { StoredDescriptor } from './stored-wallet.js';

/** A descriptor whose keys Core would refuse to load (DBErrors::CORRUPT), with the reason. */
export class DescriptorKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DescriptorKeyError';
  }
}

const bytesOfHex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Core's listdescriptors entry, in its key order. */
export interface ListedDescriptor {
  desc: string;
  timestamp: number;
  active: boolean;
  internal?: boolean;
  range?: [number, number];
  next?: number;
  next_index?: number;
}

export class DescriptorSpkm {
  readonly descriptor: Descriptor;
  readonly keys = new KeyStore();

  constructor(
    readonly stored: StoredDescriptor,
    readonly chain: ChainName,
  ) {
    const parsed = parseDescriptor(stored.record.descriptor, chain);
    const descriptor = parsed.descriptors[0];
    if (!descriptor || parsed.descriptors.length !== 1) throw new DescriptorKeyError(`a wallet descriptor has one expansion: ${stored.record.descriptor}`);
    this.descriptor = descriptor;
    // Plain private keys: Core checks each against its public key and its checksum (LoadDescriptorKey).
    for (const [pubkeyHex, record] of stored.keys) {
      const pubkey = bytesOfHex(pubkeyHex);
      const secret = decodePrivateKeyDer(record.privateKey);
      if (!secret || !privateKeyChecksumMatches(pubkey, record.privateKey, record.checksum)) throw new DescriptorKeyError(`the private key of ${pubkeyHex} is corrupt`);
      this.#addKey(secret, pubkey);
    }
  }

  #addKey(secret: Uint8Array, pubkey: Uint8Array): void {
    const compressed = pubkey.length === 33;
    if (!sameBytes(getPublicKey(secret, compressed), pubkey)) throw new DescriptorKeyError(`a private key does not match its public key ${Buffer.from(pubkey).toString('hex')}`);
    this.keys.add(secret, compressed);
  }

  /** Core's CheckDecryptionKey for one descriptor: its encrypted keys opened with the wallet's master key; false when one does not open. */
  unlock(masterKey: Uint8Array): boolean {
    const opened: [Uint8Array, Uint8Array][] = [];
    for (const [pubkeyHex, crypted] of this.stored.cryptedKeys) {
      const pubkey = bytesOfHex(pubkeyHex);
      const secret = decryptSecret(masterKey, crypted, pubkey);
      if (!secret || !sameBytes(getPublicKey(secret, pubkey.length === 33), pubkey)) return false;
      opened.push([secret, pubkey]);
    }
    for (const [secret, pubkey] of opened) this.#addKey(secret, pubkey);
    return true;
  }

  get hasPrivateKeys(): boolean {
    return this.keys.size > 0;
  }

  isRange(): boolean {
    return this.descriptor.isRange();
  }

  /** The scripts at `index`, or null when a key there needs a private key this store lacks. */
  scriptsAt(index: number): Uint8Array[] | null {
    return this.descriptor.expand(index, this.keys);
  }

  /** The address getnewaddress gives for `index` (the first script's). */
  addressAt(index: number): string | null {
    const scripts = this.scriptsAt(index);
    return scripts && scripts[0] ? encodeAddress(scripts[0], this.chain) : null;
  }

  /** Core's GetDescriptorString: the normalized public form, or the stored form with private keys. */
  descriptorString(withPrivateKeys: boolean): string | null {
    if (withPrivateKeys) {
      const text = this.descriptor.toPrivateString(this.keys);
      return text.hasPrivate ? text.text : null;
    }
    return this.descriptor.toNormalizedString(this.keys);
  }

  /** listdescriptors' entry; `internal` when the descriptor is active (for change or not). */
  listEntry(withPrivateKeys: boolean, active: { internal: boolean } | undefined): ListedDescriptor | null {
    const desc = this.descriptorString(withPrivateKeys);
    if (desc === null) return null;
    const { record } = this.stored;
    const entry: ListedDescriptor = { desc, timestamp: Number(record.creationTime), active: active !== undefined };
    if (active) entry.internal = active.internal;
    if (this.isRange()) {
      entry.range = [record.rangeStart, record.rangeEnd - 1];
      entry.next = record.nextIndex;
      entry.next_index = record.nextIndex;
    }
    return entry;
  }
}
