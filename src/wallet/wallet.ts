/**
 * A loaded descriptor wallet (Core's CWallet): its file, its descriptors and the scripts they
 * cover, the address book, locked coins, encryption state and transactions, kept in step
 * with the chain and the mempool as Core's validation-interface callbacks keep it
 * (blockConnected, blockDisconnected, transactionAddedToMempool,
 * transactionRemovedFromMempool) and written to the file as it changes: each event's
 * records in one SQLite transaction, so a crash leaves the file before or after it.
 */
import { hashToHex, hexToHash, toHex, type Block, type Transaction } from '../primitives/index.js';
import { encodeAddress, parseDescriptor, type ChainName, type ExtPrivKey, type ExtPubKey } from '../script/index.js';
import { getPublicKey } from '@noble/secp256k1';
import { randomInt } from 'node:crypto';
import { decryptMasterKey, encryptSecret } from './crypter.js';
import { descriptorId } from './descriptor-id.js';
import { descriptorCacheEntries } from './descriptor-cache.js';
import { encodePrivateKeyDer, privateKeyChecksum } from './private-key-der.js';
import { DescriptorSpkm } from './descriptor-spkm.js';
import { DEFAULT_KEYPOOL_SIZE, WALLET_FLAG, walletDescriptorText, writeWalletDescriptor } from './new-wallet.js';
import { takeNewAddress, takeNewChangeAddress } from './new-address.js';
import { cryptedKeyValue, descriptorKeyValue, int64Value, uint64Value, LOCKED_UTXO_VALUE, locatorValue, recordKeys, stringValue, uint256Value, walletDescriptorValue, xpubValue, type WalletOutputType } from './records.js';
import { encodeXpubBytes, readStoredWallet, type StoredWallet } from './stored-wallet.js';
import type { WalletChain } from './wallet-chain.js';
import type { WalletDatabase } from './wallet-database.js';
import { serializedWalletTxState, walletTxStateOf, walletTxValue, type WalletTxState } from './wallet-tx-record.js';
import { WalletTxStore, type WalletTx } from './wallet-txs.js';

/** Core's TIMESTAMP_WINDOW: blocks this much older than the wallet's birth are still scanned. */
const TIMESTAMP_WINDOW = 2 * 60 * 60;

/** Where a script of the wallet comes from. */
export interface OwnedScript {
  readonly spkm: DescriptorSpkm;
  readonly index: number;
}

export interface WalletLoadOptions {
  readonly name: string;
  readonly chain: ChainName;
  readonly keypool?: number;
  readonly log?: (message: string) => void;
  /** -walletbroadcast (default on): whether the wallet's transactions are offered to the mempool at all. */
  readonly broadcastTransactions?: boolean;
  /** Set before the wallet attaches to the chain, so the transactions a rescan finds are told too. */
  readonly onTransactionChanged?: (wallet: Wallet, wtx: WalletTx) => void;
}

/** A descriptor to add (Core's WalletDescriptor with its keys and role). */
export interface ImportedDescriptor {
  readonly text: string;
  readonly keys: readonly { readonly secret: Uint8Array; readonly compressed: boolean }[];
  readonly creationTime: number;
  readonly rangeStart: number;
  readonly rangeEnd: number;
  readonly nextIndex: number;
  readonly isRange: boolean;
  readonly label: string | undefined;
  readonly internal: boolean;
  readonly active: boolean;
  readonly outputType: WalletOutputType | undefined;
}

/** Core's resend timer: the next periodic resend falls 12 to 36 hours ahead (GetDefaultNextResend). */
const RESEND_MIN_DELAY = 12 * 60 * 60;
const RESEND_DELAY_RANGE = 24 * 60 * 60;

/** Only transactions this much older than the last tip update are resent (ResubmitWalletTransactions). */
const RESEND_MIN_AGE = 5 * 60;

/** Core's GetDefaultNextResend: uniformly 12 to 36 hours after `now`. */
function defaultNextResend(now: number): number {
  return now + RESEND_MIN_DELAY + randomInt(RESEND_DELAY_RANGE);
}

/** How long a rescan runs before it lets the node go on. */
const RESCAN_SLICE_MS = 5;

export class Wallet {
  readonly txs = new WalletTxStore();
  /** The rescan in progress (an RPC's), if any. */
  #rescan: { started: number; from: number; to: number; height: number; abort: boolean } | undefined;
  readonly spkms = new Map<string, DescriptorSpkm>();
  /** Script (hex) → the descriptor and position that give it (Core's m_map_script_pub_keys). */
  readonly #scripts = new Map<string, OwnedScript>();
  stored: StoredWallet;
  /** The master key while unlocked (walletpassphrase), else undefined. */
  #masterKey: Uint8Array | undefined;
  #relockTimer: NodeJS.Timeout | undefined;
  /** When the unlock lapses (Core's nRelockTime), 0 when locked. */
  unlockedUntil = 0;
  /** Coins locked for this session only (lockunspent without persistent). */
  readonly lockedInMemory = new Set<string>();
  #orderPosNext: number;
  lastProcessed: { height: number; hash: Uint8Array } = { height: -1, hash: new Uint8Array(32) };
  /** The earliest descriptor creation time (Core's m_birth_time). */
  birthTime = Number.MAX_SAFE_INTEGER;
  readonly keypool: number;
  readonly #log: (message: string) => void;
  /** Told of every transaction AddToWallet takes or sees again (Core's NotifyTransactionChanged and -walletnotify). */
  onTransactionChanged: ((wtx: WalletTx) => void) | undefined;
  /** -walletbroadcast (Core's fBroadcastTransactions). */
  readonly broadcastTransactions: boolean;
  /** Node time when the periodic resend may next run (Core's m_next_resend). */
  #nextResend: number;
  /** Node time of the last tip update the wallet heard of (Core's m_best_block_time). */
  #bestBlockTime = 0;

