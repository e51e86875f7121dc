/**
 * Wallet files between bitcoind v31.0 and tsbtcd's wallet database: a wallet bitcoind made
 * is locked against us while bitcoind has it loaded, opens here (Core's checks pass) once it
 * is unloaded, shows Core's records, takes a label record written here that bitcoind then
 * reports, and a backup made here loads in bitcoind as a wallet of its own.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { selectParams } from '../../src/consensus/index.js';
import { ByteReader, hash160, parseBlock, serializeTransaction, toHex } from '../../src/primitives/index.js';
import * as noble from '@noble/secp256k1';
import { decodeBase58Check } from '../../src/script/index.js';
import {
  changeWalletPassphrase,
  cryptedKeyValue,
  decodePrivateKeyDer,
  decryptMasterKey,
  decodeXpubBytes,
  DescriptorSpkm,
  openWalletDatabaseAt,
  decryptSecret,
  descriptorId,
  encodePrivateKeyDer,
  encryptWalletFile,
  privateKeyChecksumMatches,
  descriptorKeyValue,
  int32Value,
  int64Value,
  locatorValue,
  masterKeyValue,
  parseRecordKey,
  readStoredWallet,
  readString,
  restoreWalletFile,
  RECORD,
  recordKey,
  recordKeys,
  serializeString,
  splitRecordKey,
  stringValue,
  takeNewAddress,
  takeNewChangeAddress,
  uint256Value,
  uint64Value,
  WalletDatabase,
  WalletDatabaseError,
  walletDatabaseFile,
  WalletEncryptionError,
  WalletFileError,
  walletPathForCreate,
  walletPathForLoad,
  walletDescriptorValue,
  walletScripts,
  WalletChainScan,
  walletTxValue,
  writeNewDescriptorWallet,
  xpubValue,
  type ParsedRecordKey,
} from '../../src/wallet/index.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon } from './daemon-harness.js';

const reference = referenceBitcoind();
const REGTEST = selectParams('regtest').messageStart;

/** bitcoind's error for a call (code and message), or undefined when it succeeds. */
async function coreErrorOf(core: BitcoindProcess, method: string, params: unknown[]): Promise<{ code: number; message: string } | undefined> {
  try {
    await core.call(method, params);
  } catch (err) {
    return { code: (err as { code: number }).code, message: (err as Error).message.replace(/^\w+: error -?\d+: /, '') };
  }
  return undefined;
}

/** The WalletFileError `run` throws (code and message), or undefined when it succeeds. */
function walletFileErrorOf(run: () => unknown): { code: number; message: string } | undefined {
  try {
    run();
  } catch (err) {
    if (err instanceof WalletFileError) return { code: err.code, message: err.message };
    throw err;
  }
  return undefined;
}

/** The key rebuilt from what was parsed out of it. */
function rebuiltKey(k: ParsedRecordKey): Uint8Array | undefined {
  switch (k.type) {
    case 'version':
      return recordKeys.version();
    case 'minversion':
      return recordKeys.minVersion();
    case 'flags':
      return recordKeys.flags();
    case 'bestblock':
      return recordKeys.bestBlock();
    case 'bestblock_nomerkle':
      return recordKeys.bestBlockNoMerkle();
    case 'orderposnext':
      return recordKeys.orderPosNext();
    case 'name':
      return recordKeys.name(k.address);
    case 'purpose':
      return recordKeys.purpose(k.address);
    case 'mkey':
      return recordKeys.masterKey(k.id);
    case 'tx':
      return recordKeys.tx(k.txid);
    case 'lockedutxo':
      return recordKeys.lockedUtxo(k.txid, k.vout);
    case 'activeexternalspk':
    case 'activeinternalspk':
      return recordKeys.activeSpk(k.type === 'activeinternalspk', k.outputType);
    case 'walletdescriptor':
      return recordKeys.walletDescriptor(k.id);
    case 'walletdescriptorkey':
      return recordKeys.descriptorKey(k.id, k.pubkey);
    case 'walletdescriptorckey':
      return recordKeys.descriptorCryptedKey(k.id, k.pubkey);
    case 'walletdescriptorcache':
      return recordKeys.descriptorCache(k.id, k.keyIndex, k.derivationIndex);
    case 'walletdescriptorlhcache':
      return recordKeys.descriptorLastHardenedCache(k.id, k.keyIndex);
    default:
      return undefined;
  }
}

/** The value decoded and encoded again, for the kinds with a value codec. */
function rebuiltValue(type: string, value: Uint8Array): Uint8Array | undefined {
  const codecs: Record<string, { decode(b: Uint8Array): any; encode(v: any): Uint8Array }> = {
    version: int32Value,
    minversion: int32Value,
    flags: uint64Value,
    orderposnext: int64Value,
    bestblock: locatorValue,
    bestblock_nomerkle: locatorValue,
    name: stringValue,
    purpose: stringValue,
    mkey: masterKeyValue,
    activeexternalspk: uint256Value,
    activeinternalspk: uint256Value,
    walletdescriptor: walletDescriptorValue,
    walletdescriptorkey: descriptorKeyValue,
    walletdescriptorckey: cryptedKeyValue,
    walletdescriptorcache: xpubValue,
    walletdescriptorlhcache: xpubValue,
    tx: walletTxValue,
  };
  const codec = codecs[type];
  return codec && codec.encode(codec.decode(value));
}

