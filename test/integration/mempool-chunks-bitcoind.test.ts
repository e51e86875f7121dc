/**
 * Chunks as the reference bitcoind v31.0 reports them: tsbtcd and bitcoind share one
 * chain (bitcoind mines, tsbtcd takes its blocks) and receive the same ~2,000 pool
 * transactions in the same order — chains, diamonds, children paying for parents, fans of
 * many children of one parent, clusters joined by a spend of two, small random clusters
 * and prioritisetransaction deltas, with fees that are exact multiples of the weight so equal feerates tie exactly.
 * Every pool entry's chunkweight, chunk fee and modified fee, getmempoolinfo's `optimal`
 * and getblocktemplate's transaction order must be bitcoind's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashToHex, type Transaction } from '../../src/primitives/index.js';
import { seededRandom, TestWallet, type WalletCoin } from '../support/wallet.js';
import { cleanupsAfterTests, skipUnless } from './node-under-test.js';
import { referenceStarter, startPairedNodes } from './paired-nodes.js';

const cleanups = cleanupsAfterTests();

/** The weight of a p2tr key-path spend of `inputs` coins to `outputs` p2tr outputs. */
function p2trWeight(inputs: number, outputs: number): number {
  return 4 * (10 + 41 * inputs + 43 * outputs) + 2 + 66 * inputs;
}

interface Sent {
  readonly txid: string;
  readonly accepted: boolean;
}

