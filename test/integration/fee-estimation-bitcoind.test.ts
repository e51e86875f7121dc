/**
 * Fee estimation against the reference bitcoind v31.0: both nodes (regtest, not connected
 * to each other) receive the same raw transactions through sendrawtransaction and the
 * same blocks through submitblock — blocks bitcoind's generateblock builds from a chosen
 * part of the pool, the highest fee rates first, so the rest waits for later blocks —
 * with children of waiting transactions (which Core does not track), a few full-RBF
 * replacements and a one-block reorg (invalidateblock; the transactions come back with
 * limits bypassed and the replacing block is at a height already seen). About 1,000
 * transactions over 110 blocks;
 * after every second block estimatesmartfee (targets 1, 2, 3, 6, 12, 24, 144, both modes) and
 * estimaterawfee (several targets and thresholds) must answer the same on both. Then both
 * stop: their fee_estimates.dat must be byte-identical; each restarts on the other's
 * file and they still answer alike (also after more blocks).
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { fromHex, parseBlock, toHex, type Transaction } from '../../src/primitives/index.js';
import { seededRandom, TestWallet, type WalletCoin } from '../support/wallet.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon } from './daemon-harness.js';

const reference = referenceBitcoind();
const SMART_TARGETS = [1, 2, 3, 6, 12, 24, 144];
const RAW_QUERIES: [number, number | undefined][] = [
  [1, undefined],
  [2, undefined],
  [3, 0.85],
  [6, undefined],
  [6, 0.6],
  [12, 0.95],
  [24, undefined],
  [48, 0.85],
  [144, undefined],
  [1008, 0.5],
];
/** Fee rates in sat/vB the transactions pay. */
const RATES = [1, 2, 3, 4, 5, 7, 10, 12, 15, 20, 25, 35, 50, 80];

/** The same pseudo-random scenario on every run. */
const prng = seededRandom;

interface Nodes {
  ts: Daemon;
  core: BitcoindProcess;
}

async function answers(call: (method: string, params: unknown[]) => Promise<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const target of SMART_TARGETS) {
    for (const mode of ['economical', 'conservative']) out.push({ smart: [target, mode], result: await call('estimatesmartfee', [target, mode]) });
  }
  out.push({ smart: [6], result: await call('estimatesmartfee', [6]) });
  for (const [target, threshold] of RAW_QUERIES) {
    const params = threshold === undefined ? [target] : [target, threshold];
    out.push({ raw: params, result: await call('estimaterawfee', params) });
  }
  return out;
}

/** Both nodes' answers to every query, which must be equal; returns how many estimates had a fee rate. */
async function compareEstimates(nodes: Nodes, label: string): Promise<number> {
  const ts = await answers((m, p) => nodes.ts.call(m, p));
  const core = await answers((m, p) => nodes.core.call(m, p));
  assert.deepEqual(ts, core, `estimates differ at ${label}`);
  return core.filter((a) => JSON.stringify(a).includes('"feerate"')).length;
}