/** Every record of a database parsed and rebuilt byte for byte; the count of each kind. */
function roundTrip(db: WalletDatabase): Map<string, number> {
  const kinds = new Map<string, number>();
  for (const [key, value] of db.entries()) {
    const parsed = parseRecordKey(key);
    assert.ok(parsed && parsed.type !== 'other', `unknown record ${Buffer.from(key).toString('hex')}`);
    assert.deepEqual(rebuiltKey(parsed), key, parsed.type);
    assert.deepEqual(rebuiltValue(parsed.type, value), value, parsed.type);
    kinds.set(parsed.type, (kinds.get(parsed.type) ?? 0) + 1);
  }
  return kinds;
}

test('a bitcoind wallet: locked while loaded, then opened, read and extended here, and loaded back by bitcoind', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-fallbackfee=0.0002']);
  try {
    await core.call('createwallet', ['w']);
    const w = (method: string, params: unknown[] = []): Promise<any> => core.rpc.call(method, params, 30_000, '/wallet/w');
    const labeled: string = await w('getnewaddress', ['from-core', 'bech32']);
    const unlabeled: string = await w('getnewaddress', ['', 'bech32m']);
    const walletDir = join(core.datadir, 'regtest', 'wallets', 'w');
    // Coins and a payment: confirmed coinbases, one transaction in the pool.
    await core.call('generatetoaddress', [101, labeled]);
    const paid: string = await w('sendtoaddress', [unlabeled, 1.5]);
    const walletTxs = new Map<string, any>();
    for (const entry of await w('listtransactions', ['*', 1000])) walletTxs.set(entry.txid, await w('gettransaction', [entry.txid]));
    assert.ok(walletTxs.has(paid) && walletTxs.size === 102);
    const listed = (await w('listdescriptors')).descriptors;
    const privateDescriptors = (await w('listdescriptors', [true])).descriptors;
    const nextAddresses = new Map<string, string>();
    const takenHere: string[] = [];
    let nextChange = '';
    let stateHere: unknown[] = [];

    // bitcoind holds the file's lock while the wallet is loaded.
    assert.throws(
      () => WalletDatabase.open(walletDir, { messageStart: REGTEST }),
      (err: unknown) => err instanceof WalletDatabaseError && /Unable to obtain an exclusive lock on the database, is it being used by another instance of Bitcoin Core\?/.test(err.message),
    );
    await core.call('unloadwallet', ['w']);

    const db = WalletDatabase.open(walletDir, { messageStart: REGTEST });
    try {
      const types = new Map<string, number>();
      for (const [key] of db.entries()) {
        const type = splitRecordKey(key)!.type;
        types.set(type, (types.get(type) ?? 0) + 1);
      }
      // A default descriptor wallet: four output types, each with a receive and a change descriptor.
      assert.equal(types.get(RECORD.WALLETDESCRIPTOR), 8);
      assert.equal(types.get(RECORD.ACTIVEEXTERNALSPK), 4);
      assert.equal(types.get(RECORD.ACTIVEINTERNALSPK), 4);
      for (const type of [RECORD.VERSION, RECORD.FLAGS, RECORD.WALLETDESCRIPTORKEY, RECORD.WALLETDESCRIPTORCACHE, RECORD.NAME, RECORD.PURPOSE]) {
        assert.ok(types.has(type), `${type} in ${JSON.stringify([...types])}`);
      }
      // Every record parses and writes back byte for byte.
      assert.deepEqual(roundTrip(db), types);
      // The descriptors listdescriptors showed before the unload. Core keeps each with its root
      // tpub and the whole path (tpub/84h/1h/0h/0/*), and lists it from the account's cached
      // tpub with the path as its origin ([fingerprint/84h/1h/0h]tpub/0/*); the range is kept
      // with an exclusive end and listed with an inclusive one.
      const storedRecords = db.entriesWithPrefix(recordKey(RECORD.WALLETDESCRIPTOR));
      const stored = storedRecords.map(([, v]) => walletDescriptorValue.decode(v));
      // Each is keyed by its DescriptorID.
      for (const [key, value] of storedRecords) assert.deepEqual(descriptorId(walletDescriptorValue.decode(value).descriptor), (parseRecordKey(key) as { id: Uint8Array }).id);
      const storedForm = (d: string) => {
        const m = /^(.*)(tpub[1-9A-HJ-NP-Za-km-z]+)((?:\/\d+h)+)\/([01])\/\*(.*)#[a-z0-9]{8}$/.exec(d)!;
        const root = decodeBase58Check(m[2]!, 78)!;
        return { shape: `${m[1]}KEY${m[5]}`, fingerprint: Buffer.from(hash160(root.subarray(45, 78)).subarray(0, 4)).toString('hex'), path: `${m[3]}/${m[4]}/*` };
      };
      const listedForm = (d: string) => {
        const m = /^(.*)\[([0-9a-f]{8})((?:\/\d+h)+)\]tpub[1-9A-HJ-NP-Za-km-z]+\/([01])\/\*(.*)#[a-z0-9]{8}$/.exec(d)!;
        return { shape: `${m[1]}KEY${m[5]}`, fingerprint: m[2], path: `${m[3]}/${m[4]}/*` };
      };
      const byPath = (a: { path: string; shape: string }, b: { path: string; shape: string }) => (a.shape + a.path).localeCompare(b.shape + b.path);
      assert.deepEqual(
        stored.map((d) => ({ ...storedForm(d.descriptor), timestamp: Number(d.creationTime), range: [d.rangeStart, d.rangeEnd - 1], next_index: d.nextIndex })).sort(byPath),
        listed.map((d: any) => ({ ...listedForm(d.desc), timestamp: d.timestamp, range: d.range, next_index: d.next_index })).sort(byPath),
      );
      // Each descriptor's private key: the DER secret belongs to the record's public key, writes
      // back to the same DER, passes its checksum, and is the key of the tprv bitcoind lists.
      const listedPrivate = new Set(
        privateDescriptors.map((d: any) => {
          const tprv = /tprv[1-9A-HJ-NP-Za-km-z]+/.exec(d.desc)![0];
          return Buffer.from(decodeBase58Check(tprv, 78)!.subarray(46, 78)).toString('hex');
        }),
      );
      const keyRecords = db.entriesWithPrefix(recordKey(RECORD.WALLETDESCRIPTORKEY));
      assert.equal(keyRecords.length, 8);
      for (const [key, value] of keyRecords) {
        const parsed = parseRecordKey(key) as { pubkey: Uint8Array };
        const record = descriptorKeyValue.decode(value);
        const secret = decodePrivateKeyDer(record.privateKey)!;
        assert.deepEqual(noble.getPublicKey(secret, parsed.pubkey.length === 33), parsed.pubkey);
        assert.deepEqual(encodePrivateKeyDer(secret, parsed.pubkey), record.privateKey);
        assert.equal(record.privateKey.length, 214);
        assert.ok(privateKeyChecksumMatches(parsed.pubkey, record.privateKey, record.checksum));
        assert.ok(listedPrivate.has(Buffer.from(secret).toString('hex')));
      }
      // Every wallet transaction: the transaction, where it stands and when it arrived, as gettransaction told.
      const txRecords = db.entriesWithPrefix(recordKey(RECORD.TX));
      assert.equal(txRecords.length, walletTxs.size);
      for (const [key, value] of txRecords) {
        const { txid } = parseRecordKey(key) as { txid: Uint8Array };
        const record = walletTxValue.decode(value);
        assert.deepEqual(walletTxValue.encode(record), value);
        const told = walletTxs.get(Buffer.from(txid).reverse().toString('hex'));
        assert.equal(toHex(serializeTransaction(record.tx, true)), told.hex);
        assert.equal(record.timeReceived, told.timereceived);
        if (told.confirmations > 0) {
          assert.equal(Buffer.from(record.blockHash).reverse().toString('hex'), told.blockhash);
          assert.equal(record.index, told.blockindex);
        } else {
          assert.deepEqual([...record.blockHash], new Array(32).fill(0));
          assert.equal(record.index, 0);
        }
        assert.ok(record.orderPos >= 0);
      }
      // Gathered as Core's LoadWallet reads them.
      const wallet = readStoredWallet(db);
      assert.deepEqual([wallet.version, wallet.flags], [310000, (1n << 34n) | (1n << 2n)]);
      assert.equal(wallet.descriptors.size, 8);
      assert.deepEqual([...wallet.activeExternal.keys()].sort(), ['bech32', 'bech32m', 'legacy', 'p2sh-segwit']);
      assert.deepEqual([...wallet.activeInternal.keys()].sort(), ['bech32', 'bech32m', 'legacy', 'p2sh-segwit']);
      assert.equal(wallet.transactions.size, walletTxs.size);
      assert.ok(wallet.transactions.has(paid));
      assert.equal(wallet.labels.get(labeled), 'from-core');
      assert.equal(wallet.purposes.get(labeled), 'receive');
      assert.equal(wallet.unknown.size, 0);
      const listedAccountKeys = new Set(listed.map((d: any) => Buffer.from(decodeBase58Check(/\](tpub[1-9A-HJ-NP-Za-km-z]+)/.exec(d.desc)![1]!, 78)!.subarray(45, 78)).toString('hex')));
      for (const descriptor of wallet.descriptors.values()) {
        assert.equal(descriptor.keys.size, 1);
        // The account's xpub (last hardened step) is the one listdescriptors prints.
        const account = decodeXpubBytes(descriptor.lastHardenedXpubs.get(0)!);
        assert.equal(account.depth, 3);
        assert.ok(listedAccountKeys.has(Buffer.from(account.publicKey).toString('hex')));
        assert.equal(decodeXpubBytes(descriptor.parentXpubs.get(0)!).depth, 4);
      }
      // Put to work: listdescriptors as bitcoind printed it (public and private), and the
      // address each active receiving descriptor gives next.
      const spkms = [...wallet.descriptors.values()].map((d) => new DescriptorSpkm(d, 'regtest'));
      const activeRole = (spkm: DescriptorSpkm): { internal: boolean } | undefined => {
        const id = Buffer.from(spkm.stored.id).toString('hex');
        if ([...wallet.activeExternal.values()].includes(id)) return { internal: false };
        if ([...wallet.activeInternal.values()].includes(id)) return { internal: true };
        return undefined;
      };
      const entries = (withPrivateKeys: boolean) => spkms.map((spkm) => spkm.listEntry(withPrivateKeys, activeRole(spkm))!).sort((a, b) => (a.desc < b.desc ? -1 : a.desc > b.desc ? 1 : 0));
      assert.equal(JSON.stringify(entries(false)), JSON.stringify(listed));
      assert.equal(JSON.stringify(entries(true)), JSON.stringify(privateDescriptors));
      for (const [type, id] of wallet.activeExternal) {
        const spkm = spkms.find((m) => Buffer.from(m.stored.id).toString('hex') === id)!;
        nextAddresses.set(type, spkm.addressAt(spkm.stored.record.nextIndex)!);
      }
      // Addresses handed out here: two receiving (labelled) and one change; bitcoind must go on after them.
      const bech32 = spkms.find((m) => Buffer.from(m.stored.id).toString('hex') === wallet.activeExternal.get('bech32'))!;
      takenHere.push(takeNewAddress(db, bech32, 'taken-here'), takeNewAddress(db, bech32, 'taken-here'));
      assert.equal(takenHere[0], nextAddresses.get('bech32'));
      nextAddresses.set('bech32', bech32.addressAt(bech32.record.nextIndex)!);
      const change = spkms.find((m) => Buffer.from(m.stored.id).toString('hex') === wallet.activeInternal.get('bech32m'))!;
      const changeTaken = takeNewChangeAddress(db, change);
      nextChange = change.addressAt(change.record.nextIndex)!;
      assert.notEqual(changeTaken, nextChange);
      // Loading tops every descriptor up again (Core's LoadWallet), so bitcoind will list them topped up.
      stateHere = [bech32, change].map((spkm) => {
        spkm.topUp(1000);
        return spkm.listEntry(false, activeRole(spkm))!;
      });
      // The label bitcoind wrote, in Core's NAME record.
      const name = db.read(recordKey(RECORD.NAME, serializeString(labeled)));
      assert.ok(name);
      assert.equal(readString(new ByteReader(name)), 'from-core');
      // A label written here, with its purpose, as Core's SetAddressBook writes them.
      assert.equal(db.write(recordKey(RECORD.NAME, serializeString(unlabeled)), serializeString('from-tsbtcd')), true);
      assert.equal(db.write(recordKey(RECORD.PURPOSE, serializeString(unlabeled)), serializeString('receive')), true);
      // A copy of the whole wallet, made while open.
      assert.equal(db.backup(walletDatabaseFile(join(core.datadir, 'regtest', 'wallets', 'copy'))), false);
    } finally {
      db.close();
    }

    await core.call('loadwallet', ['w']);
    assert.deepEqual(await w('getaddressesbylabel', ['from-tsbtcd']), { [unlabeled]: { purpose: 'receive' } });
    assert.deepEqual((await w('listlabels')).sort(), ['from-core', 'from-tsbtcd', 'taken-here']);
    // What was handed out here is bitcoind's too: the labels, the descriptors' state, and the next addresses.
    assert.deepEqual(await w('getaddressesbylabel', ['taken-here']), Object.fromEntries(takenHere.map((a) => [a, { purpose: 'receive' }])));
    const nowListed = (await w('listdescriptors')).descriptors;
    for (const entry of stateHere as { desc: string }[]) assert.deepEqual(nowListed.find((d: any) => d.desc === entry.desc), entry);
    // The next address of each type is the one derived here.
    for (const [type, address] of nextAddresses) assert.equal(await w('getnewaddress', ['', type]), address, type);
    assert.equal(await w('getrawchangeaddress', ['bech32m']), nextChange);
    await core.call('unloadwallet', ['w']);

    // A backup made here (into a directory made for it) is a wallet bitcoind loads.
    const reopened = WalletDatabase.open(walletDir, { messageStart: REGTEST });
    const copyDir = join(core.datadir, 'regtest', 'wallets', 'copy');
    mkdirSync(copyDir);
    try {
      assert.equal(reopened.backup(walletDatabaseFile(copyDir)), true);
    } finally {
      reopened.close();
    }
    await core.call('loadwallet', ['copy']);
    const copy = (method: string, params: unknown[] = []): Promise<any> => core.rpc.call(method, params, 30_000, '/wallet/copy');
    assert.equal((await copy('getwalletinfo')).walletname, 'copy');
    assert.deepEqual(await copy('getaddressesbylabel', ['from-core']), { [labeled]: { purpose: 'receive' } });
    assert.deepEqual(await copy('getaddressesbylabel', ['from-tsbtcd']), { [unlabeled]: { purpose: 'receive' } });
  } finally {
    await core.stop();
  }
});

