/**
 * One wallet descriptor at work (Core's DescriptorScriptPubKeyMan, the parts that read): the
 * stored descriptor parsed, its private keys in a key store (the plain ones, or the encrypted
 * ones once the wallet is unlocked), the scripts and addresses at each position, and the
 * listdescriptors entry Core prints for it.
 */
import { getPublicKey } from '@noble/secp256k1';
import { bytesEqual, fromHex, toHex } from '../primitives/index.js';
import { Bip32Key, decodeExtPubKey, encodeAddress, encodeExtPubKey, keyFingerprint, KeyStore, OriginKey, parseDescriptor, type ChainName, type Descriptor, type ExtPubKey, type KeyExpression } from '../script/index.js';
import { decryptSecret } from './crypter.js';
import { decodePrivateKeyDer, privateKeyChecksumMatches } from './private-key-der.js';
import type { WalletDescriptorRecord } from './records.js';
import { decodeXpubBytes, type StoredDescriptor } from './stored-wallet.js';

/** A descriptor whose keys Core would refuse to load (DBErrors::CORRUPT), with the reason. */
export class DescriptorKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DescriptorKeyError';
  }
}


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

/** An extended key expression as a wallet descriptor writes it: optional origin, the key, a path, an optional wildcard. */
const EXTENDED_KEY = /(\[[0-9a-f]{8}((?:\/\d+[h']?)*)\])?([xt]pub[1-9A-HJ-NP-Za-km-z]+)((?:\/\d+[h']?)*)(\/\*[h']?)?/g;

/**
 * The descriptor as Core's caches let it be used without private keys: each extended key
 * whose path has hardened steps is replaced by the cached xpub at its last hardened step,
 * with the origin those steps make (Core's ToNormalizedString, and the parent xpub its
 * ExpandFromCache derives positions from). Null when a needed cache entry is missing or the
 * descriptor has keys of other kinds, whose positions this text rewrite cannot number.
 */
export function cachedDescriptorText(stored: StoredDescriptor, chain: ChainName): string | null {
  const text = stored.record.descriptor.replace(/#[^#]*$/, '');
  let index = 0;
  let failed = false;
  const rewritten = text.replace(EXTENDED_KEY, (whole, origin: string | undefined, originPath: string | undefined, key: string, path: string, wildcard: string | undefined) => {
    const keyIndex = index++;
    const steps = path.split('/').slice(1);
    let lastHardened = -1;
    steps.forEach((step, i) => {
      if (/[h']$/.test(step)) lastHardened = i;
    });
    if (lastHardened < 0) return whole;
    const cached = stored.lastHardenedXpubs.get(keyIndex);
    const root = decodeExtPubKey(key, chain);
    if (!cached || !root) {
      failed = true;
      return whole;
    }
    const accountText = encodeExtPubKey(decodeXpubBytes(cached), chain);
    const hardenedPath = steps.slice(0, lastHardened + 1).map((step) => `/${step.replace("'", 'h')}`).join('');
    const fingerprint = origin ? origin.slice(1, 9) : toHex(keyFingerprint(root.publicKey));
    const rest = steps.slice(lastHardened + 1).map((step) => `/${step}`).join('');
    return `[${fingerprint}${origin ? originPath : ''}${hardenedPath}]${accountText}${rest}${wildcard ?? ''}`;
  });
  // Other key kinds (hex public keys, WIF) also take positions in Core's numbering.
  const otherKeys = /[(,][0-9a-fA-F]{64,130}[),]|[(,][59KLc][1-9A-HJ-NP-Za-km-z]{50,51}[),]/.test(text.replace(EXTENDED_KEY, ''));
  if (failed || index === 0 || otherKeys) return null;
  return rewritten;
}

export class DescriptorSpkm {
  readonly descriptor: Descriptor;
  readonly keys = new KeyStore();
  /** The descriptor's range state as it now stands (handed-out positions move it on). */
  record: WalletDescriptorRecord;
  /** The descriptor rewritten over the cached xpubs, for use without private keys (undefined: not built yet). */
  #cached: Descriptor | null | undefined;

  constructor(
    readonly stored: StoredDescriptor,
    readonly chain: ChainName,
  ) {
    this.record = stored.record;
    const parsed = parseDescriptor(stored.record.descriptor, chain);
    const descriptor = parsed.descriptors[0];
    if (!descriptor || parsed.descriptors.length !== 1) throw new DescriptorKeyError(`a wallet descriptor has one expansion: ${stored.record.descriptor}`);
    this.descriptor = descriptor;
    // Plain private keys: Core checks each against its public key and its checksum (LoadDescriptorKey).
    for (const [pubkeyHex, record] of stored.keys) {
      const pubkey = fromHex(pubkeyHex);
      const secret = decodePrivateKeyDer(record.privateKey);
      if (!secret || !privateKeyChecksumMatches(pubkey, record.privateKey, record.checksum)) throw new DescriptorKeyError(`the private key of ${pubkeyHex} is corrupt`);
      this.#addKey(secret, pubkey);
    }
  }

  #addKey(secret: Uint8Array, pubkey: Uint8Array): void {
    const compressed = pubkey.length === 33;
    if (!bytesEqual(getPublicKey(secret, compressed), pubkey)) throw new DescriptorKeyError(`a private key does not match its public key ${toHex(pubkey)}`);
    this.keys.add(secret, compressed);
  }

  /** Core's CheckDecryptionKey for one descriptor: its encrypted keys opened with the wallet's master key; false when one does not open. */
  unlock(masterKey: Uint8Array): boolean {
    const opened: [Uint8Array, Uint8Array][] = [];
    for (const [pubkeyHex, crypted] of this.stored.cryptedKeys) {
      const pubkey = fromHex(pubkeyHex);
      const secret = decryptSecret(masterKey, crypted, pubkey);
      if (!secret || !bytesEqual(getPublicKey(secret, pubkey.length === 33), pubkey)) return false;
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

  #cachedDescriptor(): Descriptor | null {
    if (this.#cached === undefined) {
      const text = cachedDescriptorText(this.stored, this.chain);
      this.#cached = text === null ? null : (parseDescriptor(text, this.chain).descriptors[0] ?? null);
    }
    return this.#cached;
  }

  /** The scripts at `index` (from the private keys, else from the cached xpubs), or null when neither can give them. */
  scriptsAt(index: number): Uint8Array[] | null {
    // The cached parent xpub needs one public derivation per position; the private keys
    // would redo every hardened step from the root each time.
    return this.#cachedDescriptor()?.expand(index) ?? this.descriptor.expand(index, this.keys) ?? null;
  }

  /** The descriptor and keys that can expand `index` (the cached form when the keys cannot), for callers that infer from an expansion. */
  expansionAt(index: number): { descriptor: Descriptor; keys: KeyStore } | null {
    if (this.descriptor.expand(index, this.keys)) return { descriptor: this.descriptor, keys: this.keys };
    const cached = this.#cachedDescriptor();
    return cached && cached.expand(index) ? { descriptor: cached, keys: new KeyStore() } : null;
  }

  /** Core's Descriptor::GetPubKeys' extended keys: the root of every BIP32 key expression. */
  hdRoots(): ExtPubKey[] {
    const roots: ExtPubKey[] = [];
    const visit = (key: KeyExpression): void => {
      if (key instanceof OriginKey) visit(key.inner);
      else if (key instanceof Bip32Key) roots.push(key.root);
    };
    const walk = (d: Descriptor): void => {
      d.keyArgs.forEach(visit);
      d.subArgs.forEach(walk);
    };
    walk(this.descriptor);
    return roots;
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
    return this.descriptor.toNormalizedString(this.keys) ?? this.#cachedDescriptor()?.toString() ?? null;
  }

  /**
   * Core's TopUp: the range reaches `keypool` positions past the next one to hand out (a
   * descriptor without a wildcard has the one position 0). Returns whether the record changed.
   */
  topUp(keypool: number): boolean {
    const target = Math.max(keypool, 1);
    const rangeEnd = this.isRange() ? this.record.nextIndex + target : 1;
    if (this.record.rangeEnd >= rangeEnd) return false;
    for (let index = this.record.rangeEnd; index < rangeEnd; index++) {
      if (!this.scriptsAt(index)) throw new DescriptorKeyError('Error: Keypool ran out, please call keypoolrefill first');
    }
    this.record = { ...this.record, rangeEnd, rangeStart: this.isRange() ? this.record.rangeStart : 0 };
    return true;
  }

  /**
   * Core's GetNewDestination: tops up, takes the address at the next position and moves past
   * it. The caller writes `record` (Core's WriteDescriptor).
   */
  newDestination(keypool: number): string {
    this.topUp(keypool);
    const address = this.addressAt(this.record.nextIndex);
    if (address === null) throw new DescriptorKeyError('Error: Keypool ran out, please call keypoolrefill first');
    this.record = { ...this.record, nextIndex: this.record.nextIndex + 1 };
    return address;
  }

  /** listdescriptors' entry; `internal` when the descriptor is active (for change or not). */
  listEntry(withPrivateKeys: boolean, active: { internal: boolean } | undefined): ListedDescriptor | null {
    const desc = this.descriptorString(withPrivateKeys);
    if (desc === null) return null;
    const { record } = this;
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
