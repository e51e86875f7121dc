/**
 * A new descriptor wallet's records, as Core's createwallet writes them (CWallet::Create with
 * WALLET_FLAG_DESCRIPTORS, SetupDescriptorScriptPubKeyMans, GenerateWalletDescriptor, TopUp):
 * a random seed becomes the master key; for each output type a receiving and a change
 * descriptor on the BIP44/49/84/86 account of the chain (coin type 1h off mainnet), each
 * with the master private key, its parent and last-hardened xpub caches and a keypool of
 * positions, all made active; then the flags, the version and the best block.
 */
import { randomBytes } from 'node:crypto';
import { getPublicKey } from '@noble/secp256k1';
import {
  BIP32_HARDENED,
  deriveExtPrivKeyPath,
  encodeExtPrivKey,
  extKeyFromSeed,
  neuterExtKey,
  parseDescriptor,
  type ChainName,
  type ExtPrivKey,
} from '../script/index.js';
import { descriptorId } from './descriptor-id.js';
import { encodePrivateKeyDer, privateKeyChecksum } from './private-key-der.js';
import { encryptMasterKey, encryptSecret } from './crypter.js';
import {
  cryptedKeyValue,
  descriptorKeyValue,
  int32Value,
  locatorValue,
  masterKeyValue,
  OUTPUT_TYPE_NUMBER,
  recordKeys,
  uint256Value,
  uint64Value,
  walletDescriptorValue,
  xpubValue,
  type WalletOutputType,
} from './records.js';
import { encodeXpubBytes } from './stored-wallet.js';
import type { WalletDatabase } from './wallet-database.js';

/** Core's CLIENT_VERSION for v31.0, written as the wallet's version. */
export const WALLET_CLIENT_VERSION = 310000;
/** Core's wallet flags. */
export const WALLET_FLAG = {
  AVOID_REUSE: 1n << 0n,
  KEY_ORIGIN_METADATA: 1n << 1n,
  LAST_HARDENED_XPUB_CACHED: 1n << 2n,
  DISABLE_PRIVATE_KEYS: 1n << 32n,
  BLANK_WALLET: 1n << 33n,
  DESCRIPTORS: 1n << 34n,
  EXTERNAL_SIGNER: 1n << 35n,
} as const;
/** Core's DEFAULT_KEYPOOL_SIZE (-keypool). */
export const DEFAULT_KEYPOOL_SIZE = 1000;

/** Core's order: LEGACY, P2SH_SEGWIT, BECH32, BECH32M; receiving before change. */
const OUTPUT_TYPES = Object.keys(OUTPUT_TYPE_NUMBER) as WalletOutputType[];
const PURPOSE: Record<WalletOutputType, number> = { legacy: 44, 'p2sh-segwit': 49, bech32: 84, bech32m: 86 };

export interface NewWalletOptions {
  readonly chain: ChainName;
  /** Seconds since the epoch: the descriptors' creation time. */
  readonly creationTime: number;
  /** The active chain's locator (ending at genesis, which tells Core the wallet's chain), kept as the best block. */
  readonly tipLocator: readonly Uint8Array[];
  /** How many positions of each descriptor to keep ahead (-keypool). */
  readonly keypool?: number;
  /** The 32-byte seed; a random valid key when absent. */
  readonly seed?: Uint8Array;
  /** avoid_reuse. */
  readonly avoidReuse?: boolean;
  /** Encrypt the wallet with this passphrase (createwallet's passphrase): its keys are written encrypted only. */
  readonly passphrase?: Uint8Array;
  /** disable_private_keys: a watch-only wallet, with no descriptors until some are imported. */
  readonly disablePrivateKeys?: boolean;
  /** blank: no descriptors until some are imported or a seed is set. */
  readonly blank?: boolean;
  /** An external signer's wallet (its descriptors come from the device afterwards). */
  readonly externalSigner?: boolean;
}

/** Core's GenerateWalletDescriptor text (private form) for one output type and role. */
export function walletDescriptorText(master: ExtPrivKey, type: WalletOutputType, internal: boolean, chain: ChainName): string {
  const key = encodeExtPrivKey(master, chain);
  const coin = chain === 'main' ? '0h' : '1h';
  const path = `${key}/${PURPOSE[type]}h/${coin}/0h/${internal ? 1 : 0}/*`;
  switch (type) {
    case 'legacy':
      return `pkh(${path})`;
    case 'p2sh-segwit':
      return `sh(wpkh(${path}))`;
    case 'bech32':
      return `wpkh(${path})`;
    case 'bech32m':
      return `tr(${path})`;
  }
}

function randomSeed(): Uint8Array {
  for (;;) {
    const seed = new Uint8Array(randomBytes(32));
    if (extKeyFromSeed(seed)) return seed;
  }
}

export interface DescriptorSetOptions {
  readonly chain: ChainName;
  readonly creationTime: number;
  readonly keypool?: number;
  readonly seed?: Uint8Array;
}