test('every pool entry has bitcoind chunkweight and chunk fee, and getblocktemplate picks bitcoind order', { skip: skipUnless(referenceStarter), timeout: 600_000 }, async () => {
  const pair = await startPairedNodes();
  cleanups.push(() => pair.stop());
  const { reference } = pair;
  const wallet = new TestWallet(11);
  const random = seededRandom(2026);
  const mine = (n: number) => pair.mine(wallet, n);
  const send = async (tx: Transaction): Promise<Sent> => ({ txid: tx.txidHex, accepted: (await pair.send(tx)) === 'accepted' });
  /** A spend at `rate` sat per weight unit / 4 (sat/vB), exactly when the weight is a multiple of 4. */
  const pay = (inputs: WalletCoin[], outputs: number, rate: number): Transaction => {
    const fee = BigInt(Math.ceil((rate * p2trWeight(inputs.length, outputs)) / 4));
    const total = inputs.reduce((a, c) => a + c.value, 0n) - fee;
    const each = total / BigInt(outputs);
    return wallet.spend(
      inputs,
      Array.from({ length: outputs }, (_, i) => ({ value: i === 0 ? total - each * BigInt(outputs - 1) : each, to: 'p2tr-key' as const })),
    );
  };
  const outputsOf = (tx: Transaction): WalletCoin[] => wallet.spendable(Number.MAX_SAFE_INTEGER).filter((c) => hashToHex(c.outpoint.txid) === tx.txidHex);
  const rates = [1, 2, 2, 3, 3, 5, 8];
  const rate = () => rates[Math.floor(random() * rates.length)]!;

  await mine(130);
  const height = await reference.call<number>('getblockcount');
  const coinbases = wallet.spendable(height + 1).filter((c) => c.coinbase);
  const coins: WalletCoin[] = [];
  for (const coinbase of coinbases.slice(0, 30)) {
    const fan = pay([coinbase], 40, 2);
    assert.ok((await send(fan)).accepted);
    coins.push(...outputsOf(fan));
  }
  await mine(1);

  const sent: Sent[] = [];
  const tips: WalletCoin[] = [];
  const take = (): WalletCoin => coins.pop()!;
  /** Sends a spend of `inputs` to `outputs` outputs at `rate` sat/vB; returns its outputs. */
  const build = async (inputs: WalletCoin[], outputs: number, r: number): Promise<WalletCoin[]> => {
    const tx = pay(inputs, outputs, r);
    sent.push(await send(tx));
    return outputsOf(tx);
  };
  // A cluster (found by random search) where mining by ancestor-set feerate, merging a
  // later run while it pays more, gives one chunk and an optimal linearization two.
  const o0 = await build([take()], 2, 5);
  const o1 = await build([o0.pop()!], 1, 1);
  const o2 = await build([o0.pop()!, o1.pop()!], 2, 5);
  const o3 = await build([o2.pop()!], 1, 13);
  const o4 = await build([o3.pop()!], 1, 5);
  const o5 = await build([o4.pop()!], 1, 5);
  const o6 = await build([o2.pop()!], 1, 2);
  const o7 = await build([o6.pop()!], 1, 34);
  await build([o7.pop()!, o5.pop()!], 2, 13);
  while (coins.length > 2 && sent.length < 2000) {
    const shape = random();
    if (shape < 0.35) {
      // A chain, each link at its own rate.
      let coin = take();
      const length = 1 + Math.floor(random() * 8);
      for (let i = 0; i < length; i++) {
        const tx = pay([coin], 1, rate());
        sent.push(await send(tx));
        coin = outputsOf(tx)[0]!;
      }
      tips.push(coin);
    } else if (shape < 0.5) {
      // Many children of one parent.
      const children = 2 + Math.floor(random() * 12);
      const parent = pay([take()], children, rate());
      sent.push(await send(parent));
      for (const coin of outputsOf(parent)) sent.push(await send(pay([coin], 1, rate())));
    } else if (shape < 0.6) {
      // A diamond: two children of one parent, and a grandchild spending both.
      const parent = pay([take()], 2, rate());
      sent.push(await send(parent));
      const mids = outputsOf(parent).map((coin) => pay([coin], 1, rate()));
      for (const mid of mids) sent.push(await send(mid));
      sent.push(await send(pay(mids.flatMap(outputsOf), 1, rate())));
    } else if (shape < 0.7) {
      // A child paying for its parent.
      const parent = pay([take()], 1, 1);
      sent.push(await send(parent));
      sent.push(await send(pay(outputsOf(parent), 1, 10 + Math.floor(random() * 10))));
    } else if (shape < 0.78 && tips.length >= 2) {
      // Two chains joined by one spend.
      const [a, b] = [tips.splice(Math.floor(random() * tips.length), 1)[0]!, tips.splice(Math.floor(random() * tips.length), 1)[0]!];
      const join = pay([a, b], 1, rate());
      sent.push(await send(join));
      const out = outputsOf(join)[0];
      if (out) tips.push(out);
    } else if (shape < 0.9) {
      // A small random cluster: each transaction spends one output of one or two earlier
      // ones (where ancestor-set greedy mining and Core's linearization part ways).
      const unspent: WalletCoin[][] = [[take()]];
      const size = 3 + Math.floor(random() * 5);
      for (let i = 0; i < size; i++) {
        const withOutputs = unspent.filter((outs) => outs.length > 0);
        if (withOutputs.length === 0) break;
        const parents = new Set([withOutputs[Math.floor(random() * withOutputs.length)]!]);
        if (random() < 0.4) parents.add(withOutputs[Math.floor(random() * withOutputs.length)]!);
        const tx = pay([...parents].map((outs) => outs.pop()!), 1 + Math.floor(random() * 2), rate());
        sent.push(await send(tx));
        unspent.push(outputsOf(tx));
      }
    } else {
      // A single at a common rate: exact ties.
      sent.push(await send(pay([take()], 1, random() < 0.5 ? 2 : 3)));
    }
    const last = sent[sent.length - 1]!;
    if (last.accepted && random() < 0.04) {
      const delta = [1000, -300, 5000, 111][Math.floor(random() * 4)]!;
      await pair.both('prioritisetransaction', [last.txid, 0, delta]);
    }
  }
  const accepted = sent.filter((s) => s.accepted).length;
  assert.ok(accepted >= 1500, `${accepted} of ${sent.length} accepted`);

  const [want, got] = await pair.both<Record<string, any>>('getrawmempool', [true]);
  assert.equal(Object.keys(got!).length, Object.keys(want!).length);
  const mismatches: string[] = [];
  for (const [txid, entry] of Object.entries(want!)) {
    const mine = got![txid];
    const pick = (e: any) => ({ chunkweight: e?.chunkweight, chunk: e?.fees.chunk, modified: e?.fees.modified });
    if (JSON.stringify(pick(mine)) !== JSON.stringify(pick(entry))) mismatches.push(`${txid}: ${JSON.stringify(pick(mine))} != ${JSON.stringify(pick(entry))}`);
  }
  assert.deepEqual(mismatches.slice(0, 10), [], `${mismatches.length} of ${Object.keys(want!).length} entries differ`);

  const [wantInfo, gotInfo] = await pair.both<{ optimal: boolean }>('getmempoolinfo');
  assert.equal(gotInfo!.optimal, wantInfo!.optimal);

  const [wantTemplate, gotTemplate] = await pair.both<{ transactions: { txid: string }[] }>('getblocktemplate', [{ rules: ['segwit'] }]);
  const mined = gotTemplate!.transactions.map((t) => t.txid);
  const expected = wantTemplate!.transactions.map((t) => t.txid);
  const at = mined.findIndex((txid, i) => txid !== expected[i]);
  assert.equal(at, -1, `templates part at ${at}: ${mined.slice(at, at + 3)} != ${expected.slice(at, at + 3)}`);
  assert.equal(mined.length, expected.length);
});