test('tsbtcd’s fee estimates equal bitcoind v31’s on the same transactions and blocks, and fee_estimates.dat is shared', { skip: 'path' in reference ? false : reference.missing, timeout: 600_000 }, async () => {
  const bitcoind = (reference as { path: string }).path;
  const coreDir = mkdtempSync(join(tmpdir(), 'tsbtcd-fees-core-'));
  const nodes: Nodes = {
    ts: await Daemon.start({ args: ['-par=1'] }),
    core: await BitcoindProcess.start(bitcoind, ['-connect=0', '-disablewallet'], coreDir),
  };
  try {
    const wallet = new TestWallet(77);
    const twin = new TestWallet(77);
    const address = wallet.address('p2wpkh');
    let height = 0;
    /** Pending transactions, as both pools hold them: txid → fee rate. */
    const pending = new Map<string, { rate: number; tx: Transaction; coin: WalletCoin; parent?: string }>();
    const hasChild = (txid: string) => [...pending.values()].some((p) => p.parent === txid);
    /** Outputs children spent while unconfirmed: the wallet takes them for new coins when their block arrives. */
    const spentByChildren = new Set<string>();
    const outpointKey = (c: WalletCoin) => `${toHex(c.outpoint.txid)}:${c.outpoint.vout}`;

    const mine = async (txids: string[], to = address): Promise<string> => {
      const { hex } = await nodes.core.call<{ hex: string }>('generateblock', [to, txids, false]);
      assert.equal(await nodes.core.call('submitblock', [hex]), null);
      assert.equal(await nodes.ts.call('submitblock', [hex]), null);
      height++;
      const block = parseBlock(fromHex(hex));
      wallet.processBlock(block, height);
      twin.processBlock(block, height);
      for (const id of txids) pending.delete(id);
      const tip = await nodes.core.call<string>('getbestblockhash');
      assert.equal(await nodes.ts.call('getbestblockhash'), tip);
      return tip;
    };
    const send = async (tx: Transaction): Promise<void> => {
      const hex = toHex(tx.toBytes());
      const fromCore = await nodes.core.call<string>('sendrawtransaction', [hex]);
      assert.equal(await nodes.ts.call('sendrawtransaction', [hex]), fromCore);
    };

    for (let i = 0; i < 110; i++) await mine([]);
    // Fan out eight mature coinbases into 320 confirmed coins.
    const fanouts: string[] = [];
    for (const coin of wallet.spendable(height + 1).filter((c) => c.coinbase).slice(0, 8)) {
      const share = (coin.value - 100_000n) / 40n;
      const tx = wallet.spend([coin], Array.from({ length: 40 }, () => ({ value: share, to: 'p2wpkh' as const })));
      await send(tx);
      fanouts.push(tx.txidHex);
    }
    await mine(fanouts);

    const random = prng(20251127);
    let sent = fanouts.length;
    let replaced = 0;
    // 110 blocks: spans reach past the short (12) and medium (48) horizons, so the long one answers too.
    const rounds = 110;
    let withFeeRate = 0;
    for (let round = 1; round <= rounds; round++) {
      const confirmed = wallet.spendable(height + 1).filter((c) => !c.coinbase && c.height !== null && c.value > 200_000n && !spentByChildren.has(outpointKey(c)));
      const count = 5 + Math.floor(random() * 5);
      for (let i = 0; i < count && confirmed.length > 0; i++) {
        const coin = confirmed.splice(Math.floor(random() * confirmed.length), 1)[0]!;
        const rate = RATES[Math.floor(random() * RATES.length)]!;
        // One input, two P2WPKH outputs: about 141 vbytes.
        const fee = BigInt(rate * 141);
        const half = (coin.value - fee) / 2n;
        const tx = wallet.spend([coin], [
          { value: half, to: 'p2wpkh' },
          { value: coin.value - fee - half, to: 'p2wpkh' },
        ]);
        await send(tx);
        sent++;
        pending.set(tx.txidHex, { rate, tx, coin });
      }
      // A child of a waiting transaction, paying less than its parent (so a block that takes it takes the parent first).
      const parents = [...pending.entries()].filter(([id, p]) => !p.parent && p.rate > RATES[0]! && !hasChild(id));
      if (parents.length > 0) {
        const [parentId, parent] = parents[Math.floor(random() * parents.length)]!;
        const coin = wallet.spendable(height + 1).find((c) => c.outpoint.vout === 0 && toHex(c.outpoint.txid) === toHex(parent.tx.txid))!;
        const lower = RATES.filter((r) => r < parent.rate);
        const rate = lower[Math.floor(random() * lower.length)]!;
        spentByChildren.add(outpointKey(coin));
        const tx = wallet.spend([coin], [{ value: coin.value - BigInt(rate * 110), to: 'p2wpkh' }]);
        await send(tx);
        sent++;
        pending.set(tx.txidHex, { rate, tx, coin, parent: parentId });
      }
      // Now and then a waiting low-fee transaction (no parent or child in the pool) is replaced by one paying 60 sat/vB.
      if (round % 6 === 0) {
        const victim = [...pending.entries()].filter(([id, p]) => !p.parent && !hasChild(id)).sort((a, b) => a[1].rate - b[1].rate)[0];
        const coin = victim && twin.spendable(height + 1).find((c) => c.outpoint.vout === victim[1].coin.outpoint.vout && toHex(c.outpoint.txid) === toHex(victim[1].coin.outpoint.txid));
        if (victim && coin) {
          const fee = 60n * 141n;
          const tx = twin.spend([coin], [{ value: coin.value - fee, to: 'p2wpkh' }]);
          await send(tx);
          sent++;
          replaced++;
          pending.delete(victim[0]);
          pending.set(tx.txidHex, { rate: 60, tx, coin });
        }
      }
      // The block takes the best-paying part of the pool; its size varies, so the rest waits.
      const take = 3 + Math.floor(random() * 8);
      const chosen = [...pending.entries()].sort((a, b) => b[1].rate - a[1].rate || (a[0] < b[0] ? -1 : 1)).slice(0, take).map(([id]) => id);
      const tip = await mine(chosen);
      if (round === 20) {
        // A one-block reorg: the block's transactions return to both pools, and a block
        // paying another address confirms them again at the same height.
        await nodes.core.call('invalidateblock', [tip]);
        await nodes.ts.call('invalidateblock', [tip]);
        height--;
        assert.equal(await nodes.ts.call('getbestblockhash'), await nodes.core.call('getbestblockhash'));
        await mine(chosen, wallet.address('p2tr-key'));
        await compareEstimates(nodes, 'after a reorg');
      }
      if (round % 2 === 0 || round === rounds) withFeeRate = await compareEstimates(nodes, `round ${round} (height ${height})`);
    }
    assert.ok(sent >= 200, `${sent} transactions sent`);
    assert.ok(replaced >= 3, `${replaced} replacements`);
    assert.ok(withFeeRate >= 20, `only ${withFeeRate} answers carried a fee rate`);
    // The long horizon answered too, with waiting and failed transactions in its figures.
    const long = (await nodes.core.call<{ long: { feerate?: number; fail: { inmempool: number } } }>('estimaterawfee', [48, 0.85])).long;
    assert.ok(long.feerate !== undefined && long.fail.inmempool > 0, JSON.stringify(long));
    const poolSize = (await nodes.core.call<{ size: number }>('getmempoolinfo')).size;
    assert.equal((await nodes.ts.call<{ size: number }>('getmempoolinfo')).size, poolSize);
    assert.ok(poolSize > 0, 'some transactions are still waiting');

    // Shutdown writes fee_estimates.dat (pool transactions counted as unconfirmed): the same bytes.
    const tsDir = nodes.ts.datadir;
    await nodes.ts.stop();
    await nodes.core.stop();
    const tsFile = join(tsDir, 'regtest', 'fee_estimates.dat');
    const coreFile = join(coreDir, 'regtest', 'fee_estimates.dat');
    const tsBytes = readFileSync(tsFile);
    const coreBytes = readFileSync(coreFile);
    assert.ok(coreBytes.length > 100_000, `bitcoind wrote ${coreBytes.length} bytes`);
    assert.ok(tsBytes.equals(coreBytes), 'fee_estimates.dat differs between tsbtcd and bitcoind');

    // Each restarts on the other's file.
    copyFileSync(coreFile, `${tsFile}.core`);
    copyFileSync(tsFile, coreFile);
    copyFileSync(`${tsFile}.core`, tsFile);
    nodes.ts = await nodes.ts.restart({ args: ['-par=1'] });
    nodes.core = await BitcoindProcess.start(bitcoind, ['-connect=0', '-disablewallet'], coreDir);
    assert.match(nodes.ts.debugLog(), /Loading 0 mempool|mempool transactions from disk/);
    assert.ok(!/Failed to read fee estimates/.test(nodes.ts.debugLog()), 'tsbtcd read the file');
    // Wait until bitcoind has reloaded its pool (tsbtcd reloads before answering RPC).
    for (let i = 0; i < 100 && !(await nodes.core.call<{ loaded: boolean }>('getmempoolinfo')).loaded; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal((await nodes.ts.call<{ size: number }>('getmempoolinfo')).size, (await nodes.core.call<{ size: number }>('getmempoolinfo')).size);
    assert.ok((await compareEstimates(nodes, 'restart on each other’s file')) >= 20);
    for (let i = 0; i < 3; i++) {
      const chosen = [...pending.entries()].sort((a, b) => b[1].rate - a[1].rate).slice(0, 4).map(([id]) => id);
      await mine(chosen);
    }
    await compareEstimates(nodes, 'three blocks after the restart');
  } finally {
    await nodes.ts.cleanup();
    await nodes.core.stop();
    rmSync(coreDir, { recursive: true, force: true });
  }
});
