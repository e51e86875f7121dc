/**
 * The mempool against the reference bitcoind v31.0, same inputs, same answers: both nodes
 * (regtest, not connected, the same mock clock) receive the same raw transactions through
 * sendrawtransaction, the same prioritisetransaction calls, and the same blocks through
 * submitblock — most built by bitcoind's generateblock from a chosen part of the pool (so
 * the rest waits), every fifth by bitcoind's own block assembler (generatetoaddress), and
 * a two-block reorg. The pool holds independent transactions of several output kinds at
 * fee rates with many exact ties, chains of children (some paying for their parents),
 * diamonds (a child of two pool parents), full-RBF replacements and prioritised
 * transactions. More than 2,000 transactions over more than 150 blocks.
 *
 * At checkpoints both must answer alike: estimatesmartfee (targets 1, 2, 3, 6, 12, 24, 144,
 * both modes), estimaterawfee, getmempoolinfo (usage aside), the set of pool transactions
 * and each one's verbose entry (fees base/modified/ancestor/descendant/chunk, chunkweight,
 * sizes, counts, relatives), getrawmempool's order (mining order), getmempoolcluster for a quarter of the pool, and
 * getblocktemplate's
 * transactions in order. Differences are
 * collected and printed; the test asserts there are none.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { fromHex, hashToHex, parseBlock, toHex, type Transaction } from '../../src/primitives/index.js';
import { seededRandom, TestWallet, type WalletCoin, type WalletKind } from '../support/wallet.js';
import { exchange } from '../differential/compare-nodes.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon } from './daemon-harness.js';

const reference = referenceBitcoind();
const SMART_TARGETS = [1, 2, 3, 6, 12, 24, 144];
const RAW_QUERIES: [number, number | undefined][] = [
  [1, undefined],
  [3, 0.85],
  [6, 0.6],
  [12, 0.95],
  [48, 0.85],
  [144, undefined],
  [1008, 0.5],
];
/** Fee rates in sat/vB: few values, so equal feerates are common. */
const RATES = [1, 2, 3, 5, 8, 10, 10, 15, 20, 30, 50];
const KINDS: WalletKind[] = ['p2wpkh', 'p2wpkh', 'p2tr-key', 'p2tr-leaf'];
const ROUNDS = 160;
const SECONDS_PER_ROUND = 150;

type Call = (method: string, params: unknown[]) => Promise<unknown>;

interface Pending {
  readonly tx: Transaction;
  /** Pool parents' txids. */
  readonly parents: readonly string[];
}

/** Every answer a checkpoint compares, as one JSON-able object per query. */
async function checkpointAnswers(call: Call): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const target of SMART_TARGETS) {
    for (const mode of ['economical', 'conservative']) out[`estimatesmartfee ${target} ${mode}`] = await call('estimatesmartfee', [target, mode]);
  }
  for (const [target, threshold] of RAW_QUERIES) {
    const params = threshold === undefined ? [target] : [target, threshold];
    out[`estimaterawfee ${params.join(' ')}`] = await call('estimaterawfee', params);
  }
  const info = (await call('getmempoolinfo', [])) as Record<string, unknown>;
  out.getmempoolinfo = info;
  const pool = (await call('getrawmempool', [true])) as Record<string, Record<string, unknown>>;
  out['pool txids'] = Object.keys(pool).sort();
  // Both list the pool in mining order (Core's GetSortedScoreWithTopology).
  out['getrawmempool order'] = await call('getrawmempool', []);
  for (const txid of Object.keys(pool).sort()) {
    const entry = pool[txid]!;
    // Relatives as sets: the order of spentby is not part of the comparison.
    out[`entry ${txid}`] = { ...entry, spentby: [...(entry.spentby as string[])].sort() };
  }
  // Whole clusters as v31's getmempoolcluster reports them: chunks and their order.
  for (const txid of Object.keys(pool).sort().filter((_, i) => i % 4 === 0)) out[`getmempoolcluster ${txid}`] = await call('getmempoolcluster', [txid]);
  const template = (await call('getblocktemplate', [{ rules: ['segwit'] }])) as { transactions: { txid: string; fee: number; sigops: number; weight: number }[] };
  out['getblocktemplate transactions'] = template.transactions.map((t) => [t.txid, t.fee, t.sigops, t.weight]);
  return out;
}