test('an encrypted bitcoind wallet: its master key and encrypted descriptor keys read and write back byte for byte', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0']);
  try {
    await core.call('createwallet', ['enc', false, false, 'a passphrase']);
    await core.call('unloadwallet', ['enc']);
    let unlockedPrivate: string[] = [];
    let lockedPublic: string[] = [];
    let lockedFirst: string[] = [];
    const db = WalletDatabase.open(join(core.datadir, 'regtest', 'wallets', 'enc'), { messageStart: REGTEST });
    try {
      const kinds = roundTrip(db);
      assert.equal(kinds.get('mkey'), 1);
      const wallet = readStoredWallet(db);
      assert.deepEqual([...wallet.masterKeys.keys()], [1]);
      for (const descriptor of wallet.descriptors.values()) assert.deepEqual([descriptor.keys.size, descriptor.cryptedKeys.size], [0, 1]);
      assert.equal(kinds.get('walletdescriptorkey'), undefined);
      assert.equal(kinds.get('walletdescriptorckey'), 8);
      const [[, value]] = db.entriesWithPrefix(recordKey(RECORD.MASTER_KEY)) as [[Uint8Array, Uint8Array]];
      const master = masterKeyValue.decode(value);
      // Core's CMasterKey: a 32-byte key encrypted to 48 bytes, an 8-byte salt, EVP_sha512, iterations timed to 100 ms (at least 25,000).
      assert.equal(master.cryptedKey.length, 48);
      assert.equal(master.salt.length, 8);
      assert.equal(master.derivationMethod, 0);
      assert.ok(master.deriveIterations >= 25_000, String(master.deriveIterations));
      // The passphrase opens the master key, and the master key each descriptor's private key.
      assert.equal(decryptMasterKey(master, new TextEncoder().encode('another passphrase')), null);
      const masterKey = decryptMasterKey(master, new TextEncoder().encode('a passphrase'))!;
      assert.equal(masterKey.length, 32);
      for (const [key, value] of db.entriesWithPrefix(recordKey(RECORD.WALLETDESCRIPTORCKEY))) {
        const { pubkey } = parseRecordKey(key) as { pubkey: Uint8Array };
        const crypted = cryptedKeyValue.decode(value);
        assert.equal(crypted.length, 48);
        const secret = decryptSecret(masterKey, crypted, pubkey)!;
        assert.deepEqual(noble.getPublicKey(secret, true), pubkey);
      }
      // Locked, the public descriptors and addresses come from the xpub caches, as in Core.
      const spkms = [...wallet.descriptors.values()].map((d) => new DescriptorSpkm(d, 'regtest'));
      lockedPublic = spkms.map((spkm) => spkm.descriptorString(false)!).sort();
      lockedFirst = spkms.map((spkm) => spkm.addressAt(0)!);
      // Unlocked, the descriptors print with their private keys as bitcoind prints them once unlocked.
      assert.ok(spkms.every((spkm) => !spkm.hasPrivateKeys && !spkm.unlock(new Uint8Array(32)) && spkm.unlock(masterKey) && spkm.hasPrivateKeys));
      unlockedPrivate = spkms.map((spkm) => spkm.descriptorString(true)!).sort();
    } finally {
      db.close();
    }
    await core.call('loadwallet', ['enc']);
    const enc = (method: string, params: unknown[] = []): Promise<any> => core.rpc.call(method, params, 30_000, '/wallet/enc');
    assert.deepEqual(lockedPublic, (await enc('listdescriptors')).descriptors.map((d: any) => d.desc).sort());
    // Position 0 of every descriptor, derived from the caches alone, is what bitcoind hands out first.
    const handedOut = [];
    for (const type of ['legacy', 'p2sh-segwit', 'bech32', 'bech32m']) handedOut.push(await enc('getnewaddress', ['', type]), await enc('getrawchangeaddress', [type]));
    assert.deepEqual([...handedOut].sort(), [...lockedFirst].sort());
    await core.rpc.call('walletpassphrase', ['a passphrase', 60], 30_000, '/wallet/enc');
    const listed = (await core.rpc.call<any>('listdescriptors', [true], 30_000, '/wallet/enc')).descriptors.map((d: any) => d.desc).sort();
    assert.deepEqual(unlockedPrivate, listed);
  } finally {
    await core.stop();
  }
});