  private constructor(
    readonly name: string,
    readonly db: WalletDatabase,
    readonly chainName: ChainName,
    readonly chain: WalletChain,
    options: WalletLoadOptions,
  ) {
    this.keypool = options.keypool ?? DEFAULT_KEYPOOL_SIZE;
    this.#log = options.log ?? (() => undefined);
    this.broadcastTransactions = options.broadcastTransactions ?? true;
    this.#nextResend = defaultNextResend(chain.now());
    this.stored = readStoredWallet(db);
    const notify = options.onTransactionChanged;
    this.onTransactionChanged = notify ? (wtx) => notify(this, wtx) : undefined;
    this.#orderPosNext = Number(this.stored.orderPosNext);
    this.#loadDescriptors();
  }

  /** Core's CWallet::Create for an existing file (LoadWallet, then AttachChain). */
  static load(db: WalletDatabase, chain: WalletChain, options: WalletLoadOptions): Wallet {
    const wallet = new Wallet(options.name, db, options.chain, chain, options);
    wallet.#loadTransactions();
    wallet.#attachChain();
    return wallet;
  }

  log(message: string): void {
    this.#log(`[${this.name}] ${message}`);
  }

  // ---- flags and keys ----

  hasFlag(flag: bigint): boolean {
    return (this.stored.flags & flag) !== 0n;
  }

  get isEncrypted(): boolean {
    return this.stored.masterKeys.size > 0;
  }

  get isLocked(): boolean {
    return this.isEncrypted && this.#masterKey === undefined;
  }

  get privateKeysDisabled(): boolean {
    return this.hasFlag(WALLET_FLAG.DISABLE_PRIVATE_KEYS);
  }

  #loadDescriptors(): void {
    this.spkms.clear();
    this.#scripts.clear();
    for (const [id, stored] of this.stored.descriptors) {
      const spkm = new DescriptorSpkm(stored, this.chainName);
      this.spkms.set(id, spkm);
      this.birthTime = Math.min(this.birthTime, Number(stored.record.creationTime));
    }
    // Core's LoadWallet tops up the active descriptors (their range stays keypool ahead).
    const active = new Set([...this.stored.activeExternal.values(), ...this.stored.activeInternal.values()]);
    this.db.transaction(() => {
      for (const id of active) {
        const spkm = this.spkms.get(id);
        if (spkm && this.#canTopUp(spkm) && spkm.topUp(this.keypool)) this.#writeDescriptor(spkm);
      }
    });
    for (const spkm of this.spkms.values()) this.#indexScripts(spkm, spkm.isRange() ? spkm.record.rangeStart : 0);
  }

