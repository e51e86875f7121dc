/**
 * The wallet database on real SQLite files (the addon over Debian's libsqlite3): Core's file
 * layout and pragmas, reads and writes, prefix ranges, transactions, the exclusive lock, the
 * checks a wallet file must pass, and backups.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { selectParams } from '../../src/consensus/index.js';
import {
  isSqliteWalletFile,
  recordKey,
  serializeString,
  splitRecordKey,
  SqliteDatabase,
  sqliteVersion,
  WalletDatabase,
  WalletDatabaseError,
  walletDatabaseFile,
} from '../../src/wallet/index.js';

const REGTEST = selectParams('regtest').messageStart;
const MAIN = selectParams('main').messageStart;
const root = mkdtempSync(join(tmpdir(), 'tsbtcd-walletdb-'));
let counter = 0;
const freshDir = (): string => join(root, `w${++counter}`);
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

after(() => rmSync(root, { recursive: true, force: true }));

/** A pragma's value read through a plain connection (after the wallet's is closed). */
function pragma(file: string, name: string): unknown {
  const db = SqliteDatabase.open(file, { create: false });
  try {
    const statement = db.prepare(`PRAGMA ${name}`);
    return statement.get()?.[0];
  } finally {
    db.close();
  }
}

test('a new wallet database is Core\'s: wallet.dat with table main, the network magic as application id, schema version 0', () => {
  assert.match(sqliteVersion(), /^3\.\d+\.\d+$/);
  const dir = freshDir();
  const db = WalletDatabase.open(dir, { messageStart: REGTEST });
  assert.equal(db.file, join(dir, 'wallet.dat'));
  db.close();
  assert.equal(pragma(walletDatabaseFile(dir), 'application_id'), 0xfabfb5da | 0);
  assert.equal(pragma(walletDatabaseFile(dir), 'user_version'), 0);
  const check = SqliteDatabase.open(walletDatabaseFile(dir), { create: false });
  const schema = check.prepare("SELECT sql FROM sqlite_master WHERE type='table'").all();
  check.close();
  assert.deepEqual(schema, [['CREATE TABLE main(key BLOB PRIMARY KEY NOT NULL, value BLOB NOT NULL)']]);
  assert.equal(isSqliteWalletFile(walletDatabaseFile(dir), REGTEST), true);
  assert.equal(isSqliteWalletFile(walletDatabaseFile(dir), MAIN), false);
});

test('records: write (with and without overwrite), read, has, erase, prefix ranges and prefix erasure', () => {
  const db = WalletDatabase.open(freshDir(), { messageStart: REGTEST });
  try {
    const key = recordKey('name', serializeString('bcrt1qexample'));
    assert.equal(db.read(key), undefined);
    assert.equal(db.has(key), false);
    assert.equal(db.write(key, serializeString('first')), true);
    assert.equal(db.write(key, serializeString('second'), false), false);
    assert.deepEqual(db.read(key), serializeString('first'));
    assert.equal(db.write(key, serializeString('third')), true);
    assert.deepEqual(db.read(key), serializeString('third'));
    assert.deepEqual(splitRecordKey(key), { type: 'name', rest: serializeString('bcrt1qexample') });
    // An empty value is a blob, not NULL (the table refuses NULL).
    const empty = recordKey('flags');
    assert.equal(db.write(empty, new Uint8Array(0)), true);
    assert.deepEqual(db.read(empty), new Uint8Array(0));
    // Prefixes, including one ending in 0xff (whose range end carries) and one of only 0xff.
    const keys = [Uint8Array.of(1, 0xff), Uint8Array.of(1, 0xff, 0), Uint8Array.of(2, 1), Uint8Array.of(0xff, 0xff), Uint8Array.of(0xff, 0xff, 7)];
    for (const [i, k] of keys.entries()) db.write(k, Uint8Array.of(i));
    assert.deepEqual(db.entriesWithPrefix(Uint8Array.of(1, 0xff)).map(([k]) => [...k]), [[1, 0xff], [1, 0xff, 0]]);
    assert.deepEqual(db.entriesWithPrefix(Uint8Array.of(0xff, 0xff)).map(([k]) => [...k]), [[0xff, 0xff], [0xff, 0xff, 7]]);
    assert.deepEqual(db.entriesWithPrefix(recordKey('name')).map(([k]) => k), [key]);
    db.erasePrefix(Uint8Array.of(1));
    assert.equal(db.has(keys[0]!), false);
    assert.equal(db.has(keys[1]!), false);
    assert.equal(db.has(keys[2]!), true);
    db.erase(key);
    assert.equal(db.read(key), undefined);
    assert.equal(db.entries().length, 4);
  } finally {
    db.close();
  }
});