test('a wallet made here loads in bitcoind: same descriptors, the addresses derived here, and coins it can spend', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-fallbackfee=0.0002']);
  try {
    await core.call('generatetoaddress', [3, 'bcrt1qft5p2uhsdcdc3l2ua4ap5qqfg4pjaqlp250x7us7a8qqhrxrxfsqseac85']);
    // A locator ends at the genesis block, which is how Core tells a wallet's chain.
    const locator: Uint8Array[] = [];
    for (let height = 3; height >= 0; height--) locator.push(Buffer.from(await core.call<string>('getblockhash', [height]), 'hex').reverse());
    const dir = join(core.datadir, 'regtest', 'wallets', 'made-here');
    const db = WalletDatabase.open(dir, { messageStart: REGTEST });
    let spkms: DescriptorSpkm[];
    let active: ReturnType<typeof readStoredWallet>;
    try {
      writeNewDescriptorWallet(db, { chain: 'regtest', creationTime: Math.floor(Date.now() / 1000), tipLocator: locator });
      active = readStoredWallet(db);
      spkms = [...active.descriptors.values()].map((d) => new DescriptorSpkm(d, 'regtest'));
    } finally {
      db.close();
    }
    await core.call('createwallet', ['made-by-core']);
    await core.call('loadwallet', ['made-here']);
    const ours = (method: string, params: unknown[] = []): Promise<any> => core.rpc.call(method, params, 30_000, '/wallet/made-here');
    const theirs = (method: string, params: unknown[] = []): Promise<any> => core.rpc.call(method, params, 30_000, '/wallet/made-by-core');
    // The wallet's shape is that of one bitcoind made.
    const info = await ours('getwalletinfo');
    const reference_ = await theirs('getwalletinfo');
    for (const field of ['walletversion', 'format', 'keypoolsize', 'keypoolsize_hd_internal', 'private_keys_enabled', 'avoid_reuse', 'descriptors', 'external_signer', 'blank', 'txcount']) {
      assert.deepEqual(info[field], reference_[field], field);
    }
    const role = (spkm: DescriptorSpkm) => {
      const id = Buffer.from(spkm.stored.id).toString('hex');
      return [...active.activeExternal.values()].includes(id) ? { internal: false } : { internal: true };
    };
    const expected = spkms.map((spkm) => spkm.listEntry(true, role(spkm))!).sort((a, b) => (a.desc < b.desc ? -1 : 1));
    assert.equal(JSON.stringify((await ours('listdescriptors', [true])).descriptors), JSON.stringify(expected));
    // getnewaddress hands out position 0 of each receiving descriptor, as derived here.
    for (const [type, id] of active.activeExternal) {
      const spkm = spkms.find((m) => Buffer.from(m.stored.id).toString('hex') === id)!;
      assert.equal(await ours('getnewaddress', ['', type]), spkm.addressAt(0), type);
    }
    // Coins paid to it are its own, and bitcoind signs with the keys written here.
    const mine: string = await ours('getnewaddress', ['', 'bech32m']);
    await core.call('generatetoaddress', [101, mine]);
    const paid: string = await ours('sendtoaddress', [await theirs('getnewaddress'), 2]);
    assert.equal((await ours('gettransaction', [paid])).amount, -2);
    await core.call('generatetoaddress', [1, mine]);
    assert.equal((await theirs('getbalances')).mine.trusted, 2);
  } finally {
    await core.stop();
  }
});