/**
 * Core's SetupDescriptorScriptPubKeyMans (inside the caller's transaction): a new seed's
 * master key, its eight descriptors with their key (encrypted under `encryptionKey` when the
 * wallet is encrypted) and caches, each made the active one of its type and role.
 */
export function writeDescriptorSet(db: WalletDatabase, options: DescriptorSetOptions, encryptionKey?: Uint8Array): void {
  const master = extKeyFromSeed(options.seed ?? randomSeed());
  if (!master) throw new Error('the seed does not give a valid master key');
  for (const internal of [false, true]) {
    for (const type of OUTPUT_TYPES) writeWalletDescriptor(db, master, type, internal, options, encryptionKey);
  }
}

/**
 * Core's SetupDescriptorScriptPubKeyMan for one type and role (inside the caller's
 * transaction): the descriptor over `master`, its key (encrypted under `encryptionKey` when
 * the wallet is encrypted), the caches Expand writes, and its place as the active one.
 * Returns the descriptor's id.
 */
export function writeWalletDescriptor(db: WalletDatabase, master: ExtPrivKey, type: WalletOutputType, internal: boolean, options: DescriptorSetOptions, encryptionKey?: Uint8Array): Uint8Array {
  const keypool = options.keypool ?? DEFAULT_KEYPOOL_SIZE;
  const masterPub = getPublicKey(master.privateKey, true);
  const der = encodePrivateKeyDer(master.privateKey, masterPub);
  const parsed = parseDescriptor(walletDescriptorText(master, type, internal, options.chain), options.chain);
  const descriptor = parsed.descriptors[0]!.toString();
  const id = descriptorId(descriptor);
  db.write(recordKeys.walletDescriptor(id), walletDescriptorValue.encode({ descriptor, creationTime: BigInt(options.creationTime), nextIndex: 0, rangeStart: 0, rangeEnd: keypool }));
  if (encryptionKey) {
    db.write(recordKeys.descriptorCryptedKey(id, masterPub), cryptedKeyValue.encode(encryptSecret(encryptionKey, master.privateKey, masterPub)));
  } else {
    db.write(recordKeys.descriptorKey(id, masterPub), descriptorKeyValue.encode({ privateKey: der, checksum: privateKeyChecksum(masterPub, der) }));
  }
  // The caches Expand writes: the account (last hardened step) and the parent of the positions.
  const account = deriveExtPrivKeyPath(master, [PURPOSE[type] + BIP32_HARDENED, (options.chain === 'main' ? 0 : 1) + BIP32_HARDENED, BIP32_HARDENED])!;
  const parent = deriveExtPrivKeyPath(account, [internal ? 1 : 0])!;
  db.write(recordKeys.descriptorLastHardenedCache(id, 0), xpubValue.encode(encodeXpubBytes(neuterExtKey(account))));
  db.write(recordKeys.descriptorCache(id, 0), xpubValue.encode(encodeXpubBytes(neuterExtKey(parent))));
  db.write(recordKeys.activeSpk(internal, type), uint256Value.encode(id));
  return id;
}

/** Writes a new wallet's records into an empty database, in one transaction. */
export function writeNewDescriptorWallet(db: WalletDatabase, options: NewWalletOptions): void {
  // Core refuses this combination before it writes anything (createwallet's -4).
  if (options.passphrase && options.disablePrivateKeys) throw new Error('a wallet without private keys has nothing to encrypt');
  // An encrypted wallet (Core's EncryptWallet before its descriptors are set up): a random
  // key encrypts every private key, and the passphrase encrypts that key (master key id 1).
  const encryption = options.passphrase && (() => {
    const key = new Uint8Array(randomBytes(32));
    return { key, record: encryptMasterKey(key, options.passphrase!) };
  })();
  db.transaction(() => {
    db.write(recordKeys.version(), int32Value.encode(WALLET_CLIENT_VERSION));
    if (encryption) db.write(recordKeys.masterKey(1), masterKeyValue.encode(encryption.record));
    let flags = WALLET_FLAG.DESCRIPTORS | WALLET_FLAG.LAST_HARDENED_XPUB_CACHED;
    if (options.avoidReuse) flags |= WALLET_FLAG.AVOID_REUSE;
    if (options.disablePrivateKeys) flags |= WALLET_FLAG.DISABLE_PRIVATE_KEYS;
    if (options.blank) flags |= WALLET_FLAG.BLANK_WALLET;
    if (options.externalSigner) flags |= WALLET_FLAG.EXTERNAL_SIGNER;
    db.write(recordKeys.flags(), uint64Value.encode(flags));
    if (!options.disablePrivateKeys && !options.blank) writeDescriptorSet(db, options, encryption?.key);
    // Core writes an empty locator as "bestblock" (older versions then rescan) and the real one beside it.
    db.write(recordKeys.bestBlock(), locatorValue.encode([]));
    db.write(recordKeys.bestBlockNoMerkle(), locatorValue.encode(options.tipLocator));
  });
}
