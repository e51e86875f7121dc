/**
 * Package shapes (Core's IsWellFormedPackage, IsChildWithParents, IsChildWithParentsTree),
 * the TRUC rules (SingleTRUCChecks, PackageTRUCChecks) and ephemeral dust spends
 * (CheckEphemeralSpends) on hand-built transactions and pools, with Core's strings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ephemeralSpendsFailure,
  isChildWithParents,
  isChildWithParentsTree,
  packageFormError,
  packageTrucChecks,
  singleTrucChecks,
  TxMempool,
  type MempoolEntry,
} from '../../src/mempool/index.js';
import { Transaction, type OutPoint } from '../../src/primitives/index.js';

/** A P2WPKH-shaped output script (22 bytes) and the 3000 sat/kvB dust relay rate. */
const SCRIPT = Uint8Array.of(0x00, 0x14, ...new Uint8Array(20).fill(7));
const DUST_RELAY_FEE = 3000n;
let nextFunding = 1;

function fundingOutpoint(): OutPoint {
  const txid = new Uint8Array(32);
  txid[0] = nextFunding & 0xff;
  txid[1] = nextFunding++ >> 8;
  return { txid, vout: 0 };
}

function makeTx(version: number, prevouts: readonly OutPoint[], outputs: readonly bigint[] = [10_000n], padding = 0): Transaction {
  return new Transaction({
    version,
    inputs: prevouts.map((prevout) => ({ prevout, scriptSig: new Uint8Array(padding), sequence: 0xfffffffd, witness: [] })),
    outputs: outputs.map((value) => ({ value, scriptPubKey: SCRIPT })),
    locktime: 0,
  });
}

const out = (tx: Transaction, vout = 0): OutPoint => ({ txid: tx.txid, vout });

function entryOf(pool: TxMempool, tx: Transaction): MempoolEntry {
  return {
    tx,
    txid: tx.txidHex,
    fee: 1_000n,
    modifiedFee: 1_000n,
    vsize: tx.vsize,
    adjustedWeight: tx.weight,
    sigOpCost: 0,
    time: 0,
    height: 100,
    sequence: pool.sequence,
    spentOutputs: [],
    spendsCoinbase: false,
    unbroadcast: false,
    parents: pool.parentsOf(tx.inputs.map((i) => i.prevout)),
    children: new Set(),
  };
}

function pooled(pool: TxMempool, tx: Transaction): MempoolEntry {
  const entry = entryOf(pool, tx);
  pool.add(entry);
  return entry;
}

test('packageFormError: count, weight, duplicates, order and conflicts in Core’s order', () => {
  const a = makeTx(2, [fundingOutpoint()]);
  const b = makeTx(2, [out(a)]);
  assert.equal(packageFormError([a, b]), null);
  assert.equal(packageFormError(Array.from({ length: 26 }, () => makeTx(2, [fundingOutpoint()]))), 'package-too-many-transactions');
  const heavy = makeTx(2, [fundingOutpoint()], [1n], 101_000);
  assert.equal(packageFormError([heavy]), null, 'a lone transaction is not package-too-large');
  assert.equal(packageFormError([heavy, makeTx(2, [fundingOutpoint()], [1n], 100)]), 'package-too-large');
  assert.equal(packageFormError([a, a]), 'package-contains-duplicates');
  assert.equal(packageFormError([b, a]), 'package-not-sorted');
  const shared = fundingOutpoint();
  assert.equal(packageFormError([makeTx(2, [shared]), makeTx(2, [shared], [9_000n])]), 'conflict-in-package');
  // Spending one output twice within a transaction is CheckTransaction's (consensus) to report.
  assert.equal(packageFormError([makeTx(2, [shared, shared])]), null);
});

test('isChildWithParents / isChildWithParentsTree: every other transaction a parent of the last; parents independent for the tree', () => {
  const p1 = makeTx(2, [fundingOutpoint()]);
  const p2 = makeTx(2, [out(p1)]);
  const child = makeTx(2, [out(p1, 0), out(p2)]);
  const lone = makeTx(2, [fundingOutpoint()]);
  assert.equal(isChildWithParents([child]), false);
  assert.equal(isChildWithParents([p1, child]), true);
  assert.equal(isChildWithParents([p1, lone, child]), false);
  assert.equal(isChildWithParents([p1, p2, child]), true);
  assert.equal(isChildWithParentsTree([p1, p2, child]), false, 'p2 spends p1');
  const q = makeTx(2, [fundingOutpoint()]);
  assert.equal(isChildWithParentsTree([p1, q, makeTx(2, [out(p1), out(q)])]), true);
});