test('listwalletdir: tsbtcd pointed at bitcoind\'s wallet directory lists what bitcoind lists, in its order', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0']);
  let node: Daemon | undefined;
  try {
    for (const name of ['alpha', 'beta', 'sub/dir', 'zeta']) await core.call('createwallet', [name]);
    const walletDir = join(core.datadir, 'regtest', 'wallets');
    // A legacy (Berkeley DB) wallet in a directory and one as a top-level file; a backup and a stray file, neither a wallet.
    const bdb = Buffer.alloc(8192);
    bdb.writeUInt32LE(0x00053162, 12);
    mkdirSync(join(walletDir, 'legacy'));
    writeFileSync(join(walletDir, 'legacy', 'wallet.dat'), bdb);
    writeFileSync(join(walletDir, 'old.dat'), bdb);
    writeFileSync(join(walletDir, 'old.bak'), bdb);
    writeFileSync(join(walletDir, 'notes.txt'), 'not a wallet');
    mkdirSync(join(walletDir, 'empty'));
    const expected = await core.call('listwalletdir');
    assert.equal(expected.wallets.length, 6);
    node = await Daemon.start({ args: [`-walletdir=${walletDir}`] });
    assert.deepEqual(await node.call('listwalletdir'), expected);
    // Another network's wallets are not listed.
    const otherNet = Daemon.start({ chain: 'main', args: [`-walletdir=${walletDir}`, '-networkactive=0', '-connect=0'] });
    const main = await otherNet;
    try {
      assert.deepEqual((await main.call('listwalletdir')).wallets.map((w: any) => w.name).sort(), ['legacy', 'old.dat']);
    } finally {
      await main.cleanup();
    }
  } finally {
    await node?.cleanup();
    await core.stop();
  }
});

