/**
 * The chainstate in-process on real LMDB: mining, restart, reorgs through competing
 * branches, chain-tip statuses, invalid blocks and their descendants, invalidate and
 * reconsider, precious, and -loadblock-style import of mainnet blocks 0–255.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { computeUtxoStats, importBlockFile, TxIndex, verifyDb, type BlockIndexEntry, type Chainstate } from '../../src/chain/index.js';
import { getNextWorkRequired } from '../../src/consensus/index.js';
import { BlockHeader, blockMerkleRoot, ByteWriter, fromHex, hashToHex, toHex, type Block } from '../../src/primitives/index.js';
import * as mining from '../../src/mining/index.js';
import { generateBlocks, solveBlock } from '../../src/mining/index.js';
import { chainFixture } from '../support/chainstate.js';
import { vectorPath } from '../support/vectors.js';

const OP_TRUE = Uint8Array.of(0x51);

/**
 * A block on `prev` (anywhere in the tree, not only the tip) paying a unique OP_TRUE
 * script: `OP_TRUE <tweak> OP_DROP`, so rival blocks at one height differ.
 */
function blockOn(chain: Chainstate, prev: BlockIndexEntry, time: number, tweak: number, coinbaseValue = 50_0000_0000n): Block {
  const payout = Uint8Array.of(0x51, 0x01, tweak & 0xff, 0x75);
  const coinbase = mining.createCoinbase(prev.height + 1, payout, coinbaseValue);
  const draft = new BlockHeader({
    version: 0x20000000,
    prevHash: prev.hash,
    merkleRoot: new Uint8Array(32),
    time,
    bits: getNextWorkRequired(prev, time, chain.params),
    nonce: 0,
  });
  const txs = mining.addWitnessCommitment({ header: draft, transactions: [coinbase] });
  const header = new BlockHeader({ ...draft, merkleRoot: blockMerkleRoot({ header: draft, transactions: txs }).root });
  return solveBlock({ header, transactions: txs }, chain.params, { remaining: 1e6 })!;
}

/** An index entry for `block` on `prev` that the tree does not hold yet (to mine a child before the parent is submitted). */
function probeEntry(chain: Chainstate, block: Block, prev: BlockIndexEntry): BlockIndexEntry {
  return chain.tree.probeEntry(block.header, prev);
}

test('mined regtest chain survives a restart with the same tip and coins', async () => {
  const fixture = chainFixture();
  try {
    let opened = await fixture.open();
    assert.equal(opened.chain.tip!.height, 0);
    assert.equal(opened.chain.tip!.hashHex, '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206');
    const hashes = await generateBlocks(opened.chain, OP_TRUE, 120, 1e6);
    assert.equal(hashes.length, 120);
    const coins = opened.chain.coins.size;
    await opened.close();
    opened = await fixture.open();
    assert.equal(opened.chain.tip!.height, 120);
    assert.equal(opened.chain.tip!.hashHex, hashes[119]);
    assert.equal(opened.chain.tip!.chainTxCount, 121);
    assert.ok(coins > 0);
    await opened.close();
  } finally {
    fixture.remove();
  }
});

