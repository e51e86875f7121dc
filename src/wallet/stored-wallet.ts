/**
 * A wallet file's records gathered by what they belong to, as Core's LoadWallet reads them
 * (walletdb.cpp LoadRecords): the descriptors with their keys and caches, which descriptor
 * is active for each output type, the address book, locked coins, transactions, master
 * keys, flags, version and best block. A record this wallet does not read is kept aside
 * with its bytes (Core ignores unknown types too); a record that does not parse is an error,
 * as Core's DBErrors::CORRUPT.
 */
import { ByteReader, ByteWriter, hashToHex, toHex } from '../primitives/index.js';
import type { ExtPubKey } from '../script/index.js';
import {
  cryptedKeyValue,
  descriptorKeyValue,
  int32Value,
  int64Value,
  locatorValue,
  masterKeyValue,
  parseRecordKey,
  stringValue,
  uint256Value,
  uint64Value,
  walletDescriptorValue,
  xpubValue,
  type DescriptorKeyRecord,
  type MasterKeyRecord,
  type WalletDescriptorRecord,
  type WalletOutputType,
} from './records.js';
import type { WalletDatabase } from './wallet-database.js';
import { walletTxValue, type WalletTxRecord } from './wallet-tx-record.js';

/** One descriptor and what belongs to it. */
export interface StoredDescriptor {
  readonly id: Uint8Array;
  readonly record: WalletDescriptorRecord;
  /** Private keys by public key (hex). */
  readonly keys: Map<string, DescriptorKeyRecord>;
  /** Encrypted private keys by public key (hex). */
  readonly cryptedKeys: Map<string, Uint8Array>;
  /** Parent xpubs by key expression index (Core's m_parent_xpubs). */
  readonly parentXpubs: Map<number, Uint8Array>;
  /** Derived xpubs by key expression index, then derivation index. */
  readonly derivedXpubs: Map<number, Map<number, Uint8Array>>;
  /** Last hardened xpubs by key expression index. */
  readonly lastHardenedXpubs: Map<number, Uint8Array>;
}

export interface StoredWallet {
  version: number | undefined;
  minVersion: number | undefined;
  flags: bigint;
  /** Descriptors by id (hex). */
  readonly descriptors: Map<string, StoredDescriptor>;
  /** The active descriptor id (hex) for each output type, receiving and change. */
  readonly activeExternal: Map<WalletOutputType, string>;
  readonly activeInternal: Map<WalletOutputType, string>;
  /** The address book: labels and purposes by address. */
  readonly labels: Map<string, string>;
  readonly purposes: Map<string, string>;
  /** Addresses avoid_reuse marked as spent from (destdata "used"; Core's previously_spent). */
  readonly usedAddresses: Set<string>;
  /** Locked coins as "txid:vout" (txid in display order). */
  readonly lockedCoins: Set<string>;
  /** Transactions by txid (display hex). */
  readonly transactions: Map<string, WalletTxRecord>;
  readonly masterKeys: Map<number, MasterKeyRecord>;
  /** The best block locator (bestblock_nomerkle, else bestblock). */
  bestBlock: Uint8Array[];
  orderPosNext: bigint;
  /** Records of kinds this wallet does not read, by type. */
  readonly unknown: Map<string, number>;
}

/** A wallet file whose records Core would refuse: the reason. */
export class StoredWalletCorrupt extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoredWalletCorrupt';
  }
}