test('an encrypted wallet made here: bitcoind unlocks it with the passphrase and spends from it', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-fallbackfee=0.0002']);
  try {
    const dir = join(core.datadir, 'regtest', 'wallets', 'locked-here');
    const db = WalletDatabase.open(dir, { messageStart: REGTEST });
    let privateHere: string[];
    try {
      writeNewDescriptorWallet(db, { chain: 'regtest', creationTime: Math.floor(Date.now() / 1000), tipLocator: [Buffer.from(await core.call<string>('getblockhash', [0]), 'hex').reverse()], passphrase: new TextEncoder().encode('open sesame') });
      const stored = readStoredWallet(db);
      const [master] = [...stored.masterKeys.values()];
      assert.ok(master && master.deriveIterations >= 25_000);
      const key = decryptMasterKey(master, new TextEncoder().encode('open sesame'))!;
      const spkms = [...stored.descriptors.values()].map((d) => new DescriptorSpkm(d, 'regtest'));
      assert.ok(spkms.every((spkm) => !spkm.hasPrivateKeys && spkm.unlock(key)));
      privateHere = spkms.map((spkm) => spkm.descriptorString(true)!).sort();
      // No private key is in the file in the clear.
      assert.equal(db.entriesWithPrefix(recordKey(RECORD.WALLETDESCRIPTORKEY)).length, 0);
    } finally {
      db.close();
    }
    await core.call('loadwallet', ['locked-here']);
    const w = (method: string, params: unknown[] = []): Promise<any> => core.rpc.call(method, params, 30_000, '/wallet/locked-here');
    assert.equal((await w('getwalletinfo')).unlocked_until, 0);
    const address: string = await w('getnewaddress');
    await core.call('generatetoaddress', [101, address]);
    await assert.rejects(w('sendtoaddress', [address, 1]), /walletpassphrase/);
    await assert.rejects(w('walletpassphrase', ['wrong', 10]), /passphrase entered was incorrect/);
    await w('walletpassphrase', ['open sesame', 60]);
    assert.deepEqual((await w('listdescriptors', [true])).descriptors.map((d: any) => d.desc).sort(), privateHere);
    assert.match(await w('sendtoaddress', [address, 1]), /^[0-9a-f]{64}$/);
  } finally {
    await core.stop();
  }
});