test('a longer competing branch reorganises the chain; tips report Core statuses', async () => {
  const fixture = chainFixture();
  try {
    const { chain, close } = await fixture.open();
    await generateBlocks(chain, OP_TRUE, 10, 1e6);
    const fork = chain.tip!;
    // Branch A: 3 blocks, connected.
    const branchA: string[] = [];
    for (let i = 0; i < 3; i++) {
      const block = blockOn(chain, chain.tip!, chain.tip!.time + 1, 0xa0 + i);
      assert.equal((await chain.processBlock(block)).checked?.ok, true);
      branchA.push(block.header.hashHex);
    }
    // Branch B from the fork: stored but not connected until it has more work.
    const branchB: Block[] = [];
    let parent = fork;
    for (let i = 0; i < 4; i++) {
      const block = blockOn(chain, parent, parent.time + 2, 0xb0 + i);
      const result = await chain.processBlock(block);
      assert.equal(result.accepted, true);
      if (i < 3) assert.equal(result.checked, undefined, 'a side branch without more work is stored, not connected (inconclusive)');
      else assert.equal(result.checked?.ok, true);
      branchB.push(block);
      parent = chain.lookup(block.header.hashHex)!;
    }
    assert.equal(chain.tip!.hashHex, branchB[3]!.header.hashHex);
    const tips = chain.chainTips();
    assert.deepEqual(
      tips.map((t) => [t.height, t.status, t.branchlen]),
      [
        [14, 'active', 0],
        [13, 'valid-fork', 3],
      ],
    );
    assert.equal(tips[1]!.hash, branchA[2]);
    // A header without data is headers-only.
    const extra = blockOn(chain, chain.tip!, chain.tip!.time + 1, 0xc0);
    const headerOnly = await chain.processHeader(extra.header);
    assert.ok('entry' in headerOnly);
    assert.deepEqual(chain.chainTips()[0], { height: 15, hash: extra.header.hashHex, branchlen: 1, status: 'headers-only' });
    await close();
  } finally {
    fixture.remove();
  }
});



test('an invalid block is rejected with Core’s reason and it and its descendants are invalid', async () => {
  const fixture = chainFixture();
  try {
    const { chain, close } = await fixture.open();
    await generateBlocks(chain, OP_TRUE, 5, 1e6);
    const tip = chain.tip!;
    // A coinbase paying one satoshi more than the subsidy, and a valid-looking child on it.
    const greedy = blockOn(chain, tip, tip.time + 1, 0xd0, 50_0000_0001n);
    const child = blockOn(chain, probeEntry(chain, greedy, tip), tip.time + 2, 0xd1);
    // The child arrives first (its parent is unknown), then the bad parent.
    const early = await chain.processBlock(child);
    assert.equal(early.checked && !early.checked.ok ? early.checked.reason : null, 'prev-blk-not-found');
    const verdict = await chain.processBlock(greedy);
    assert.deepEqual(verdict.checked && !verdict.checked.ok ? verdict.checked.reason : null, 'bad-cb-amount');
    assert.equal(chain.tip!.hashHex, tip.hashHex);
    const invalid = chain.chainTips().find((t) => t.hash === greedy.header.hashHex);
    assert.equal(invalid?.status, 'invalid');
    // Its child, sent again now that the parent is known and invalid, is refused as well.
    const again = await chain.processBlock(child);
    assert.equal(again.checked && !again.checked.ok ? again.checked.reason : null, 'bad-prevblk');
    // A sibling header on top of the invalid block is refused too.
    const sibling = blockOn(chain, probeEntry(chain, greedy, tip), tip.time + 3, 0xd2);
    const header = await chain.processHeader(sibling.header);
    assert.equal('reason' in header ? header.reason : null, 'bad-prevblk');
    await close();
  } finally {
    fixture.remove();
  }
});

test('invalidateblock marks the block and every descendant invalid; reconsiderblock restores the chain', async () => {
  const fixture = chainFixture();
  try {
    const { chain, close } = await fixture.open();
    const hashes = await generateBlocks(chain, OP_TRUE, 20, 1e6);
    const target = chain.lookup(hashes[9]!)!;
    await chain.invalidateBlock(target);
    assert.equal(chain.tip!.height, 9);
    for (const h of hashes.slice(9)) assert.ok(chain.lookup(h)!.failed, `${h} should be invalid`);
    assert.deepEqual(chain.chainTips().map((t) => [t.height, t.status]), [
      [20, 'invalid'],
      [9, 'active'],
    ]);
    await chain.reconsiderBlock(target);
    assert.equal(chain.tip!.hashHex, hashes[19]);
    assert.deepEqual(chain.chainTips().map((t) => t.status), ['active']);
    await close();
  } finally {
    fixture.remove();
  }
});