  /** A locked wallet whose caches cannot give new positions does not top up (Core's TopUp fails quietly there). */
  #canTopUp(spkm: DescriptorSpkm): boolean {
    return spkm.scriptsAt(spkm.record.rangeEnd) !== null;
  }

  #indexScripts(spkm: DescriptorSpkm, from: number): void {
    const end = spkm.isRange() ? spkm.record.rangeEnd : 1;
    for (let index = from; index < end; index++) {
      for (const script of spkm.scriptsAt(index) ?? []) {
        const key = toHex(script);
        if (!this.#scripts.has(key)) this.#scripts.set(key, { spkm, index });
      }
    }
  }

  #writeDescriptor(spkm: DescriptorSpkm): void {
    this.db.write(recordKeys.walletDescriptor(spkm.stored.id), walletDescriptorValue.encode(spkm.record));
    this.#writeDescriptorCache(spkm);
  }

  /**
   * Core's TopUp writing the cache items its expansion adds (MergeAndDiff): what bitcoind needs
   * to expand the descriptor without keys. Only what the cache lacks is derived and written.
   */
  #writeDescriptorCache(spkm: DescriptorSpkm): void {
    const stored = spkm.stored;
    const [from, to] = spkm.isRange() ? [spkm.record.rangeStart, spkm.record.rangeEnd] : [0, 1];
    const cached = { parent: (k: number) => stored.parentXpubs.has(k), derived: (k: number, pos: number) => stored.derivedXpubs.get(k)?.has(pos) ?? false };
    for (const entry of descriptorCacheEntries(spkm.descriptor, spkm.keys, from, to, cached)) {
      const bytes = encodeXpubBytes(entry.xpub);
      if (entry.derivationIndex !== undefined) {
        let derived = stored.derivedXpubs.get(entry.keyIndex);
        if (!derived) stored.derivedXpubs.set(entry.keyIndex, (derived = new Map()));
        derived.set(entry.derivationIndex, bytes);
        this.db.write(recordKeys.descriptorCache(stored.id, entry.keyIndex, entry.derivationIndex), xpubValue.encode(bytes));
      } else if (entry.lastHardened) {
        if (stored.lastHardenedXpubs.has(entry.keyIndex)) continue;
        stored.lastHardenedXpubs.set(entry.keyIndex, bytes);
        this.db.write(recordKeys.descriptorLastHardenedCache(stored.id, entry.keyIndex), xpubValue.encode(bytes));
      } else {
        stored.parentXpubs.set(entry.keyIndex, bytes);
        this.db.write(recordKeys.descriptorCache(stored.id, entry.keyIndex), xpubValue.encode(bytes));
      }
    }
  }

  /** Core's IsMine for a script. */
  isMine(script: Uint8Array): boolean {
    return this.#scripts.has(toHex(script));
  }

  ownerOf(script: Uint8Array): OwnedScript | undefined {
    return this.#scripts.get(toHex(script));
  }

  /** The active descriptor of a type and role (Core's GetScriptPubKeyMan(type, internal)). */
  activeSpkm(type: WalletOutputType, internal: boolean): DescriptorSpkm | undefined {
    const id = (internal ? this.stored.activeInternal : this.stored.activeExternal).get(type);
    return id === undefined ? undefined : this.spkms.get(id);
  }

  isActive(spkm: DescriptorSpkm): { internal: boolean } | undefined {
    const id = toHex(spkm.stored.id);
    for (const type of this.stored.activeExternal.values()) if (type === id) return { internal: false };
    for (const type of this.stored.activeInternal.values()) if (type === id) return { internal: true };
    return undefined;
  }

  /** Core's IsInternalScriptPubKeyMan. */
  isInternal(spkm: DescriptorSpkm): boolean | undefined {
    return this.isActive(spkm)?.internal;
  }

  // ---- encryption ----

  /** walletpassphrase: opens the master key and every descriptor's keys; false for a wrong passphrase. */
  unlock(passphrase: Uint8Array, seconds: number): boolean {
    for (const record of this.stored.masterKeys.values()) {
      const key = decryptMasterKey(record, passphrase);
      if (!key) continue;
      for (const spkm of this.spkms.values()) if (!spkm.unlock(key)) return false;
      this.#masterKey = key;
      this.#scheduleRelock(seconds);
      return true;
    }
    return false;
  }

  #scheduleRelock(seconds: number): void {
    clearTimeout(this.#relockTimer);
    this.unlockedUntil = this.chain.now() + seconds;
    this.#relockTimer = setTimeout(() => this.lock(), seconds * 1000);
    this.#relockTimer.unref();
  }

  get masterKey(): Uint8Array | undefined {
    return this.#masterKey;
  }

  /** walletlock: the keys are forgotten (the descriptors are rebuilt from the file without them). */
  lock(): void {
    clearTimeout(this.#relockTimer);
    this.#relockTimer = undefined;
    this.unlockedUntil = 0;
    if (this.#masterKey === undefined) return;
    this.#masterKey = undefined;
    this.reloadKeys();
  }

  /** After the file's keys changed (encryption, a passphrase change, a lock): descriptors read again. */
  reloadKeys(): void {
    const records = this.stored;
    this.stored = readStoredWallet(this.db);
    // Transactions, locks and the address book in memory stay the wallet's.
    this.stored.labels.clear();
    for (const [k, v] of records.labels) this.stored.labels.set(k, v);
    this.stored.purposes.clear();
    for (const [k, v] of records.purposes) this.stored.purposes.set(k, v);
    this.#loadDescriptors();
    // An unlocked wallet stays unlocked (Core's ChangeWalletPassphrase relocks only a locked one).
    if (this.#masterKey) for (const spkm of this.spkms.values()) spkm.unlock(this.#masterKey);
  }

  // ---- addresses ----

  /** getnewaddress. */
  newAddress(type: WalletOutputType, label: string): string {
    const spkm = this.activeSpkm(type, false);
    if (!spkm) throw new WalletError('NO_DESCRIPTOR', `Error: No ${type} addresses available.`);
    const from = spkm.record.rangeEnd;
    const address = takeNewAddress(this.db, spkm, label, this.keypool);
    this.stored.labels.set(address, label);
    this.stored.purposes.set(address, 'receive');
    this.#indexScripts(spkm, from);
    return address;
  }

  /** getrawchangeaddress. */
  newChangeAddress(type: WalletOutputType): string {
    const spkm = this.activeSpkm(type, true);
    if (!spkm) throw new WalletError('NO_DESCRIPTOR', `Error: No ${type} addresses available.`);
    const from = spkm.record.rangeEnd;
    const address = takeNewChangeAddress(this.db, spkm, this.keypool);
    this.#indexScripts(spkm, from);
    return address;
  }

  /** Core's SetAddressBook (label and purpose written together). */
  setAddressBook(address: string, label: string, purpose: string | undefined): void {
    this.db.transaction(() => {
      if (purpose !== undefined) this.db.write(recordKeys.purpose(address), stringValue.encode(purpose));
      this.db.write(recordKeys.name(address), stringValue.encode(label));
    });
    if (purpose !== undefined) this.stored.purposes.set(address, purpose);
    this.stored.labels.set(address, label);
  }

  /** Core's FindAddressBookEntry with allow_change false: entries with a label only. */
  addressBookLabel(address: string): string | undefined {
    return this.stored.labels.get(address);
  }

  /** Core's OutputIsChange / ScriptIsChange: ours and not in the address book. */
  isChange(script: Uint8Array): boolean {
    if (!this.isMine(script)) return false;
    const address = encodeAddress(script, this.chainName);
    return address === null || !this.stored.labels.has(address);
  }

  /** keypoolrefill: every active descriptor topped up to `size`. */
  refillKeypool(size: number): void {
    this.db.transaction(() => {
      for (const spkm of this.spkms.values()) {
        if (!this.isActive(spkm)) continue;
        const from = spkm.record.rangeEnd;
        if (spkm.topUp(size)) {
          this.#writeDescriptor(spkm);
          this.#indexScripts(spkm, from);
        }
      }
    });
  }

  /** Core's ReserveDestination::KeepDestination for a change address taken at the descriptor's next position. */
  keepChangeDestination(spkm: DescriptorSpkm): void {
    const from = spkm.record.rangeEnd;
    spkm.record = { ...spkm.record, nextIndex: spkm.record.nextIndex + 1 };
    if (this.#canTopUp(spkm)) spkm.topUp(this.keypool);
    this.#writeDescriptor(spkm);
    this.#indexScripts(spkm, from);
  }

  /**
   * Core's IsSpentKey (avoid_reuse): the script's address is marked as spent from in the
   * address book (destdata "used"), which AddToWallet does for transactions it takes while
   * the avoid_reuse flag is set.
   */
  isUsedScript(script: Uint8Array): boolean {
    const address = encodeAddress(script, this.chainName);
    return address !== null && this.stored.usedAddresses.has(address);
  }

  /** Core's SetSpentKeyState for each input of a transaction joining or updated in the wallet, with avoid_reuse on. */
  #markSpentFromAddresses(tx: Transaction): void {
    if (!this.hasFlag(WALLET_FLAG.AVOID_REUSE) || tx.isCoinbase()) return;
    for (const input of tx.inputs) {
      const source = this.txs.get(hashToHex(input.prevout.txid));
      const output = source?.tx.outputs[input.prevout.vout];
      if (!output || !this.ownerOf(output.scriptPubKey)) continue;
      const address = encodeAddress(output.scriptPubKey, this.chainName);
      if (address === null || this.stored.usedAddresses.has(address)) continue;
      this.stored.usedAddresses.add(address);
      this.db.write(recordKeys.destData(address, 'used'), stringValue.encode('p'));
    }
  }

  /**
   * Core's CommitTransaction, before the broadcast: our own transaction joins the wallet
   * (inactive until the mempool takes it) with its comments, marked from us, its time
   * received its time; written at once, so a crash after this keeps it.
   */
  commitTransaction(tx: Transaction, mapValue: ReadonlyMap<string, string>, orderForm: readonly (readonly [string, string])[] = []): WalletTx {
    let wtx: WalletTx | undefined;
    this.db.transaction(() => {
      this.#markUsedScripts(tx);
      wtx = this.#addToWallet(tx, { kind: 'inactive', abandoned: false }, false, { mapValue, orderForm, fromMe: true, timeReceivedIsTxTime: 1 });
    });
    return wtx!;
  }

  /**
   * Core's AddWalletDescriptor (with AddActiveScriptPubKeyMan or DeactivateScriptPubKeyMan):
   * the descriptor, its private keys (encrypted when the wallet is), its label for a single
   * address and its active role, in one transaction; an existing descriptor may only widen
   * its range. The wallet's descriptors are then read again. Returns an error text or null.
   */
  importDescriptor(d: ImportedDescriptor): string | null {
    return this.importDescriptors([d])[0]!;
  }

  /** importDescriptor for several at once: their records written together, the wallet's descriptors read again once. */
  importDescriptors(list: readonly ImportedDescriptor[]): (string | null)[] {
    const masterKey = this.#masterKey;
    const results: (string | null)[] = [];
    const accepted: { d: ImportedDescriptor; idHex: string }[] = [];
    this.db.transaction(() => {
      for (const d of list) {
        const id = descriptorId(d.text);
        const idHex = toHex(id);
        const existing = this.spkms.get(idHex);
        if (existing) {
          const { rangeStart, rangeEnd } = existing.record;
          if (d.rangeStart > rangeStart || d.rangeEnd < rangeEnd) {
            results.push(`new range must include current range = [${rangeStart},${rangeEnd - 1}]`);
            continue;
          }
        }
        if (this.isEncrypted && d.keys.length > 0 && !masterKey) {
          results.push('Error: Please enter the wallet passphrase with walletpassphrase first.');
          continue;
        }
        this.db.write(recordKeys.walletDescriptor(id), walletDescriptorValue.encode({ descriptor: d.text, creationTime: BigInt(d.creationTime), nextIndex: d.nextIndex, rangeStart: d.rangeStart, rangeEnd: d.rangeEnd }));
        for (const key of d.keys) {
          const pubkey = getPublicKey(key.secret, key.compressed);
          if (masterKey) {
            this.db.write(recordKeys.descriptorCryptedKey(id, pubkey), cryptedKeyValue.encode(encryptSecret(masterKey, key.secret, pubkey)));
          } else {
            const der = encodePrivateKeyDer(key.secret, pubkey);
            this.db.write(recordKeys.descriptorKey(id, pubkey), descriptorKeyValue.encode({ privateKey: der, checksum: privateKeyChecksum(pubkey, der) }));
          }
        }
        if (d.outputType) {
          const roles = d.internal ? this.stored.activeInternal : this.stored.activeExternal;
          if (d.active) this.db.write(recordKeys.activeSpk(d.internal, d.outputType), uint256Value.encode(id));
          else if (roles.get(d.outputType) === idHex) this.db.erase(recordKeys.activeSpk(d.internal, d.outputType));
        }
        results.push(null);
        accepted.push({ d, idHex });
      }
    });
    if (accepted.length === 0) return results;
    this.reloadKeys();
    for (const { d, idHex } of accepted) {
      const spkm = this.spkms.get(idHex);
      // Core's AddWalletDescriptor tops the new descriptor up, active or not, and writes its cache.
      if (spkm && spkm.isRange() && this.#canTopUp(spkm)) {
        const from = spkm.record.rangeEnd;
        if (spkm.topUp(this.keypool)) this.#indexScripts(spkm, from);
      }
      if (spkm) this.db.transaction(() => this.#writeDescriptor(spkm));
      // A single address gets its label (Core's AddWalletDescriptor for an unranged descriptor).
      if (spkm && !d.isRange && d.label !== undefined) {
        for (const script of spkm.scriptsAt(0) ?? []) {
          const address = encodeAddress(script, this.chainName);
          if (address !== null) this.setAddressBook(address, d.label, 'receive');
        }
      }
    }
    return results;
  }

  /** Core's GetActiveHDPubKeys: the distinct root xpubs of the active descriptors. */
  activeHdRoots(): ExtPubKey[] {
    const roots = new Map<string, ExtPubKey>();
    for (const spkm of this.spkms.values()) {
      if (!this.isActive(spkm)) continue;
      for (const root of spkm.hdRoots()) roots.set(toHex(root.publicKey) + toHex(root.chainCode), root);
    }
    return [...roots.values()];
  }

  /**
   * createwalletdescriptor for one role: Core's GenerateWalletDescriptor over the root key and
   * SetupDescriptorScriptPubKeyMan (written, topped up, made active). Returns the public
   * descriptor, 'exists' when the wallet has it, 'no-key' when the root's private key is unknown.
   */
  createDescriptor(root: ExtPubKey, type: WalletOutputType, internal: boolean): string | 'exists' | 'no-key' {
    let secret: Uint8Array | undefined;
    for (const spkm of this.spkms.values()) secret ??= spkm.keys.get(root.publicKey)?.secret;
    if (!secret) return 'no-key';
    const master: ExtPrivKey = { ...root, privateKey: secret };
    const text = parseDescriptor(walletDescriptorText(master, type, internal, this.chainName), this.chainName).descriptors[0]!.toString();
    if (this.spkms.has(toHex(descriptorId(text)))) return 'exists';
    const encryptionKey = this.#masterKey;
    let id: Uint8Array | undefined;
    this.db.transaction(() => {
      id = writeWalletDescriptor(this.db, master, type, internal, { chain: this.chainName, creationTime: this.chain.now(), keypool: this.keypool }, this.isEncrypted ? encryptionKey : undefined);
    });
    this.reloadKeys();
    return this.spkms.get(toHex(id!))!.descriptorString(false)!;
  }

  /**
   * Core's RescanFromTime for an RPC (importdescriptors): the blocks from the first whose time
   * window reaches `time`, scanned as rescanBlocks scans them, then the mempool.
   */
  async rescanFromTime(time: number): Promise<{ aborted: boolean }> {
    const tip = this.chain.tip();
    let from = 0;
    while (from <= tip.height && this.chain.blockTimes(from).maxTime < time - TIMESTAMP_WINDOW) from++;
    if (from <= tip.height) {
      const { aborted } = await this.rescanBlocks(from, tip.height, true);
      if (aborted) return { aborted };
    }
    this.scanMempool();
    return { aborted: false };
  }

  /** Core's IsScanning (WalletRescanReserver): a second rescan is refused while one runs. */
  get isScanning(): boolean {
    return this.#rescan !== undefined;
  }

  /** getwalletinfo's scanning: seconds since the rescan began and the share of its blocks done. */
  get scanningProgress(): { duration: number; progress: number } | undefined {
    const scan = this.#rescan;
    if (!scan) return undefined;
    const span = scan.to - scan.from + 1;
    return { duration: Math.floor((Date.now() - scan.started) / 1000), progress: span > 0 ? (scan.height - scan.from) / span : 1 };
  }

  /** abortrescan: true when a rescan was running (it stops before its next block). */
  abortRescan(): boolean {
    if (!this.#rescan) return false;
    this.#rescan.abort = true;
    return true;
  }

  /**
   * ScanForWalletTransactions for an RPC's rescan over active heights [from, to]: block by
   * block as scanBlocks, but every few blocks it lets the node go on (blocks, other calls),
   * and abortrescan stops it. Callers check isScanning first.
   */
  async rescanBlocks(from: number, to: number, rescanningOldBlocks: boolean): Promise<{ aborted: boolean; lastScanned: number | undefined }> {
    if (this.#rescan) throw new Error('a rescan is already running');
    const scan = { started: Date.now(), from, to, height: from, abort: false };
    this.#rescan = scan;
    let lastScanned: number | undefined;
    let yielded = Date.now();
    try {
      for (let height = from; height <= to; height++) {
        if (scan.abort) {
          this.log(`Rescan aborted at block ${height}.`);
          return { aborted: true, lastScanned };
        }
        scan.height = height;
        if (this.#scanBlock(height, rescanningOldBlocks) === null) break;
        lastScanned = height;
        if (Date.now() - yielded >= RESCAN_SLICE_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          yielded = Date.now();
        }
      }
      return { aborted: false, lastScanned };
    } finally {
      this.#rescan = undefined;
    }
  }

  /** Core's ScanForWalletTransactions ends a scan to the tip with the mempool's transactions. */
  scanMempool(): void {
    for (const tx of this.chain.mempoolTransactions()) this.transactionAddedToMempool(tx);
  }

  /** Core's SetWalletFlag / UnsetWalletFlag: the flags record rewritten. */
  setFlag(flag: bigint, value: boolean): void {
    const flags = value ? this.stored.flags | flag : this.stored.flags & ~flag;
    this.db.write(recordKeys.flags(), uint64Value.encode(flags));
    this.stored.flags = flags;
  }

  /** importprunedfunds: a transaction paying us, confirmed where the proof says (Core's AddToWallet with TxStateConfirmed); false when it pays us nothing. */
  addPrunedTransaction(tx: Transaction, blockHash: Uint8Array, height: number, index: number): boolean {
    if (!tx.outputs.some((o) => this.isMine(o.scriptPubKey))) return false;
    this.db.transaction(() => {
      this.#addToWallet(tx, { kind: 'confirmed', blockHash, blockHeight: height, index }, false);
    });
    return true;
  }

  /** removeprunedfunds: Core's RemoveTxs; false when the wallet does not have it. */
  removeTransaction(txid: string): boolean {
    if (!this.txs.has(txid)) return false;
    this.db.transaction(() => this.db.erase(recordKeys.tx(hexToHash(txid))));
    this.txs.remove(txid);
    return true;
  }

  /** Core's MarkReplaced: the original says which transaction replaced it. */
  markReplaced(txid: string, replacement: string): void {
    const wtx = this.txs.get(txid);
    if (!wtx) return;
    wtx.mapValue.set('replaced_by_txid', replacement);
    if (wtx.state.kind === 'mempool' && !this.chain.isInMempool(txid)) wtx.state = { kind: 'inactive', abandoned: false };
    this.#writeTx(wtx);
  }

  // ---- locked coins ----

  isLockedCoin(txid: string, vout: number): boolean {
    const key = `${txid}:${vout}`;
    return this.stored.lockedCoins.has(key) || this.lockedInMemory.has(key);
  }

  lockCoin(txid: string, vout: number, persistent: boolean): void {
    const key = `${txid}:${vout}`;
    if (persistent) {
      this.db.write(recordKeys.lockedUtxo(hexToHash(txid), vout), LOCKED_UTXO_VALUE);
      this.stored.lockedCoins.add(key);
    } else {
      this.lockedInMemory.add(key);
    }
  }

  unlockCoin(txid: string, vout: number): void {
    const key = `${txid}:${vout}`;
    if (this.stored.lockedCoins.delete(key)) this.db.erase(recordKeys.lockedUtxo(hexToHash(txid), vout));
    this.lockedInMemory.delete(key);
  }

  unlockAllCoins(): void {
    this.db.transaction(() => {
      for (const key of this.stored.lockedCoins) {
        const [txid, vout] = key.split(':');
        this.db.erase(recordKeys.lockedUtxo(hexToHash(txid!), Number(vout)));
      }
    });
    this.stored.lockedCoins.clear();
    this.lockedInMemory.clear();
  }

  lockedCoins(): string[] {
    return [...new Set([...this.stored.lockedCoins, ...this.lockedInMemory])];
  }

  // ---- transactions ----

  /** Core's CachedTxGetDebit: the value of our outputs this transaction spends. */
  debit(tx: Transaction): bigint {
    if (tx.isCoinbase()) return 0n;
    let total = 0n;
    for (const input of tx.inputs) {
      const parent = this.txs.get(hashToHex(input.prevout.txid));
      const out = parent?.tx.outputs[input.prevout.vout];
      if (out && this.isMine(out.scriptPubKey)) total += out.value;
    }
    return total;
  }

  /** Core's IsFromMe. */
  isFromMe(wtx: WalletTx | Transaction): boolean {
    return this.debit('tx' in wtx ? wtx.tx : wtx) > 0n;
  }

  /** Core's IsMine for a transaction: an output pays us. */
  #paysMe(tx: Transaction): boolean {
    return tx.outputs.some((o) => this.isMine(o.scriptPubKey));
  }

  isTrusted(wtx: WalletTx, trustedParents?: Set<string>): boolean {
    return this.txs.isTrusted(wtx, (s) => this.isMine(s), (w) => this.isFromMe(w), true, trustedParents);
  }

  /** Core's GetTxTime. */
  txTime(wtx: WalletTx): number {
    return wtx.timeSmart || wtx.timeReceived;
  }

  #writeTx(wtx: WalletTx): void {
    const { blockHash, index } = serializedWalletTxState(wtx.state);
    this.db.write(
      recordKeys.tx(wtx.tx.txid),
      walletTxValue.encode({
        tx: wtx.tx,
        blockHash,
        index,
        mapValue: wtx.mapValue,
        orderForm: wtx.orderForm,
        timeReceivedIsTxTime: wtx.timeReceivedIsTxTime,
        timeReceived: wtx.timeReceived,
        fromMe: wtx.fromMe,
        orderPos: wtx.orderPos,
        timeSmart: wtx.timeSmart,
      }),
    );
  }

  #loadTransactions(): void {
    for (const [txid, record] of this.stored.transactions) {
      const state = walletTxStateOf(record.blockHash, record.index, (hash) => this.chain.activeHeightOf(hash));
      this.txs.add({
        tx: record.tx,
        txid,
        state,
        timeReceived: record.timeReceived,
        timeSmart: record.timeSmart,
        orderPos: record.orderPos,
        mapValue: new Map(record.mapValue),
        orderForm: record.orderForm,
        timeReceivedIsTxTime: record.timeReceivedIsTxTime,
        fromMe: record.fromMe,
        mempoolConflicts: new Set(),
      });
      if (record.orderPos >= this.#orderPosNext) this.#orderPosNext = record.orderPos + 1;
    }
    this.stored.transactions.clear();
  }

  /**
   * Core's AttachChain: blocks after the wallet's best block (from its locator's fork with
   * the active chain, skipping those older than the wallet's birth) are scanned, the best
   * block is written, then the mempool's transactions are offered.
   */
  #attachChain(): void {
    const tip = this.chain.tip();
    const locator = this.stored.bestBlock;
    let from = locator.length > 0 ? this.chain.forkHeight(locator) + 1 : tip.height + 1;
    if (locator.length > 0 && from === 0 && this.birthTime !== Number.MAX_SAFE_INTEGER) {
      // A wallet with nothing in common with this chain starts at its birth (Core's findFirstBlockWithTimeAndHeight).
      while (from <= tip.height && this.chain.blockTimes(from).maxTime < this.birthTime - TIMESTAMP_WINDOW) from++;
    }
    this.txs.tipHeight = from - 1;
    if (from <= tip.height) {
      this.log(`Rescanning last ${tip.height - from + 1} blocks (from block ${from})...`);
      this.scanBlocks(from, tip.height, true);
    }
    this.lastProcessed = { height: tip.height, hash: tip.hash };
    this.txs.tipHeight = tip.height;
    this.#writeBestBlock();
    for (const tx of this.chain.mempoolTransactions()) this.transactionAddedToMempool(tx);
  }

  /** Core's ScanForWalletTransactions over active-chain heights [from, to]. */
  scanBlocks(from: number, to: number, rescanningOldBlocks: boolean): { found: number } {
    let found = 0;
    for (let height = from; height <= to; height++) {
      const scanned = this.#scanBlock(height, rescanningOldBlocks);
      if (scanned === null) break;
      found += scanned;
    }
    return { found };
  }

  /** One active block's transactions synced (in one database transaction); how many the wallet took, or null when the height is no longer active. */
  #scanBlock(height: number, rescanningOldBlocks: boolean): number | null {
    const hash = this.chain.hashAt(height);
    if (!hash) return null;
    const block = this.chain.blockAt(height);
    let found = 0;
    this.db.transaction(() => {
      this.txs.tipHeight = Math.max(this.txs.tipHeight, height);
      block.transactions.forEach((tx, index) => {
        if (this.#syncTransaction(tx, { kind: 'confirmed', blockHash: hash, blockHeight: height, index }, rescanningOldBlocks)) found++;
      });
    });
    return found;
  }


  /**
   * Core's SubmitTxMemoryPoolAndRelay: a transaction of ours that is neither abandoned, a
   * coinbase nor in a block (or conflicted by one) is offered to the mempool, and to peers
   * unless `relay` is false. Not offered at all under -walletbroadcast=0.
   */
  async submitToMempool(wtx: WalletTx, maxFee: bigint, relay: boolean): Promise<{ readonly ok: true } | { readonly ok: false; readonly error: string }> {
    if (!this.broadcastTransactions || this.txs.isAbandoned(wtx) || wtx.tx.isCoinbase() || this.txs.depth(wtx) !== 0) return { ok: false, error: '' };
    this.log(`Submitting wtx ${wtx.txid} ${relay ? 'to mempool and for broadcast to peers' : 'to mempool without broadcast'}`);
    return this.chain.broadcast(wtx.tx, maxFee, relay);
  }

  /**
   * Core's ResubmitWalletTransactions: every unconfirmed transaction (neither abandoned nor
   * in or conflicted by a block) offered again in the wallet's order, so parents go before
   * children. Without `force` only those received at least five minutes before the last tip
   * update. At load it runs forced and without relay (MEMPOOL_NO_BROADCAST), so a restart,
   * or a crash between writing one and the pool taking it, loses none; the periodic resend
   * relays. Returns how many the pool took.
   */
  async resubmitWalletTransactions(maxFee: bigint, relay: boolean, force: boolean): Promise<number> {
    if (!this.broadcastTransactions) return 0;
    const due = this.txs.ordered().filter((wtx) => {
      const unconfirmed = wtx.state.kind === 'mempool' || (wtx.state.kind === 'inactive' && !wtx.state.abandoned);
      return unconfirmed && (force || wtx.timeReceived <= this.#bestBlockTime - RESEND_MIN_AGE);
    });
    let submitted = 0;
    for (const wtx of due) {
      const result = await this.submitToMempool(wtx, maxFee, relay);
      if (result.ok) submitted++;
    }
    if (submitted > 0) this.log(`ResubmitWalletTransactions: resubmit ${submitted} unconfirmed transactions`);
    return submitted;
  }

  /**
   * Core's MaybeResendWalletTxs for this wallet (run each minute by the node's scheduler):
   * once the resend time has come, and not while the chain is still syncing, the old
   * unconfirmed transactions are resubmitted and relayed; the next time is drawn again.
   */
  async maybeResend(maxFee: bigint): Promise<void> {
    if (!this.broadcastTransactions || this.chain.isInitialBlockDownload() || this.chain.now() < this.#nextResend) return;
    await this.resubmitWalletTransactions(maxFee, true, false);
    this.#nextResend = defaultNextResend(this.chain.now());
  }

  /** Core's blockConnected. */
  blockConnected(block: Block, height: number, hash: Uint8Array): void {
    this.lastProcessed = { height, hash };
    // Core's updatedBlockTip: the node's time, not the block's.
    this.#bestBlockTime = this.chain.now();
    this.txs.tipHeight = height;
    let updated = false;
    this.db.transaction(() => {
      if (this.chain.blockTimes(height).maxTime >= this.birthTime - TIMESTAMP_WINDOW * 2) {
        block.transactions.forEach((tx, index) => {
          updated = this.#syncTransaction(tx, { kind: 'confirmed', blockHash: hash, blockHeight: height, index }, false) || updated;
          this.transactionRemovedFromMempool(tx, 'block');
        });
      }
      if (updated || height % 144 === 0) this.#writeBestBlock();
    });
  }

  /** Core's blockDisconnected: the block's transactions become inactive (its coinbase abandoned), conflicts it caused are undone. */
  blockDisconnected(block: Block, height: number, prevHash: Uint8Array): void {
    this.db.transaction(() => {
      block.transactions.forEach((tx, index) => {
        this.#syncTransaction(tx, { kind: 'inactive', abandoned: index === 0 }, false);
        if (tx.isCoinbase()) return;
        for (const input of tx.inputs) {
          for (const spender of this.txs.spenders(hashToHex(input.prevout.txid), input.prevout.vout)) {
            const wtx = this.txs.get(spender);
            if (!wtx || wtx.state.kind !== 'conflicted') continue;
            const changed = this.txs.recursiveUpdate(spender, (w) => {
              if (w.state.kind !== 'conflicted' || w.state.conflictingBlockHeight < height) return false;
              w.state = { kind: 'inactive', abandoned: false };
              return true;
            });
            for (const w of changed) this.#writeTx(w);
          }
        }
      });
      this.lastProcessed = { height: height - 1, hash: prevHash };
      this.txs.tipHeight = height - 1;
      this.#bestBlockTime = this.chain.now();
      this.#writeBestBlock();
    });
  }

  /** Core's transactionAddedToMempool. */
  transactionAddedToMempool(tx: Transaction): void {
    this.db.transaction(() => this.#syncTransaction(tx, { kind: 'mempool' }, false));
    const txid = tx.txidHex;
    const wtx = this.txs.get(txid);
    if (wtx && wtx.state.kind === 'inactive' && !wtx.state.abandoned) wtx.state = { kind: 'mempool' };
    // Wallet transactions spending the same outputs are now conflicted in the pool.
    if (tx.isCoinbase()) return;
    for (const input of tx.inputs) {
      for (const spender of this.txs.spenders(hashToHex(input.prevout.txid), input.prevout.vout)) {
        if (spender !== txid) this.txs.get(spender)?.mempoolConflicts.add(txid);
      }
    }
  }

  /** Core's transactionRemovedFromMempool. */
  transactionRemovedFromMempool(tx: Transaction, reason: 'block' | 'conflict' | 'replaced' | 'expiry' | 'sizelimit' | 'reorg' | 'other'): void {
    const txid = tx.txidHex;
    const wtx = this.txs.get(txid);
    // Core's RefreshMempoolStatus.
    if (wtx && (wtx.state.kind === 'mempool' || (wtx.state.kind === 'inactive' && !wtx.state.abandoned))) {
      wtx.state = reason !== 'block' && this.chain.isInMempool(txid) ? { kind: 'mempool' } : { kind: 'inactive', abandoned: false };
    }
    if (reason === 'conflict') this.db.transaction(() => this.#syncTransaction(tx, { kind: 'inactive', abandoned: false }, false));
    if (tx.isCoinbase()) return;
    for (const input of tx.inputs) {
      for (const spender of this.txs.spenders(hashToHex(input.prevout.txid), input.prevout.vout)) this.txs.get(spender)?.mempoolConflicts.delete(txid);
    }
  }

  /** Core's SyncTransaction / AddToWalletIfInvolvingMe; true when the wallet took or changed it. */
  #syncTransaction(tx: Transaction, state: WalletTxState, rescanningOldBlock: boolean): boolean {
    const txid = tx.txidHex;
    if (state.kind === 'confirmed' && !tx.isCoinbase()) {
      for (const input of tx.inputs) {
        for (const spender of this.txs.spenders(hashToHex(input.prevout.txid), input.prevout.vout)) {
          if (spender !== txid) this.#markConflicted(state.blockHash, state.blockHeight, spender);
        }
      }
    }
    const existed = this.txs.has(txid);
    if (!existed && !this.#paysMe(tx) && !this.isFromMe(tx)) return false;
    this.#markUsedScripts(tx);
    this.#addToWallet(tx, state, rescanningOldBlock);
    return true;
  }

  /**
   * Core's MarkUnusedAddresses: a script at or past its descriptor's next position moves it
   * on (the gap limit), every script of ours tops its descriptor up, and the receiving
   * addresses passed over that have no address book entry get one (label "").
   */
  #markUsedScripts(tx: Transaction): void {
    for (const output of tx.outputs) {
      const owner = this.ownerOf(output.scriptPubKey);
      if (!owner) continue;
      const { spkm, index } = owner;
      const passed: number[] = [];
      if (spkm.isRange()) {
        for (let next = spkm.record.nextIndex; next <= index; next++) passed.push(next);
        if (passed.length > 0) spkm.record = { ...spkm.record, nextIndex: index + 1 };
      }
      const from = spkm.record.rangeEnd;
      const toppedUp = this.#canTopUp(spkm) && spkm.topUp(this.keypool);
      if (passed.length > 0 || toppedUp) {
        this.#writeDescriptor(spkm);
        this.#indexScripts(spkm, from);
      }
      if (this.isInternal(spkm) !== false) continue;
      for (const position of passed) {
        const address = spkm.addressAt(position);
        if (address === null || this.stored.labels.has(address)) continue;
        this.db.write(recordKeys.purpose(address), stringValue.encode('receive'));
        this.db.write(recordKeys.name(address), stringValue.encode(''));
        this.stored.purposes.set(address, 'receive');
        this.stored.labels.set(address, '');
      }
    }
  }

  /** Core's AddToWallet (for a transaction seen on the chain or in the pool). */
  #addToWallet(
    tx: Transaction,
    state: WalletTxState,
    rescanningOldBlock: boolean,
    own?: { mapValue: ReadonlyMap<string, string>; orderForm: readonly (readonly [string, string])[]; fromMe: boolean; timeReceivedIsTxTime: number },
  ): WalletTx {
    const txid = tx.txidHex;
    this.#markSpentFromAddresses(tx);
    const existing = this.txs.get(txid);
    if (existing) {
      if (!sameState(existing.state, state)) {
        existing.state = state;
        this.#writeTx(existing);
      }
      this.onTransactionChanged?.(existing);
      return existing;
    }
    const wtx: WalletTx = {
      tx,
      txid,
      state,
      timeReceived: this.chain.now(),
      timeSmart: 0,
      orderPos: this.#orderPosNext++,
      mapValue: new Map(own?.mapValue ?? []),
      orderForm: own?.orderForm ?? [],
      timeReceivedIsTxTime: own?.timeReceivedIsTxTime ?? 0,
      fromMe: own?.fromMe ?? false,
      mempoolConflicts: new Set(),
    };
    this.db.write(recordKeys.orderPosNext(), int64Value.encode(BigInt(this.#orderPosNext)));
    wtx.timeSmart = this.#computeTimeSmart(wtx, rescanningOldBlock);
    this.txs.add(wtx);
    this.#writeTx(wtx);
    this.onTransactionChanged?.(wtx);
    return wtx;
  }

  /** Core's ComputeTimeSmart. */
  #computeTimeSmart(wtx: WalletTx, rescanningOldBlock: boolean): number {
    const height = wtx.state.kind === 'confirmed' ? wtx.state.blockHeight : wtx.state.kind === 'conflicted' ? wtx.state.conflictingBlockHeight : undefined;
    if (height === undefined) return wtx.timeReceived;
    const { time, maxTime } = this.chain.blockTimes(height);
    if (rescanningOldBlock) return maxTime;
    let latestNow = wtx.timeReceived;
    let latestEntry = 0;
    const latestTolerated = latestNow + 300;
    const ordered = this.txs.ordered();
    for (let i = ordered.length - 1; i >= 0; i--) {
      const other = ordered[i]!;
      const smart = other.timeSmart || other.timeReceived;
      if (smart <= latestTolerated) {
        latestEntry = smart;
        if (smart > latestNow) latestNow = smart;
        break;
      }
    }
    return Math.max(latestEntry, Math.min(time, latestNow));
  }

  /** Core's MarkConflicted. */
  #markConflicted(blockHash: Uint8Array, conflictingHeight: number, txid: string): void {
    if (this.lastProcessed.height < 0 && this.txs.tipHeight < 0) return;
    const conflictConfirms = -(this.txs.tipHeight - conflictingHeight + 1);
    if (conflictConfirms >= 0) return;
    const changed = this.txs.recursiveUpdate(txid, (wtx) => {
      if (conflictConfirms < this.txs.depth(wtx)) {
        wtx.state = { kind: 'conflicted', conflictingBlockHash: blockHash, conflictingBlockHeight: conflictingHeight };
        return true;
      }
      return false;
    });
    for (const wtx of changed) this.#writeTx(wtx);
  }

  /** abandontransaction: Core's AbandonTransaction; false when it cannot be abandoned. */
  abandon(txid: string): boolean {
    const wtx = this.txs.get(txid);
    if (!wtx) return false;
    if (this.txs.depth(wtx) != 0 || wtx.state.kind === 'mempool') return false;
    this.db.transaction(() => {
      const changed = this.txs.recursiveUpdate(txid, (w) => {
        if (this.txs.depth(w) > 0) throw new Error("Can't abandon a transaction with a confirmed descendant");
        if (w.state.kind === 'mempool') throw new Error("Can't abandon a transaction in the mempool");
        if (this.txs.depth(w) === 0 && !this.txs.isAbandoned(w)) {
          w.state = { kind: 'inactive', abandoned: true };
          return true;
        }
        return false;
      });
      for (const w of changed) this.#writeTx(w);
    });
    return true;
  }

  #writeBestBlock(): void {
    this.db.write(recordKeys.bestBlockNoMerkle(), locatorValue.encode(this.chain.locator()));
  }

  /** Core's Flush/Close: the best block written, the timer stopped, the file closed. */
  close(): void {
    clearTimeout(this.#relockTimer);
    // A rescan in progress stops at its next block (its database is gone).
    if (this.#rescan) this.#rescan.abort = true;
    try {
      this.#writeBestBlock();
    } finally {
      this.db.close();
    }
  }

  /** getwalletinfo's lastprocessedblock. */
  lastProcessedBlock(): { hash: string; height: number } {
    return { hash: hashToHex(this.lastProcessed.hash), height: this.lastProcessed.height };
  }
}

function sameState(a: WalletTxState, b: WalletTxState): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'confirmed':
      return b.kind === 'confirmed' && a.blockHeight === b.blockHeight && a.index === b.index && toHex(a.blockHash) === toHex(b.blockHash);
    case 'conflicted':
      return b.kind === 'conflicted' && toHex(a.conflictingBlockHash) === toHex(b.conflictingBlockHash);
    case 'inactive':
      return b.kind === 'inactive' && a.abandoned === b.abandoned;
    case 'mempool':
      return true;
  }
}

/** A wallet operation refused, with what Core says. */
export class WalletError extends Error {
  constructor(
    readonly kind: 'NO_DESCRIPTOR' | 'LOCKED' | 'OTHER',
    message: string,
  ) {
    super(message);
    this.name = 'WalletError';
  }
}