test('scanning the chain with a bitcoind wallet\'s descriptors finds its transactions, coins and balances', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-fallbackfee=0.0002']);
  try {
    await core.call('createwallet', ['scan']);
    const w = (method: string, params: unknown[] = []): Promise<any> => core.rpc.call(method, params, 30_000, '/wallet/scan');
    const OTHER = 'bcrt1qft5p2uhsdcdc3l2ua4ap5qqfg4pjaqlp250x7us7a8qqhrxrxfsqseac85';
    await core.call('generatetoaddress', [5, OTHER]);
    await core.call('generatetoaddress', [110, await w('getnewaddress', ['', 'bech32'])]);
    await w('sendtoaddress', [await w('getnewaddress', ['', 'bech32m']), 3]);
    await w('sendtoaddress', [await w('getnewaddress', ['', 'legacy']), 1.25]);
    await w('sendtoaddress', [OTHER, 2]);
    await core.call('generatetoaddress', [1, OTHER]);
    const balances = (await w('getbalances')).mine;
    const unspent = (await w('listunspent')).map((u: any) => `${u.txid}:${u.vout} ${u.amount}`).sort();
    const txids = new Set<string>((await w('listtransactions', ['*', 10_000])).map((e: any) => e.txid));
    const tip = await core.call<number>('getblockcount');
    const blocks = [];
    for (let height = 0; height <= tip; height++) blocks.push(parseBlock(Buffer.from(await core.call<string>('getblock', [await core.call<string>('getblockhash', [height]), 0]), 'hex')));
    await core.call('unloadwallet', ['scan']);

    const db = WalletDatabase.open(join(core.datadir, 'regtest', 'wallets', 'scan'), { messageStart: REGTEST });
    try {
      const stored = readStoredWallet(db);
      const spkms = [...stored.descriptors.values()].map((d) => new DescriptorSpkm(d, 'regtest'));
      const scripts = walletScripts(spkms);
      // One script for every position of every range (ranges grew past 1,000 with the addresses handed out).
      assert.equal(scripts.size, spkms.reduce((n, m) => n + m.record.rangeEnd - m.record.rangeStart, 0));
      assert.ok(scripts.size > 8000);
      const scan = new WalletChainScan((script) => scripts.has(Buffer.from(script).toString('hex')));
      blocks.forEach((block, height) => scan.connectBlock(block, height));
      assert.deepEqual(new Set(scan.transactions.keys()), txids);
      // Exactly the transactions the wallet file holds, too.
      assert.deepEqual(new Set(stored.transactions.keys()), txids);
      const amount = (sats: bigint) => Number(sats) / 1e8;
      assert.deepEqual(scan.coins().filter((c) => !scan.isImmature(c)).map((c) => `${c.txid}:${c.vout} ${amount(c.value)}`).sort(), unspent);
      const ours = scan.balances();
      assert.deepEqual([amount(ours.trusted), amount(ours.immature)], [balances.trusted, balances.immature]);
    } finally {
      db.close();
    }
  } finally {
    await core.stop();
  }
});

test('encryptwallet and walletpassphrasechange done here on a bitcoind wallet: bitcoind unlocks it, with the shape its own encryptwallet gives', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-fallbackfee=0.0002']);
  try {
    const walletDir = (name: string) => join(core.datadir, 'regtest', 'wallets', name);
    const on = (name: string) => (method: string, params: unknown[] = []): Promise<any> => core.rpc.call(method, params, 30_000, `/wallet/${name}`);
    // The reference: bitcoind encrypting a wallet of its own.
    await core.call('createwallet', ['by-core']);
    await on('by-core')('encryptwallet', ['pass one']);
    const coreShape = (await on('by-core')('listdescriptors')).descriptors.map((d: any) => [d.active, d.internal ?? null]).sort();
    // The same done here to a wallet bitcoind made and used.
    await core.call('createwallet', ['here']);
    const here = on('here');
    const used: string = await here('getnewaddress');
    await core.call('generatetoaddress', [101, used]);
    const plainSecrets: Buffer[] = [];
    await core.call('unloadwallet', ['here']);
    let db = WalletDatabase.open(walletDir('here'), { messageStart: REGTEST });
    try {
      for (const descriptor of readStoredWallet(db).descriptors.values()) for (const key of descriptor.keys.values()) plainSecrets.push(Buffer.from(decodePrivateKeyDer(key.privateKey)!));
      encryptWalletFile(db, new TextEncoder().encode('pass one'), { chain: 'regtest', creationTime: Math.floor(Date.now() / 1000) });
      assert.throws(() => encryptWalletFile(db, new TextEncoder().encode('again'), { chain: 'regtest', creationTime: 0 }), WalletEncryptionError);
      assert.equal(changeWalletPassphrase(db, new TextEncoder().encode('wrong'), new TextEncoder().encode('pass two')), false);
      assert.equal(changeWalletPassphrase(db, new TextEncoder().encode('pass one'), new TextEncoder().encode('pass two')), true);
    } finally {
      db.close();
    }
    // Rewritten: no old key is anywhere in the file in the clear.
    const file = readFileSync(walletDatabaseFile(walletDir('here')));
    for (const secret of plainSecrets) assert.equal(file.indexOf(secret), -1);
    await core.call('loadwallet', ['here']);
    assert.equal((await here('getwalletinfo')).unlocked_until, 0);
    assert.deepEqual((await here('listdescriptors')).descriptors.map((d: any) => [d.active, d.internal ?? null]).sort(), coreShape);
    await assert.rejects(here('walletpassphrase', ['pass one', 10]), /passphrase entered was incorrect/);
    await here('walletpassphrase', ['pass two', 60]);
    // The coins mined before are still the wallet's and spendable; new addresses come from the new seed.
    assert.match(await here('sendtoaddress', [used, 1]), /^[0-9a-f]{64}$/);
    const fresh: string = await here('getnewaddress');
    assert.notEqual(fresh, used);
    assert.equal((await here('getaddressinfo', [fresh])).ismine, true);
  } finally {
    await core.stop();
  }
});