/** The keys whose values differ between two checkpoints' answers. */
function differences(ts: Record<string, unknown>, core: Record<string, unknown>): string[] {
  const keys = new Set([...Object.keys(ts), ...Object.keys(core)]);
  const out: string[] = [];
  for (const key of keys) {
    const a = JSON.stringify(ts[key]);
    const b = JSON.stringify(core[key]);
    if (a !== b) out.push(`${key}\n    tsbtcd:   ${a}\n    bitcoind: ${b}`);
  }
  return out;
}

test(
  'tsbtcd’s mempool and fee estimates answer as bitcoind v31’s over 2,000 transactions and 150 blocks',
  { skip: 'path' in reference ? false : reference.missing, timeout: 900_000 },
  async () => {
    const bitcoind = (reference as { path: string }).path;
    const coreDir = mkdtempSync(join(tmpdir(), 'tsbtcd-mempool-core-'));
    const ts = await Daemon.start({ args: ['-par=1'] });
    const core = await BitcoindProcess.start(bitcoind, ['-connect=0', '-disablewallet'], coreDir);
    try {
      const found: string[] = [];
      const cookie = (datadir: string) => readFileSync(join(datadir, 'regtest', '.cookie'), 'utf8').trim();
      /** The JSON-RPC reply's result or error (code and message), as the node wrote it. */
      const outcome = async (port: number, auth: string, method: string, params: unknown[]) => {
        const request = { label: method, group: method, method: 'POST' as const, path: '/', body: JSON.stringify({ id: 0, method, params }), auth: true };
        const reply = JSON.parse((await exchange(port, auth, request)).body.toString('utf8')) as { result: unknown; error: unknown };
        return reply.error === null ? { result: reply.result } : { error: JSON.stringify(reply.error) };
      };
      /** The same call on both; a different outcome (result or error) is a difference. Returns bitcoind's outcome. */
      const both = async (method: string, params: unknown[]): Promise<{ result?: unknown; error?: string }> => {
        const fromCore = await outcome(core.rpc.port, cookie(coreDir), method, params);
        const fromTs = await outcome(ts.port, cookie(ts.datadir), method, params);
        if (JSON.stringify(fromTs) !== JSON.stringify(fromCore)) {
          found.push(`${method} ${JSON.stringify(params).slice(0, 120)}\n    tsbtcd:   ${JSON.stringify(fromTs)}\n    bitcoind: ${JSON.stringify(fromCore)}`);
        }
        return fromCore;
      };
      let clock = Math.floor(Date.now() / 1000);
      const tick = async (seconds: number) => {
        clock += seconds;
        await core.call('setmocktime', [clock]);
        await ts.call('setmocktime', [clock]);
      };
      await tick(0);

      const wallet = new TestWallet(91);
      const twin = new TestWallet(91);
      const random = seededRandom(20261127);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      let height = 0;
      const pending = new Map<string, Pending>();
      /** Outputs already spent by a pool transaction (the wallet forgets them; the twin does not). */
      const usedOutpoints = new Set<string>();
      const key = (c: WalletCoin) => `${toHex(c.outpoint.txid)}:${c.outpoint.vout}`;
      const childrenOf = (txid: string) => [...pending.entries()].filter(([, p]) => p.parents.includes(txid)).map(([id]) => id);

      const learnBlock = async (hex: string) => {
        height++;
        const block = parseBlock(fromHex(hex));
        wallet.processBlock(block, height);
        twin.processBlock(block, height);
        for (const tx of block.transactions) pending.delete(tx.txidHex);
        // A block may confirm a transaction whose conflicts still sat in our bookkeeping.
        const pool = new Set(await core.call<string[]>('getrawmempool', []));
        for (const id of [...pending.keys()]) if (!pool.has(id)) pending.delete(id);
      };
      const mineChosen = async (txids: string[], to = wallet.address('p2wpkh')): Promise<string> => {
        const { hex } = await core.call<{ hex: string }>('generateblock', [to, txids, false]);
        assert.equal(await core.call('submitblock', [hex]), null);
        assert.equal(await ts.call('submitblock', [hex]), null);
        await learnBlock(hex);
        const tip = await core.call<string>('getbestblockhash');
        assert.equal(await ts.call('getbestblockhash'), tip);
        return tip;
      };
      /** A block bitcoind's own assembler fills from its pool. */
      const mineByCore = async (): Promise<void> => {
        const [hash] = await core.call<string[]>('generatetoaddress', [1, wallet.address('p2tr-key')]);
        const hex = await core.call<string>('getblock', [hash, 0]);
        assert.equal(await ts.call('submitblock', [hex]), null);
        await learnBlock(hex);
        assert.equal(await ts.call('getbestblockhash'), hash);
      };
      let sent = 0;
      /** Transactions bitcoind refused (the scenario's bookkeeping can lag a replacement or a reorg). */
      const refused: string[] = [];
      const send = async (tx: Transaction, parents: readonly string[]): Promise<void> => {
        const { error } = await both('sendrawtransaction', [toHex(tx.toBytes())]);
        if (error !== undefined) {
          refused.push(error);
          return;
        }
        for (const input of tx.inputs) usedOutpoints.add(`${toHex(input.prevout.txid)}:${input.prevout.vout}`);
        pending.set(tx.txidHex, { tx, parents });
        sent++;
      };
      /** `total` split over outputs of these kinds (a number: that many of random kinds). */
      const outputs = (total: bigint, kinds: number | readonly WalletKind[]) => {
        const list = typeof kinds === 'number' ? Array.from({ length: kinds }, () => pick(KINDS)) : kinds;
        const share = total / BigInt(list.length);
        return list.map((to, i) => ({ value: i === list.length - 1 ? total - share * BigInt(list.length - 1) : share, to }));
      };

      let checkpoints = 0;
      let compared = 0;
      const checkpoint = async (label: string) => {
        const [a, b] = [await checkpointAnswers((m, p) => ts.call(m, p)), await checkpointAnswers((m, p) => core.call(m, p))];
        checkpoints++;
        compared += Object.keys(b).length;
        for (const d of differences(a, b)) found.push(`${label}: ${d}`);
      };

      for (let i = 0; i < 110; i++) await mineChosen([]);
      // Sixteen mature coinbases fanned out into 640 confirmed coins.
      const fanouts: string[] = [];
      for (const coin of wallet.spendable(height + 1).filter((c) => c.coinbase).slice(0, 16)) {
        const tx = wallet.spend([coin], outputs(coin.value - 100_000n, 40));
        await send(tx, []);
        fanouts.push(tx.txidHex);
      }
      await mineChosen(fanouts);
      await checkpoint('after the fan-out');

      let replaced = 0;
      let prioritised = 0;
      let cpfp = 0;
      let diamonds = 0;
      for (let round = 1; round <= ROUNDS; round++) {
        await tick(SECONDS_PER_ROUND);
        const confirmed = wallet.spendable(height + 1).filter((c) => c.height !== null && !c.coinbase && c.value > 300_000n);
        const count = 9 + Math.floor(random() * 6);
        for (let i = 0; i < count && confirmed.length > 1; i++) {
          const inputs = [confirmed.splice(Math.floor(random() * confirmed.length), 1)[0]!];
          if (random() < 0.2) inputs.push(confirmed.splice(Math.floor(random() * confirmed.length), 1)[0]!);
          const rate = BigInt(pick(RATES));
          const outputCount = 1 + Math.floor(random() * 3);
          const total = inputs.reduce((a, c) => a + c.value, 0n);
          // Signed once to learn the size, then paying rate × vsize (an ECDSA signature may come out a byte shorter or longer).
          const kinds = Array.from({ length: outputCount }, () => pick(KINDS));
          const fee = rate * BigInt(Math.ceil(wallet.sign(inputs, outputs(total - 1000n, kinds)).weight / 4));
          const tx = wallet.spend(inputs, outputs(total - fee, kinds));
          await send(tx, []);
        }
        // Children: a chain link paying less than its parent, or a CPFP child paying more.
        for (let c = 0; c < 3; c++) {
          const candidates = [...pending.entries()].filter(([id, p]) => p.parents.length < 2 && childrenOf(id).length < 2);
          if (candidates.length === 0) break;
          const [parentId, parent] = pick(candidates);
          const coin = wallet.spendable(height + 1).find((w) => toHex(w.outpoint.txid) === toHex(parent.tx.txid) && !usedOutpoints.has(key(w)));
          if (!coin || coin.value < 50_000n) continue;
          const payMore = random() < 0.4;
          const rate = BigInt(payMore ? 40 + Math.floor(random() * 40) : pick(RATES));
          if (payMore) cpfp++;
          const tx = wallet.spend([coin], outputs(coin.value - rate * 150n, 1 + Math.floor(random() * 2)));
          await send(tx, [parentId]);
        }
        // A diamond: one child of two pool transactions.
        if (round % 4 === 0) {
          const owned = wallet.spendable(height + 1).filter((w) => w.height === null && pending.has(hashToHex(w.outpoint.txid)) && !usedOutpoints.has(key(w)) && w.value > 50_000n);
          const byParent = new Map<string, WalletCoin>();
          for (const w of owned) byParent.set(hashToHex(w.outpoint.txid), w);
          const two = [...byParent.values()].slice(0, 2);
          if (two.length === 2) {
            const tx = wallet.spend(two, outputs(two[0]!.value + two[1]!.value - BigInt(pick(RATES)) * 220n, 2));
            await send(tx, two.map((w) => hashToHex(w.outpoint.txid)));
            diamonds++;
          }
        }
        // A full-RBF replacement of a childless transaction with confirmed inputs, by the twin.
        if (round % 5 === 0) {
          const victims = [...pending.entries()].filter(([id, p]) => p.parents.length === 0 && childrenOf(id).length === 0);
          if (victims.length > 0) {
            const [victimId, victim] = pick(victims);
            const coins = victim.tx.inputs.map((input) => twin.spendable(height + 1).find((t) => toHex(t.outpoint.txid) === toHex(input.prevout.txid) && t.outpoint.vout === input.prevout.vout));
            if (coins.every((c) => c !== undefined)) {
              const total = coins.reduce((a, c) => a + c!.value, 0n);
              const tx = twin.spend(coins as WalletCoin[], [{ value: total - 80n * 200n, to: 'p2wpkh' }]);
              await send(tx, []);
              pending.delete(victimId);
              // Descendants the bookkeeping did not know of (after the reorg) left with it.
              const pool = new Set(await core.call<string[]>('getrawmempool', []));
              for (const id of [...pending.keys()]) if (!pool.has(id)) pending.delete(id);
              replaced++;
            }
          }
        }
        // prioritisetransaction: on a pool transaction (up or down), or before a transaction arrives.
        if (round % 3 === 0 && pending.size > 0) {
          const [id] = pick([...pending.entries()]);
          const delta = pick([-2000, -500, 700, 5000, 20000]);
          await both('prioritisetransaction', [id, 0, delta]);
          prioritised++;
        }
        if (round % 5 === 0) await mineByCore();
        else {
          // The chosen block: the best-paying part of bitcoind's own ordering, parents first.
          const take = 4 + Math.floor(random() * 10);
          const template = await core.call<{ transactions: { txid: string }[] }>('getblocktemplate', [{ rules: ['segwit'] }]);
          await mineChosen(template.transactions.slice(0, take).map((t) => t.txid));
        }
        if (round === 60) {
          // Two blocks disconnected on both; the transactions return; a new branch confirms some.
          const tip = await core.call<string>('getbestblockhash');
          const prev = await core.call<string>('getblockhash', [height - 1]);
          await core.call('invalidateblock', [prev]);
          await ts.call('invalidateblock', [prev]);
          height -= 2;
          for (const hash of [tip, prev]) {
            const block = parseBlock(fromHex(await core.call<string>('getblock', [hash, 0])));
            for (const tx of block.transactions) if (!tx.isCoinbase()) pending.set(tx.txidHex, { tx, parents: [] });
          }
          assert.equal(await ts.call('getbestblockhash'), await core.call('getbestblockhash'));
          await checkpoint('after a two-block reorg');
          // A later time: the new blocks must not be the invalidated ones again.
          await tick(1);
          await mineByCore();
          await mineByCore();
        }
        if (round % 8 === 0 || round === ROUNDS) await checkpoint(`round ${round} (height ${height})`);
      }
      console.log(
        `mempool vs bitcoind: ${sent} transactions, ${height} blocks, ${replaced} replacements, ${prioritised} prioritisations, ${cpfp} CPFP children, ${diamonds} diamonds; ` +
          `${checkpoints} checkpoints, ${compared} answers compared, ${found.length} different; bitcoind refused ${refused.length}`,
      );
      for (const r of refused.slice(0, 5)) console.log(`refused: ${r}`);
      const kinds = new Map<string, number>();
      for (const d of found) {
        const kind = d.split('\n')[0]!.replace(/^round \d+ \(height \d+\): |^after [a-z -]*: /, '').replace(/[0-9a-f]{64}/g, '<txid>').replace(/ \[.*/, '');
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
      for (const [kind, n] of kinds) console.log(`${n} × ${kind}`);
      for (const d of found.slice(0, 20)) console.log(d);
      assert.ok(sent >= 2000, `${sent} transactions sent`);
      assert.ok(height >= 150, `${height} blocks`);
      assert.equal(found.length, 0, `${found.length} differences (the first are printed above)`);
    } finally {
      await ts.cleanup();
      await core.stop();
      rmSync(coreDir, { recursive: true, force: true });
    }
  },
);