test('singleTrucChecks: inheritance, sizes, one ancestor, one descendant with sibling eviction', () => {
  const pool = new TxMempool();
  const v2parent = pooled(pool, makeTx(2, [fundingOutpoint()], [10_000n, 10_000n]));
  const v3parent = pooled(pool, makeTx(3, [fundingOutpoint()], [10_000n, 10_000n, 10_000n]));
  const ids = (tx: Transaction) => `${tx.txidHex} (wtxid=${tx.wtxidHex})`;

  const v3child = makeTx(3, [out(v2parent.tx)]);
  assert.deepEqual(singleTrucChecks(pool, v3child, [v2parent], new Set(), v3child.vsize), {
    debug: `version=3 tx ${ids(v3child)} cannot spend from non-version=3 tx ${ids(v2parent.tx)}`,
  });
  const v2child = makeTx(2, [out(v3parent.tx)]);
  assert.deepEqual(singleTrucChecks(pool, v2child, [v3parent], new Set(), v2child.vsize), {
    debug: `non-version=3 tx ${ids(v2child)} cannot spend from version=3 tx ${ids(v3parent.tx)}`,
  });
  const lone = makeTx(3, [fundingOutpoint()]);
  assert.equal(singleTrucChecks(pool, lone, [], new Set(), 10_000), null);
  assert.equal(singleTrucChecks(pool, lone, [], new Set(), 10_001)?.debug, `version=3 tx ${ids(lone)} is too big: 10001 > 10000 virtual bytes`);
  const child = makeTx(3, [out(v3parent.tx, 0)]);
  assert.equal(singleTrucChecks(pool, child, [v3parent], new Set(), 1_001)?.debug, `version=3 child tx ${ids(child)} is too big: 1001 > 1000 virtual bytes`);
  assert.equal(singleTrucChecks(pool, child, [v3parent], new Set(), child.vsize), null);

  const first = pooled(pool, child);
  const grandchild = makeTx(3, [out(first.tx)]);
  assert.equal(singleTrucChecks(pool, grandchild, [first], new Set(), grandchild.vsize)?.debug, `tx ${ids(grandchild)} would have too many ancestors`);
  const sibling = makeTx(3, [out(v3parent.tx, 1)]);
  const verdict = singleTrucChecks(pool, sibling, [v3parent], new Set(), sibling.vsize);
  assert.equal(verdict?.debug, `tx ${ids(v3parent.tx)} would exceed descendant count limit`);
  assert.equal(verdict?.sibling, first, 'the lone child may be evicted');
  assert.equal(singleTrucChecks(pool, sibling, [v3parent], new Set([first.txid]), sibling.vsize), null, 'a child it replaces does not count');
  const twoParents = makeTx(3, [out(v3parent.tx, 2), out(first.tx)]);
  assert.equal(singleTrucChecks(pool, twoParents, [v3parent, first], new Set(), twoParents.vsize)?.debug, `tx ${ids(twoParents)} would have too many ancestors`);
});

test('packageTrucChecks: package parents count with pooled ones; no in-package siblings or grandchildren', () => {
  const pool = new TxMempool();
  const ids = (tx: Transaction) => `${tx.txidHex} (wtxid=${tx.wtxidHex})`;
  const a = makeTx(3, [fundingOutpoint()], [10_000n, 10_000n]);
  const b = makeTx(3, [fundingOutpoint()]);
  const child = makeTx(3, [out(a), out(b)]);
  assert.equal(packageTrucChecks(pool, child, child.vsize, [a, b, child], []), `tx ${ids(child)} would have too many ancestors`);
  const c1 = makeTx(3, [out(a, 0)]);
  const c2 = makeTx(3, [out(a, 1)]);
  assert.equal(packageTrucChecks(pool, c1, c1.vsize, [a, c1, c2], []), `tx ${ids(a)} would exceed descendant count limit`);
  const grandchild = makeTx(3, [out(c1)]);
  assert.equal(packageTrucChecks(pool, c1, c1.vsize, [a, c1, grandchild], []), `tx ${ids(grandchild)} would have too many ancestors`);
  const v2child = makeTx(2, [out(a)]);
  assert.equal(packageTrucChecks(pool, v2child, v2child.vsize, [a, v2child], []), `non-version=3 tx ${ids(v2child)} cannot spend from version=3 tx ${ids(a)}`);
  const v2parent = makeTx(2, [fundingOutpoint()]);
  const v3child = makeTx(3, [out(v2parent)]);
  assert.equal(packageTrucChecks(pool, v3child, v3child.vsize, [v2parent, v3child], []), `version=3 tx ${ids(v3child)} cannot spend from non-version=3 tx ${ids(v2parent)}`);
  assert.equal(packageTrucChecks(pool, c1, c1.vsize, [a, c1], []), null);
});

test('ephemeralSpendsFailure: a child must spend all of its parents’ dust, in the package or the pool', () => {
  const pool = new TxMempool();
  const dusty = makeTx(3, [fundingOutpoint()], [10_000n, 0n]);
  const leaves = makeTx(3, [out(dusty, 0)]);
  const failure = ephemeralSpendsFailure([dusty, leaves], DUST_RELAY_FEE, pool);
  assert.equal(failure?.tx, leaves);
  assert.equal(failure?.failure.reason, 'missing-ephemeral-spends');
  assert.equal(failure?.failure.debug, `tx ${leaves.txidHex} (wtxid=${leaves.wtxidHex}) did not spend parent's ephemeral dust`);
  assert.equal(ephemeralSpendsFailure([dusty, makeTx(3, [out(dusty, 0), out(dusty, 1)])], DUST_RELAY_FEE, pool), null);
  pooled(pool, dusty);
  assert.equal(ephemeralSpendsFailure([leaves], DUST_RELAY_FEE, pool)?.tx, leaves, 'a pooled parent’s dust counts too');
  assert.equal(ephemeralSpendsFailure([makeTx(3, [fundingOutpoint()])], DUST_RELAY_FEE, pool), null);
});