test('wallet names: creating and loading fail here with bitcoind\'s texts and codes, case by case', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0']);
  try {
    const walletDir = join(core.datadir, 'regtest', 'wallets');
    await core.call('createwallet', ['loaded']);
    await core.call('createwallet', ['unloaded']);
    await core.call('unloadwallet', ['unloaded']);
    mkdirSync(join(walletDir, 'emptydir'));
    mkdirSync(join(walletDir, 'junk'));
    writeFileSync(join(walletDir, 'junk', 'wallet.dat'), Buffer.alloc(8192));
    const bdb = Buffer.alloc(8192);
    bdb.writeUInt32LE(0x00053162, 12);
    writeFileSync(join(walletDir, 'old.dat'), bdb);
    const coreError = (method: string, name: string) => coreErrorOf(core, method, [name]);
    const ours = walletFileErrorOf;
    for (const name of ['missing', 'emptydir', 'junk', 'old.dat']) {
      assert.deepEqual(ours(() => walletPathForLoad(walletDir, name, REGTEST)), await coreError('loadwallet', name), name);
    }
    // A wallet bitcoind holds is locked: opening it here fails as a second bitcoind's loadwallet does.
    assert.deepEqual(ours(() => openWalletDatabaseAt(walletPathForLoad(walletDir, 'loaded', REGTEST), REGTEST)), {
      code: -4,
      message: 'Wallet file verification failed. SQLiteDatabase: Unable to obtain an exclusive lock on the database, is it being used by another instance of Bitcoin Core?\n',
    });
    for (const name of ['', 'unloaded']) {
      assert.deepEqual(ours(() => walletPathForCreate(walletDir, name, REGTEST)), await coreError('createwallet', name), name);
    }
    // What bitcoind accepts is accepted here too: a new name, an empty directory, an absolute path.
    assert.equal(walletPathForCreate(walletDir, 'emptydir', REGTEST), join(walletDir, 'emptydir'));
    assert.equal(walletPathForCreate(walletDir, join(core.datadir, 'elsewhere'), REGTEST), join(core.datadir, 'elsewhere'));
    assert.equal(await coreError('createwallet', 'emptydir'), undefined);
    const unloaded = openWalletDatabaseAt(walletPathForLoad(walletDir, 'unloaded', REGTEST), REGTEST);
    unloaded.close();
  } finally {
    await core.stop();
  }
});

test('createwallet\'s options made here (disable_private_keys, blank, avoid_reuse) load in bitcoind as its own do', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0']);
  try {
    const variants: [string, Partial<{ disablePrivateKeys: boolean; blank: boolean; avoidReuse: boolean }>, unknown[]][] = [
      ['nokeys', { disablePrivateKeys: true }, [true, false]],
      ['blank', { blank: true }, [false, true]],
      ['reuse', { avoidReuse: true }, [false, false, '', true]],
    ];
    const shape = (info: any) => [info.flags, info.keypoolsize, info.keypoolsize_hd_internal, info.private_keys_enabled, info.blank, info.avoid_reuse, info.descriptors];
    for (const [name, options, coreArgs] of variants) {
      await core.call('createwallet', [`${name}-core`, ...coreArgs]);
      const db = WalletDatabase.open(join(core.datadir, 'regtest', 'wallets', `${name}-here`), { messageStart: REGTEST });
      try {
        writeNewDescriptorWallet(db, { chain: 'regtest', creationTime: Math.floor(Date.now() / 1000), tipLocator: [Buffer.from(await core.call<string>('getblockhash', [0]), 'hex').reverse()], ...options });
      } finally {
        db.close();
      }
      await core.call('loadwallet', [`${name}-here`]);
      const info = (wallet: string): Promise<any> => core.rpc.call('getwalletinfo', [], 30_000, `/wallet/${wallet}`);
      assert.deepEqual(shape(await info(`${name}-here`)), shape(await info(`${name}-core`)), name);
    }
  } finally {
    await core.stop();
  }
});

test('restorewallet\'s file work done here: bitcoind\'s refusals case by case, and a restore bitcoind then loads', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const core = await BitcoindProcess.start(reference.path, ['-connect=0']);
  try {
    const walletDir = join(core.datadir, 'regtest', 'wallets');
    await core.call('createwallet', ['source']);
    const backup = join(core.datadir, 'source-backup.dat');
    await core.rpc.call('backupwallet', [backup], 30_000, '/wallet/source');
    writeFileSync(join(walletDir, 'a-file'), 'not a directory');
    const junk = join(core.datadir, 'junk.dat');
    writeFileSync(junk, Buffer.alloc(100));
    const coreError = (name: string, file: string) => coreErrorOf(core, 'restorewallet', [name, file]);
    const ours = (name: string, file: string) => walletFileErrorOf(() => restoreWalletFile(walletDir, name, file, REGTEST));
    const cases: [string, string][] = [['', backup], ['x', join(core.datadir, 'missing.dat')], ['source', backup], ['a-file', backup]];
    for (const [name, file] of cases) assert.deepEqual(ours(name, file), await coreError(name, file), `${name} ${file}`);
    // Not a wallet: refused after the copy, which is removed again with the directory made for it.
    assert.deepEqual(ours('junk-here', junk), { code: -18, message: `Wallet file verification failed. Failed to load database path '${join(walletDir, 'junk-here')}'. Data is not in recognized format.` });
    assert.deepEqual(await coreError('junk-core', junk), { code: -18, message: `Wallet file verification failed. Failed to load database path '${join(walletDir, 'junk-core')}'. Data is not in recognized format.` });
    assert.equal(existsSync(join(walletDir, 'junk-here')), existsSync(join(walletDir, 'junk-core')));
    // A restore made here is a wallet bitcoind loads, with the source's descriptors.
    assert.equal(ours('restored-here', backup), undefined);
    await core.call('loadwallet', ['restored-here']);
    const descs = async (wallet: string) => (await core.rpc.call<any>('listdescriptors', [], 30_000, `/wallet/${wallet}`)).descriptors.map((d: any) => d.desc);
    assert.deepEqual(await descs('restored-here'), await descs('source'));
  } finally {
    await core.stop();
  }
});
