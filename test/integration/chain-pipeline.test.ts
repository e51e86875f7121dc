/**
 * Pipelined connects during initial sync: a block whose scripts fail while the block after
 * it is already prepared. The import must stop at the last good block, with the failing
 * block invalid for Core's reason, the block prepared after it not connected, and the same
 * UTXO set a node that never saw the bad branch has.
 *
 * The blocks are made by two in-process chainstates: one that checks everything (the good
 * chain), and a block factory whose script checker accepts anything, so it can mine a block
 * with a forged signature and a valid block on top of it. The chainstate under test is
 * real: LMDB, the real checker, blocks read from a Core-framed file by importBlockFile.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Chainstate, computeUtxoStats, importBlockFile, LmdbChainStore, PoolScriptChecker, type ScriptChecker } from '../../src/chain/index.js';
import { createBlockTemplate, solveBlock, type TemplateTransaction } from '../../src/mining/index.js';
import { ByteWriter, serializeBlock, Transaction, type Block } from '../../src/primitives/index.js';
import { chainFixture } from '../support/chainstate.js';
import { TestWallet } from '../support/wallet.js';

const START = 1_700_000_000;
const wallet = new TestWallet(313);

async function mine(chain: Chainstate, transactions: readonly TemplateTransaction[] = []): Promise<Block> {
  const template = createBlockTemplate(chain, wallet.scriptPubKey('p2wpkh'), transactions);
  const block = solveBlock(template.block, chain.params, { remaining: 1_000_000 })!;
  const result = await chain.processBlock(block);
  assert.equal(result.accepted, true);
  return block;
}

/** The same spend with the first witness signature's last DER byte changed: a valid encoding, a wrong signature. */
function forged(tx: Transaction): Transaction {
  const [input, ...rest] = tx.inputs;
  const signature = input!.witness[0]!.slice();
  signature[signature.length - 2] ^= 0x01;
  return new Transaction({ version: tx.version, inputs: [{ ...input!, witness: [signature, ...input!.witness.slice(1)] }, ...rest], outputs: tx.outputs, locktime: tx.locktime });
}

test('a block failing its scripts while its successor is prepared stops the import at its parent, and the successor is not connected', async () => {
  const good = chainFixture('regtest', START);
  const factory = chainFixture('regtest', START);
  // Far in the future: the imported chain's tip stays older than a day, so the import is initial sync.
  const tested = chainFixture('regtest', START + 30 * 86_400);
  const acceptAll: ScriptChecker = { verify: async () => ({ ok: true }) };
  const factoryStore = LmdbChainStore.open(factory.dir, factory.params, {});
  const factoryChain = new Chainstate({
    params: factory.params,
    store: factoryStore,
    scripts: acceptAll,
    assumeValid: null,
    coinsCacheBytes: 64 << 20,
    now: () => factory.clock.now,
    log: () => undefined,
  });
  await factoryChain.load();
  const { chain: goodChain, close: closeGood } = await good.open();
  try {
    const blocks: Block[] = [];
    for (let i = 0; i < 105; i++) {
      good.clock.now = factory.clock.now = START + i * 600;
      const block = await mine(goodChain);
      assert.equal((await factoryChain.processBlock(block)).accepted, true);
      wallet.processBlock(block, i + 1);
      blocks.push(block);
    }
    const coins = wallet.spendable(106).filter((c) => c.coinbase);
    const spend = (i: number) => wallet.spend([coins[i]!], [{ value: coins[i]!.value - 10_000n, to: 'p2wpkh' }]);
    good.clock.now = factory.clock.now = START + 105 * 600;
    const valid = await mine(goodChain, [{ tx: spend(0), fee: 10_000n }]);
    assert.equal((await factoryChain.processBlock(valid)).accepted, true);
    blocks.push(valid);
    factory.clock.now += 600;
    const bad = forged(spend(1));
    const invalid = await mine(factoryChain, [{ tx: bad, fee: 10_000n }]);
    factory.clock.now += 600;
    const after = await mine(factoryChain, [{ tx: spend(2), fee: 10_000n }]);

    const file = new ByteWriter(1 << 20);
    for (const block of [...blocks, invalid, after]) {
      const bytes = serializeBlock(block);
      file.bytes(tested.params.messageStart).u32(bytes.length).bytes(bytes);
    }
    const path = join(tested.dir, 'bootstrap.dat');
    writeFileSync(path, file.finish());

    const verdicts = new Map<string, string>();
    const { chain, close } = await tested.openWith({
      events: { blockChecked: (hash, verdict) => verdicts.set(hash, verdict.ok ? 'valid' : verdict.reason) },
    });
    try {
      assert.ok(chain.isInitialBlockDownload(), 'the import runs as initial sync, where connects are pipelined');
      await importBlockFile(chain, path, () => undefined);
      assert.equal(chain.tip!.hashHex, valid.header.hashHex, 'the tip is the last valid block');
      assert.match(verdicts.get(invalid.header.hashHex) ?? '', /^block-script-verify-flag-failed \(/);
      assert.notEqual(verdicts.get(after.header.hashHex), 'valid', 'the block after the failing one is never connected');
      assert.equal(chain.chainTips().find((t) => t.hash === after.header.hashHex)?.status, 'invalid');
      await chain.flushNow();
      await goodChain.flushNow();
      const stats = (c: Chainstate) => c.snapshot((view) => computeUtxoStats(view.coins(), 'hash_serialized_3'));
      assert.deepEqual(stats(chain), stats(goodChain), 'the UTXO set is the good chain’s');
    } finally {
      await close();
    }
  } finally {
    await closeGood();
    await factoryChain.shutdown();
    await factoryStore.close();
    for (const f of [good, factory, tested]) f.remove();
  }
});

test('a shutdown while initial sync connects blocks ends the connection step at once', async () => {
  const good = chainFixture('regtest', START);
  const tested = chainFixture('regtest', START + 30 * 86_400);
  const { chain: goodChain, close: closeGood } = await good.open();
  const store = LmdbChainStore.open(tested.dir, tested.params, {});
  let chain: Chainstate | undefined;
  let armed = false;
  // The shutdown arrives as the step decides how to connect (Core's m_interrupt mid-step):
  // the clock is read there to tell initial sync.
  const now = (): number => {
    if (armed) chain!.interrupted = true;
    return tested.clock.now;
  };
  chain = new Chainstate({ params: tested.params, store, scripts: new PoolScriptChecker(null), assumeValid: null, coinsCacheBytes: 64 << 20, now, log: () => undefined });
  await chain.load();
  try {
    const blocks: Block[] = [];
    for (let i = 0; i < 3; i++) {
      good.clock.now = START + i * 600;
      blocks.push(await mine(goodChain));
    }
    await chain.processHeaders(blocks.map((b) => b.header));
    for (const block of blocks) await chain.storeBlock(block, undefined, true);
    armed = true;
    // Before the fix the step retried for ever once interrupted, and this never returned.
    const outcome = await Promise.race([chain.activateBestChain().then(() => 'returned'), new Promise((r) => setTimeout(() => r('still connecting after 10 s'), 10_000))]);
    assert.equal(outcome, 'returned');
    assert.equal(chain.tip!.height, 0, 'the interrupted step connects nothing');
  } finally {
    armed = false;
    chain.interrupted = false;
    await chain.shutdown();
    await store.close();
    await closeGood();
  }
});