export function readStoredWallet(db: WalletDatabase): StoredWallet {
  const wallet: StoredWallet = {
    version: undefined,
    minVersion: undefined,
    flags: 0n,
    descriptors: new Map(),
    activeExternal: new Map(),
    activeInternal: new Map(),
    labels: new Map(),
    purposes: new Map(),
    usedAddresses: new Set(),
    lockedCoins: new Set(),
    transactions: new Map(),
    masterKeys: new Map(),
    bestBlock: [],
    orderPosNext: 0n,
    unknown: new Map(),
  };
  let bestNoMerkle: Uint8Array[] | undefined;
  const records = db.entries();
  // Descriptors first: their keys and caches name them.
  const descriptorOf = (id: Uint8Array): StoredDescriptor => {
    const found = wallet.descriptors.get(toHex(id));
    if (!found) throw new StoredWalletCorrupt(`a record refers to descriptor ${toHex(id)}, which the wallet does not have`);
    return found;
  };
  for (const [key, value] of records) {
    const parsed = parseRecordKey(key);
    if (parsed?.type !== 'walletdescriptor') continue;
    wallet.descriptors.set(toHex(parsed.id), {
      id: parsed.id,
      record: walletDescriptorValue.decode(value),
      keys: new Map(),
      cryptedKeys: new Map(),
      parentXpubs: new Map(),
      derivedXpubs: new Map(),
      lastHardenedXpubs: new Map(),
    });
  }
  for (const [key, value] of records) {
    const parsed = parseRecordKey(key);
    if (!parsed) throw new StoredWalletCorrupt(`unreadable record key ${toHex(key)}`);
    try {
      switch (parsed.type) {
        case 'walletdescriptor':
          break;
        case 'version':
          wallet.version = int32Value.decode(value);
          break;
        case 'minversion':
          wallet.minVersion = int32Value.decode(value);
          break;
        case 'flags':
          wallet.flags = uint64Value.decode(value);
          break;
        case 'bestblock':
          if (bestNoMerkle === undefined) wallet.bestBlock = locatorValue.decode(value);
          break;
        case 'bestblock_nomerkle':
          bestNoMerkle = locatorValue.decode(value);
          wallet.bestBlock = bestNoMerkle;
          break;
        case 'orderposnext':
          wallet.orderPosNext = int64Value.decode(value);
          break;
        case 'name':
          wallet.labels.set(parsed.address, stringValue.decode(value));
          break;
        case 'purpose':
          wallet.purposes.set(parsed.address, stringValue.decode(value));
          break;
        case 'destdata':
          // Core's LoadAddressBookRecords: "used" marks the address spent from; receive requests ("rr…") stay in the file untouched.
          if (parsed.key === 'used') wallet.usedAddresses.add(parsed.address);
          break;
        case 'mkey':
          wallet.masterKeys.set(parsed.id, masterKeyValue.decode(value));
          break;
        case 'tx':
          wallet.transactions.set(hashToHex(parsed.txid), walletTxValue.decode(value));
          break;
        case 'lockedutxo':
          wallet.lockedCoins.add(lockedCoinKey(parsed.txid, parsed.vout));
          break;
        case 'activeexternalspk':
        case 'activeinternalspk': {
          const id = uint256Value.decode(value);
          descriptorOf(id);
          (parsed.type === 'activeexternalspk' ? wallet.activeExternal : wallet.activeInternal).set(parsed.outputType, toHex(id));
          break;
        }
        case 'walletdescriptorkey':
          descriptorOf(parsed.id).keys.set(toHex(parsed.pubkey), descriptorKeyValue.decode(value));
          break;
        case 'walletdescriptorckey':
          descriptorOf(parsed.id).cryptedKeys.set(toHex(parsed.pubkey), cryptedKeyValue.decode(value));
          break;
        case 'walletdescriptorcache': {
          const descriptor = descriptorOf(parsed.id);
          const xpub = xpubValue.decode(value);
          if (parsed.derivationIndex === undefined) {
            descriptor.parentXpubs.set(parsed.keyIndex, xpub);
          } else {
            let derived = descriptor.derivedXpubs.get(parsed.keyIndex);
            if (!derived) descriptor.derivedXpubs.set(parsed.keyIndex, (derived = new Map()));
            derived.set(parsed.derivationIndex, xpub);
          }
          break;
        }
        case 'walletdescriptorlhcache':
          descriptorOf(parsed.id).lastHardenedXpubs.set(parsed.keyIndex, xpubValue.decode(value));
          break;
        case 'other':
          wallet.unknown.set(parsed.name, (wallet.unknown.get(parsed.name) ?? 0) + 1);
          break;
      }
    } catch (err) {
      if (err instanceof StoredWalletCorrupt) throw err;
      throw new StoredWalletCorrupt(`unreadable ${parsed.type} record: ${(err as Error).message}`);
    }
  }
  return wallet;
}

/** The txid:vout text of a locked coin from its parts (txid as the wallet stores it, internal order). */
export function lockedCoinKey(txid: Uint8Array, vout: number): string {
  return `${hashToHex(txid)}:${vout}`;
}

/** A BIP32 extended public key from its 74-byte encoding (depth, parent fingerprint, child number, chain code, key), as the caches keep it. */
export function decodeXpubBytes(encoded: Uint8Array): ExtPubKey {
  const r = new ByteReader(encoded);
  const depth = r.u8();
  const parentFingerprint = r.slice(4);
  const childNumber = ((r.u8() << 24) | (r.u8() << 16) | (r.u8() << 8) | r.u8()) >>> 0;
  const chainCode = r.slice(32);
  const publicKey = r.slice(33);
  r.assertEnd();
  return { depth, parentFingerprint, childNumber, chainCode, publicKey };
}

/** The 74-byte encoding of an extended public key (its serialization without the version), as the caches keep it. */
export function encodeXpubBytes(key: ExtPubKey): Uint8Array {
  const w = new ByteWriter(74).u8(key.depth).bytes(key.parentFingerprint);
  w.u8(key.childNumber >>> 24).u8((key.childNumber >>> 16) & 0xff).u8((key.childNumber >>> 8) & 0xff).u8(key.childNumber & 0xff);
  return w.bytes(key.chainCode).bytes(key.publicKey).finish();
}