test('reconsiderblock over a shorter branch reconnects every block, however many steps it takes', async () => {
  const fixture = chainFixture();
  try {
    const { chain, close } = await fixture.open();
    const hashes = await generateBlocks(chain, OP_TRUE, 60, 1e6);
    const utxoHash = async () => {
      await chain.flushNow();
      return hashToHex(chain.snapshot((v) => computeUtxoStats(v.coins(), 'hash_serialized_3')).hash!);
    };
    const utxos = await utxoHash();
    const target = chain.lookup(hashes[9]!)!;
    await chain.invalidateBlock(target);
    // A branch with more work than the fork point but less than the original chain: the
    // reorg back first connects blocks that add no work over it.
    await generateBlocks(chain, Uint8Array.of(0x51, 0x01, 0x07, 0x75), 5, 1e6);
    await chain.reconsiderBlock(target);
    assert.equal(chain.tip!.hashHex, hashes[59]);
    for (let h = 10; h <= 60; h++) assert.equal(chain.tip!.ancestor(h)!.hashHex, hashes[h - 1], `height ${h}`);
    assert.equal(await utxoHash(), utxos);
    await close();
  } finally {
    fixture.remove();
  }
});

test('-loadblock of mainnet blocks 0–255 (Core framing, assumevalid=0) reaches height 255 with the right hash and chainwork', async () => {
  const fixture = chainFixture('main', 1_800_000_000);
  try {
    const lines = readFileSync(vectorPath('mainnet-blocks-0-255.hex'), 'utf8').trim().split('\n');
    const file = new ByteWriter(lines.length * 500);
    // Out of order on purpose: Core's import holds blocks until their parent arrives.
    const order = [...lines.keys()].sort((a, b) => (a % 7) - (b % 7) || a - b);
    for (const i of order) {
      const bytes = fromHex(lines[i]!);
      file.bytes(fixture.params.messageStart).u32(bytes.length).bytes(bytes);
    }
    const path = join(fixture.dir, 'bootstrap.dat');
    writeFileSync(path, file.finish());
    const { chain, close } = await fixture.open();
    const report = await importBlockFile(chain, path, () => undefined);
    assert.equal(report.orphaned, 0);
    assert.equal(chain.tip!.height, 255);
    assert.equal(chain.tip!.hashHex, '00000000d0a75c861fabf9ff7b92022f60e4afeed9331fe5aa073d8e4706fe3c');
    assert.equal(chain.tip!.chainWork, 256n * 0x100010001n);
    await close();
  } finally {
    fixture.remove();
  }
});

test('-reindex-chainstate and -reindex rebuild the same tip and UTXO set hash from the block files', async () => {
  const fixture = chainFixture();
  try {
    let opened = await fixture.open();
    await generateBlocks(opened.chain, OP_TRUE, 60, 1e6);
    const tip = opened.chain.tip!.hashHex;
    const utxoHash = (o: typeof opened): string =>
      hashToHex(o.store.env.withSnapshot((r) => computeUtxoStats(r.allCoins(), 'hash_serialized_3')).hash!);
    const before = utxoHash(opened);
    await opened.close();
    for (const options of [{ reindexChainstate: true }, { reindex: true }]) {
      opened = await fixture.openWith(options);
      assert.equal(opened.chain.tip!.hashHex, tip, JSON.stringify(options));
      assert.equal(utxoHash(opened), before, JSON.stringify(options));
      await opened.close();
    }
  } finally {
    fixture.remove();
  }
});