test('a transaction keeps all of its writes, or none when it throws; and survives reopening', () => {
  const dir = freshDir();
  let db = WalletDatabase.open(dir, { messageStart: REGTEST });
  db.transaction(() => {
    db.write(bytes('a'), bytes('1'));
    db.write(bytes('b'), bytes('2'));
  });
  assert.throws(
    () =>
      db.transaction(() => {
        db.write(bytes('c'), bytes('3'));
        db.erase(bytes('a'));
        throw new Error('abandoned');
      }),
    /abandoned/,
  );
  assert.throws(() => db.transaction(() => db.transaction(() => undefined)), /already open/);
  db.close();
  db = WalletDatabase.open(dir, { messageStart: REGTEST });
  assert.deepEqual(
    db.entries().map(([k, v]) => [Buffer.from(k).toString(), Buffer.from(v).toString()]),
    [['a', '1'], ['b', '2']],
  );
  db.close();
});

test('the file is locked while open: a second opening gets Core\'s error, and succeeds once the first closes', () => {
  const dir = freshDir();
  const first = WalletDatabase.open(dir, { messageStart: REGTEST });
  assert.throws(
    () => WalletDatabase.open(dir, { messageStart: REGTEST }),
    (err: unknown) =>
      err instanceof WalletDatabaseError &&
      err.status === 'FAILED_LOAD' &&
      err.message === 'SQLiteDatabase: Unable to obtain an exclusive lock on the database, is it being used by another instance of Bitcoin Core?\n',
  );
  first.close();
  WalletDatabase.open(dir, { messageStart: REGTEST }).close();
});

test('verification: another network\'s wallet, an unknown schema version, and skipping the checks', () => {
  const dir = freshDir();
  WalletDatabase.open(dir, { messageStart: MAIN }).close();
  assert.throws(
    () => WalletDatabase.open(dir, { messageStart: REGTEST }),
    (err: unknown) => err instanceof WalletDatabaseError && err.status === 'FAILED_VERIFY' && err.message === `SQLiteDatabase: Unexpected application id. Expected ${0xfabfb5da}, got ${0xf9beb4d9}`,
  );
  WalletDatabase.open(dir, { messageStart: REGTEST, verify: false }).close();
  const raw = SqliteDatabase.open(walletDatabaseFile(dir), { create: false });
  raw.exec('PRAGMA user_version = 7');
  raw.close();
  assert.throws(
    () => WalletDatabase.open(dir, { messageStart: MAIN }),
    (err: unknown) => err instanceof WalletDatabaseError && err.message === 'SQLiteDatabase: Unknown sqlite wallet schema version 7. Only version 0 is supported',
  );
  // Not a database at all.
  const junk = freshDir();
  WalletDatabase.open(junk, { messageStart: REGTEST }).close();
  writeFileSync(walletDatabaseFile(junk), Buffer.alloc(4096, 0x42));
  assert.equal(isSqliteWalletFile(walletDatabaseFile(junk), REGTEST), false);
  assert.throws(() => WalletDatabase.open(junk, { messageStart: REGTEST }), (err: unknown) => err instanceof WalletDatabaseError && err.status === 'FAILED_LOAD');
});

test('a backup is a complete copy that opens as a wallet database of its own', () => {
  const db = WalletDatabase.open(freshDir(), { messageStart: REGTEST });
  for (let i = 0; i < 500; i++) db.write(recordKey('tx', Uint8Array.of(i >> 8, i & 0xff)), new Uint8Array(300).fill(i & 0xff));
  const copyDir = freshDir();
  assert.equal(db.backup(walletDatabaseFile(copyDir)), false); // no directory to put it in
  mkdirSync(copyDir);
  assert.equal(db.backup(walletDatabaseFile(copyDir)), true);
  const copy = WalletDatabase.open(copyDir, { messageStart: REGTEST });
  assert.deepEqual(copy.entries(), db.entries());
  copy.close();
  assert.equal(db.rewrite(), true);
  assert.equal(db.entries().length, 500);
  db.close();
});
