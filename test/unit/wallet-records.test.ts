/**
 * Wallet record codecs on records built here (the byte-for-byte checks against bitcoind's own
 * wallets are in test/integration/wallet-database-bitcoind.test.ts).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTransaction } from '../../src/primitives/index.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selectParams } from '../../src/consensus/index.js';
import {
  decodeXpubBytes,
  DescriptorSpkm,
  descriptorKeyValue,
  encodeXpubBytes,
  parseRecordKey,
  readStoredWallet,
  recordKeys,
  serializedWalletTxState,
  StoredWalletCorrupt,
  takeNewAddress,
  takeNewChangeAddress,
  uint256Value,
  WalletDatabase,
  walletDescriptorValue,
  walletTxStateOf,
  walletTxValue,
  writeNewDescriptorWallet,
  type WalletTxRecord,
} from '../../src/wallet/index.js';

// A one-input, one-output segwit transaction.
const TX = parseTransaction(
  Buffer.from(
    '02000000000101' + '11'.repeat(32) + '00000000' + '00' + 'fdffffff' + '01' + '40420f0000000000' + '16' + '0014' + '22'.repeat(20) + '01' + '21' + '03' + '33'.repeat(32) + '00000000',
    'hex',
  ),
);

test('a wallet transaction record keeps its map values, order form, order position and smart time', () => {
  const record: WalletTxRecord = {
    tx: TX,
    blockHash: new Uint8Array(32).fill(7),
    index: 3,
    mapValue: new Map([['comment', 'rent'], ['to', 'landlord'], ['replaced_by_txid', 'ab'.repeat(32)]]),
    orderForm: [['Message', 'hello'], ['PaymentRequest', 'x']],
    timeReceivedIsTxTime: 1,
    timeReceived: 1_790_000_000,
    fromMe: false,
    orderPos: 42,
    timeSmart: 1_790_000_123,
  };
  const bytes = walletTxValue.encode(record);
  const back = walletTxValue.decode(bytes);
  assert.deepEqual(back.mapValue, record.mapValue);
  assert.deepEqual(back.orderForm, record.orderForm);
  assert.deepEqual([back.orderPos, back.timeSmart, back.index, back.timeReceived, back.timeReceivedIsTxTime], [42, 1_790_000_123, 3, 1_790_000_000, 1]);
  assert.deepEqual(walletTxValue.encode(back), bytes);
  // mapValue is written in std::map's bytewise key order, with "fromaccount" always and "n"/"timesmart" from the fields.
  const text = Buffer.from(bytes).toString('latin1');
  const order = ['comment', 'fromaccount', 'n', 'replaced_by_txid', 'timesmart', 'to'].map((k) => text.indexOf(`${String.fromCharCode(k.length)}${k}`));
  assert.deepEqual([...order].sort((a, b) => a - b), order);
  assert.ok(order.every((at) => at > 0));
  // No order position and no smart time: neither key is written.
  const plain = walletTxValue.decode(walletTxValue.encode({ ...record, orderPos: -1, timeSmart: 0 }));
  assert.deepEqual([plain.orderPos, plain.timeSmart], [-1, 0]);
  assert.throws(() => walletTxValue.decode(Uint8Array.from([...bytes, 0])));
});

test('wallet transaction states: serialized as Core does and read back', () => {
  const block = new Uint8Array(32).fill(9);
  const heightOf = (h: Uint8Array) => (h[0] === 9 ? 120 : undefined);
  const states = [
    { kind: 'confirmed', blockHash: block, blockHeight: 120, index: 5 },
    { kind: 'conflicted', conflictingBlockHash: block, conflictingBlockHeight: 120 },
    { kind: 'inactive', abandoned: true },
    { kind: 'inactive', abandoned: false },
  ] as const;
  for (const state of states) {
    const { blockHash, index } = serializedWalletTxState(state);
    assert.deepEqual(walletTxStateOf(blockHash, index, heightOf), state);
  }
  // A transaction in the pool is stored as inactive (the pool is scanned again on loading).
  const pooled = serializedWalletTxState({ kind: 'mempool' });
  assert.deepEqual(walletTxStateOf(pooled.blockHash, pooled.index, heightOf), { kind: 'inactive', abandoned: false });
  // A block the chain does not know leaves it unrecognized, which is inactive.
  assert.deepEqual(walletTxStateOf(new Uint8Array(32).fill(5), 2, heightOf), { kind: 'inactive', abandoned: false });
});

test('record keys parse back to what built them; descriptors keep their range', () => {
  const id = new Uint8Array(32).fill(0xab);
  assert.deepEqual(parseRecordKey(recordKeys.descriptorCache(id, 0, 17)), { type: 'walletdescriptorcache', id, keyIndex: 0, derivationIndex: 17 });
  assert.deepEqual(parseRecordKey(recordKeys.descriptorCache(id, 1)), { type: 'walletdescriptorcache', id, keyIndex: 1 });
  assert.deepEqual(parseRecordKey(recordKeys.activeSpk(true, 'bech32m')), { type: 'activeinternalspk', outputType: 'bech32m' });
  assert.deepEqual(parseRecordKey(recordKeys.lockedUtxo(id, 7)), { type: 'lockedutxo', txid: id, vout: 7 });
  assert.deepEqual(parseRecordKey(recordKeys.name('bcrt1q…')), { type: 'name', address: 'bcrt1q…' });
  assert.equal(parseRecordKey(Uint8Array.of(0x05, 0x61)), null);
  assert.deepEqual(parseRecordKey(Uint8Array.of(0x03, 0x61, 0x62, 0x63, 0x01)), { type: 'other', name: 'abc', rest: Uint8Array.of(1) });
  const xpub = { depth: 3, parentFingerprint: Uint8Array.of(1, 2, 3, 4), childNumber: 0x80000000, chainCode: new Uint8Array(32).fill(5), publicKey: new Uint8Array(33).fill(2) };
  const xpubBytes = encodeXpubBytes(xpub);
  assert.equal(xpubBytes.length, 74);
  assert.deepEqual(decodeXpubBytes(xpubBytes), xpub);
  const d = { descriptor: 'wpkh(tpub.../0/*)#abcdefgh', creationTime: 1_790_000_000n, nextIndex: 3, rangeStart: 0, rangeEnd: 1000 };
  assert.deepEqual(walletDescriptorValue.decode(walletDescriptorValue.encode(d)), d);
});

test('records that refer to a descriptor the wallet does not have, or do not parse, make the wallet corrupt', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsbtcd-stored-'));
  try {
    const db = WalletDatabase.open(dir, { messageStart: selectParams('regtest').messageStart });
    const id = new Uint8Array(32).fill(1);
    db.write(recordKeys.walletDescriptor(id), walletDescriptorValue.encode({ descriptor: 'raw(51)#8lvh9jxk', creationTime: 0n, nextIndex: 0, rangeStart: 0, rangeEnd: 0 }));
    db.write(recordKeys.activeSpk(false, 'bech32'), uint256Value.encode(id));
    db.write(recordKeys.name('x'), Uint8Array.of(1, 0x41));
    db.write(Uint8Array.of(3, 0x61, 0x62, 0x63), Uint8Array.of(0));
    const wallet = readStoredWallet(db);
    assert.equal(wallet.activeExternal.get('bech32'), '01'.repeat(32));
    assert.equal(wallet.labels.get('x'), 'A');
    assert.deepEqual([...wallet.unknown], [['abc', 1]]);
    db.write(recordKeys.descriptorKey(new Uint8Array(32).fill(2), new Uint8Array(33).fill(2)), descriptorKeyValue.encode({ privateKey: new Uint8Array(214), checksum: new Uint8Array(32) }));
    assert.throws(() => readStoredWallet(db), (err: unknown) => err instanceof StoredWalletCorrupt && /refers to descriptor 0202/.test((err as Error).message));
    db.erasePrefix(recordKeys.descriptorKey(new Uint8Array(32).fill(2), new Uint8Array(33).fill(2)).subarray(0, 20));
    db.write(recordKeys.name('y'), Uint8Array.of(5, 0x41));
    assert.throws(() => readStoredWallet(db), (err: unknown) => err instanceof StoredWalletCorrupt && /unreadable name record/.test((err as Error).message));
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('handing out addresses moves a descriptor on as Core\'s GetNewDestination does, and the file keeps it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsbtcd-newaddr-'));
  try {
    let db = WalletDatabase.open(dir, { messageStart: selectParams('regtest').messageStart });
    writeNewDescriptorWallet(db, { chain: 'regtest', creationTime: 1_790_000_000, tipLocator: [new Uint8Array(32)], seed: new Uint8Array(32).fill(7), keypool: 10 });
    let wallet = readStoredWallet(db);
    const spkmOf = (w: typeof wallet, id: string) => new DescriptorSpkm(w.descriptors.get(id)!, 'regtest');
    const receiving = spkmOf(wallet, wallet.activeExternal.get('bech32')!);
    const first = receiving.addressAt(0);
    assert.equal(takeNewAddress(db, receiving, 'a', 10), first);
    assert.deepEqual([receiving.record.nextIndex, receiving.record.rangeEnd], [1, 10]);
    const second = takeNewAddress(db, receiving, 'b', 10);
    assert.equal(second, receiving.addressAt(1));
    // Topped up to keypool positions past the next one before each is taken.
    assert.deepEqual([receiving.record.nextIndex, receiving.record.rangeEnd], [2, 11]);
    const change = spkmOf(wallet, wallet.activeInternal.get('bech32')!);
    assert.equal(takeNewChangeAddress(db, change, 10), change.addressAt(0));
    db.close();
    // Reopened: the state, the labels and purposes are in the file; change has no address book entry.
    db = WalletDatabase.open(dir, { messageStart: selectParams('regtest').messageStart });
    wallet = readStoredWallet(db);
    const again = spkmOf(wallet, wallet.activeExternal.get('bech32')!);
    assert.deepEqual([again.record.nextIndex, again.record.rangeEnd], [2, 11]);
    assert.deepEqual([wallet.labels.get(first!), wallet.labels.get(second), wallet.purposes.get(second)], ['a', 'b', 'receive']);
    assert.equal(wallet.labels.size, 2);
    assert.equal(spkmOf(wallet, wallet.activeInternal.get('bech32')!).record.nextIndex, 1);
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