test('-txindex catches up, follows new blocks and reorgs, and points at the exact transaction bytes', async () => {
  const fixture = chainFixture();
  try {
    const holder: { index?: TxIndex } = {};
    const { chain, store, close } = await fixture.openWith({ events: { blockConnected: (b, e) => holder.index?.blockConnected(b, e) } });
    const early = await generateBlocks(chain, OP_TRUE, 30, 1e6);
    const index = TxIndex.open(fixture.dir, chain, () => undefined);
    holder.index = index;
    await index.start();
    assert.deepEqual(index.info(), { synced: true, best_block_height: 30 });
    const later = await generateBlocks(chain, OP_TRUE, 5, 1e6);
    assert.equal(index.info().best_block_height, 35);
    for (const hash of [early[0]!, early[29]!, later[4]!]) {
      const block = chain.readBlock(chain.lookup(hash)!);
      const coinbase = block.transactions[0]!;
      const position = index.lookup(coinbase.txid)!;
      const bytes = store.blocks.readRange(position, position.offset, position.length);
      assert.equal(toHex(bytes), toHex(coinbase.toBytes()));
    }
    // Reorg: replace the last 3 blocks with 4 others; the index follows the new branch.
    await chain.invalidateBlock(chain.lookup(later[2]!)!);
    const replacement = await generateBlocks(chain, Uint8Array.of(0x51, 0x01, 0x99, 0x75), 4, 1e6);
    assert.equal(chain.tip!.hashHex, replacement[3]);
    await waitUntil(() => index.info().best_block_height === 36 && index.synced);
    const newCoinbase = chain.readBlock(chain.tip!).transactions[0]!;
    assert.ok(index.lookup(newCoinbase.txid));
    await index.close();
    await close();
  } finally {
    fixture.remove();
  }
});

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

test('pruneblockchain (prune=1, fastprune) deletes whole block files below the height and keeps the chain usable', async () => {
  const fixture = chainFixture('regtest', 1_700_000_000, { fastprune: true, prune: 'manual' });
  try {
    let opened = await fixture.open();
    await generateBlocks(opened.chain, OP_TRUE, 900, 1e6);
    const files = opened.store.blockFiles();
    assert.ok(files.length >= 3, `expected several 64 KiB block files, got ${files.length}`);
    assert.equal(opened.chain.pruneHeight(), undefined);
    const pruned = await opened.chain.pruneBlockchain(500);
    assert.ok(pruned !== undefined && pruned <= 500 && pruned > 0, `prune height ${pruned}`);
    const lastPruned = opened.chain.chain.at(pruned!)!;
    assert.equal(lastPruned.hasData, false);
    assert.throws(() => opened.chain.readBlock(lastPruned));
    assert.equal(opened.chain.chain.at(pruned! + 1)!.hasData, true);
    const remaining = opened.store.blockFiles().map((f) => f.file);
    for (const f of files) if (f.heightLast <= 500) assert.ok(!remaining.includes(f.file), `file ${f.file} should be gone`);
    // size_on_disk's running total followed the deletions.
    const keptSize = opened.store.env.withSnapshot((r) => r.blockFilesSize());
    assert.equal(keptSize, opened.store.blockFiles().reduce((total, f) => total + f.size, 0));
    assert.ok(keptSize < files.reduce((total, f) => total + f.size, 0));
    await opened.close();
    // The pruned state survives a restart and the chain keeps growing.
    opened = await fixture.open();
    assert.equal(opened.chain.pruneHeight(), pruned);
    await generateBlocks(opened.chain, OP_TRUE, 10, 1e6);
    assert.equal(opened.chain.tip!.height, 910);
    await opened.close();
  } finally {
    fixture.remove();
  }
});

test('verifychain levels 0–4 pass on a healthy chain and level 2 catches missing undo data', async () => {
  const fixture = chainFixture();
  try {
    const { chain, store, close } = await fixture.open();
    await generateBlocks(chain, OP_TRUE, 30, 1e6);
    const tipBefore = chain.tip!.hashHex;
    for (let level = 0; level <= 4; level++) {
      assert.equal(await chain.exclusive(() => verifyDb(chain, level, 10, () => undefined)), 'success', `level ${level}`);
    }
    assert.equal(chain.tip!.hashHex, tipBefore, 'verification must not change the chain');
    store.env.writeBatch((w) => w.deleteUndo(chain.chain.at(28)!.hash));
    assert.equal(await chain.exclusive(() => verifyDb(chain, 1, 10, () => undefined)), 'success', 'level 1 does not read undo data');
    assert.equal(await chain.exclusive(() => verifyDb(chain, 2, 10, () => undefined)), 'corrupted');
    await close();
  } finally {
    fixture.remove();
  }
});
