/**
 * Packages, TRUC and ephemeral dust, differentially: the same scripted submissions
 * (submitpackage, testmempoolaccept with several transactions, sendrawtransaction) go to
 * tsbtcd and to the reference bitcoind v31.0, and the two transcripts — results and
 * errors, with transaction ids replaced by the scenario's names for them — must be equal.
 * The scenarios cover a parent below the minimum fee entering with its child (package
 * feerate), a package failing on its feerate, malformed packages, maxfeerate and
 * maxburnamount, package RBF, each TRUC rule (sizes, inheritance, ancestor and descendant
 * limits, sibling eviction, package TRUC checks), ephemeral dust, same-txid-other-witness
 * transactions, packages refused whole (package-not-validated) and cluster limits.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { concatBytes, fromHex, parseBlock, toHex, Transaction } from '../../src/primitives/index.js';
import { OP, PrecomputedTransactionData, pushData, SIGHASH_ALL, taprootSignatureHash } from '../../src/script/index.js';
import { spendKey } from '../support/spends.js';
import { schnorrSign, TestWallet, type PaymentOutput, type SpendOptions, type WalletCoin } from '../support/wallet.js';
import { cleanupsAfterTests, NODE_STARTERS, type NodeUnderTest, type Starter } from './node-under-test.js';

const cleanups = cleanupsAfterTests();

interface Step {
  readonly step: string;
  readonly result?: unknown;
  readonly error?: { code: number; message: string };
}

/** One node's run of the scenarios: every step's answer, ids named. */
class Transcript {
  readonly steps: Step[] = [];
  private readonly names = new Map<string, string>();

  constructor(
    readonly node: NodeUnderTest,
    readonly wallet: TestWallet,
  ) {}

  name(tx: Transaction, label: string): Transaction {
    this.names.set(tx.txidHex, `${label}.txid`);
    this.names.set(tx.wtxidHex, `${label}.wtxid`);
    return tx;
  }

  private named(value: unknown): unknown {
    let text = JSON.stringify(value ?? null);
    for (const [id, label] of this.names) text = text.split(id).join(label);
    return JSON.parse(text);
  }

  async call<T = any>(step: string, method: string, params: unknown[]): Promise<T | undefined> {
    try {
      const result = await this.node.call<T>(method, params);
      this.steps.push({ step, result: this.named(result) });
      return result;
    } catch (e) {
      const err = e as Error & { code: number };
      this.steps.push({ step, error: { code: err.code, message: this.named(err.message.replace(/^\w+: /, '').replace(/^error -?\d+: /, '')) as string } });
      return undefined;
    }
  }

  /** getmempoolinfo's count of transactions submitted here and not yet announced. */
  async unbroadcast(step: string): Promise<void> {
    const info = await this.node.call<{ unbroadcastcount: number }>('getmempoolinfo');
    this.steps.push({ step, result: info.unbroadcastcount });
  }

  /** Core's replacement debug lines so far (their order among one replacement's evictions is Core's set order: sorted here). */
  replacementLog(step: string): void {
    // Package hashes are left as they are: both nodes build the same coinbases, so the same transactions.
    const lines = [...this.node.log().matchAll(/(replacing mempool tx .*|replaced \d+ mempool transactions .*)$/gm)].map((m) => m[1]!);
    this.steps.push({ step, result: (this.named(lines) as string[]).sort() });
  }

  async mempool(step: string): Promise<void> {
    const ids = await this.node.call<string[]>('getrawmempool');
    this.steps.push({ step, result: (this.named(ids) as string[]).sort() });
  }
}

const hex = (tx: Transaction): string => toHex(tx.toBytes());
const KEY: PaymentOutput['to'] = 'p2tr-key';

async function mine(node: NodeUnderTest, wallet: TestWallet, n: number): Promise<void> {
  const hashes = await node.call<string[]>('generatetoaddress', [n, wallet.address('p2tr-key')]);
  for (const hash of hashes) {
    const block = parseBlock(fromHex(await node.call<string>('getblock', [hash, 0])));
    wallet.processBlock(block, (await node.call<{ height: number }>('getblockheader', [hash])).height);
  }
}

/** The output `vout` of a transaction the wallet built, as a coin to spend. */
function coinOf(wallet: TestWallet, tx: Transaction, vout: number): WalletCoin {
  const coin = wallet.spendable(1_000_000).find((c) => c.outpoint.txid === tx.txid && c.outpoint.vout === vout);
  if (!coin) throw new Error(`no coin ${tx.txidHex}:${vout}`);
  return coin;
}

/** A spend of `inputs` paying `fee`, to `count` equal outputs (the last takes the remainder) plus `extra` outputs. */
function pay(wallet: TestWallet, inputs: readonly WalletCoin[], fee: bigint, options: SpendOptions & { count?: number; extra?: PaymentOutput[] } = {}): Transaction {
  const extra = options.extra ?? [];
  const total = inputs.reduce((a, c) => a + c.value, 0n) - fee - extra.reduce((a, o) => a + o.value, 0n);
  const count = BigInt(options.count ?? 1);
  const each = total / count;
  const outputs: PaymentOutput[] = [];
  for (let i = 0n; i < count; i++) outputs.push({ value: i === count - 1n ? total - each * (count - 1n) : each, to: KEY });
  return wallet.spend(inputs, [...outputs, ...extra], options);
}

async function runScenarios(t: Transcript): Promise<void> {
  const { wallet } = t;
  await t.call('help submitpackage', 'help', ['submitpackage']);
  await t.call('help testmempoolaccept', 'help', ['testmempoolaccept']);
  await mine(t.node, wallet, 140);
  const height = await t.node.call<number>('getblockcount');
  const coins = wallet.spendable(height + 1).filter((c) => c.coinbase);
  let next = 0;
  const coin = (): WalletCoin => coins[next++]!;

  // A. CPFP: a parent paying nothing enters with its child, by the package feerate.
  const p0 = t.name(pay(wallet, [coin()], 0n), 'P0');
  const c0 = t.name(pay(wallet, [coinOf(wallet, p0, 0)], 20_000n), 'C0');
  await t.call('A1 parent alone', 'sendrawtransaction', [hex(p0)]);
  await t.call('A2 testmempoolaccept parent+child', 'testmempoolaccept', [[hex(p0), hex(c0)]]);
  await t.call('A3 testmempoolaccept child alone', 'testmempoolaccept', [[hex(c0)]]);
  await t.call('A4 submitpackage parent+child', 'submitpackage', [[hex(p0), hex(c0)]]);
  await t.call('A5 submitpackage again', 'submitpackage', [[hex(p0), hex(c0)]]);
  await t.mempool('A6 mempool');
  await t.unbroadcast('A7 unbroadcast');

  // B. testmempoolaccept with several transactions, and malformed packages.
  const c1coin = coin();
  const p1 = t.name(pay(wallet, [c1coin], 1_000n, { count: 2 }), 'P1');
  const k1 = t.name(pay(wallet, [coinOf(wallet, p1, 0)], 2_000n), 'K1');
  const p1b = t.name(pay(wallet, [c1coin], 1_500n, { conflicting: true }), 'P1b');
  const x1 = t.name(pay(wallet, [coin()], 3_000n), 'X1');
  await t.call('B1 parent+child', 'testmempoolaccept', [[hex(p1), hex(k1)]]);
  await t.call('B2 not sorted', 'testmempoolaccept', [[hex(k1), hex(p1)]]);
  await t.call('B3 duplicates', 'testmempoolaccept', [[hex(p1), hex(p1)]]);
  await t.call('B4 conflict in package', 'testmempoolaccept', [[hex(p1), hex(p1b)]]);
  await t.call('B5 maxfeerate', 'testmempoolaccept', [[hex(p1), hex(k1)], 0.00001]);
  await t.call('B6 empty', 'testmempoolaccept', [[]]);
  await t.call('B7 too many', 'testmempoolaccept', [Array(26).fill(hex(p1))]);
  await t.call('B8 unrelated', 'testmempoolaccept', [[hex(p1), hex(x1)]]);
  await t.call('B9 submitpackage unrelated', 'submitpackage', [[hex(p1), hex(x1)]]);
  await t.call('B10 submitpackage empty', 'submitpackage', [[]]);
  await t.call('B11 submitpackage too many', 'submitpackage', [Array(26).fill(hex(p1))]);
  await t.call('B12 submitpackage not sorted', 'submitpackage', [[hex(k1), hex(p1)]]);
  await t.call('B13 submitpackage child alone', 'submitpackage', [[hex(k1)]]);
  await t.call('B14 submitpackage parent alone', 'submitpackage', [[hex(p1)]]);
  await t.call('B15 submitpackage parent in pool + child', 'submitpackage', [[hex(p1), hex(k1)]]);
  const k1b = t.name(pay(wallet, [coinOf(wallet, p1, 1)], 2_000n), 'K1b');
  await t.call('B16 submitpackage child of pooled parent', 'submitpackage', [[hex(k1b)]]);
  await t.call('B17 testmempoolaccept pooled tx in package', 'testmempoolaccept', [[hex(p1), hex(k1)]]);
  const burn = t.name(pay(wallet, [coin()], 2_000n, { extra: [{ value: 1_000n, to: concatBytes(Uint8Array.of(OP.OP_RETURN), pushData(Uint8Array.of(1, 2, 3))) }] }), 'BURN');
  await t.call('B18 maxburnamount', 'submitpackage', [[hex(burn)]]);
  await t.call('B19 maxburnamount raised', 'submitpackage', [[hex(burn)], 0.1, 0.00001]);
  const p2 = t.name(pay(wallet, [coin()], 0n), 'P2');
  const c2 = t.name(pay(wallet, [coinOf(wallet, p2, 0)], 100_000_000n), 'C2');
  await t.call('B20 maxfeerate exceeded', 'submitpackage', [[hex(p2), hex(c2)]]);
  await t.call('B21 maxfeerate bad', 'submitpackage', [[hex(p2), hex(c2)], 1]);
  await t.call('B22 maxfeerate 0', 'testmempoolaccept', [[hex(p2), hex(c2)], 0]);

  // C. A package whose feerate is below the minimum.
  const p3 = t.name(pay(wallet, [coin()], 0n), 'P3');
  const c3 = t.name(pay(wallet, [coinOf(wallet, p3, 0)], 1n), 'C3');
  await t.call('C1 package below min fee', 'submitpackage', [[hex(p3), hex(c3)]]);
  await t.mempool('C2 mempool');

  // D. TRUC.
  const t0 = t.name(pay(wallet, [coin()], 0n, { version: 3, count: 3 }), 'T0');
  const tc0 = t.name(pay(wallet, [coinOf(wallet, t0, 0)], 5_000n, { version: 3 }), 'TC0');
  await t.call('D1 zero-fee TRUC alone', 'sendrawtransaction', [hex(t0)]);
  await t.call('D2 zero-fee TRUC testmempoolaccept', 'testmempoolaccept', [[hex(t0)]]);
  await t.call('D3 TRUC package', 'testmempoolaccept', [[hex(t0), hex(tc0)]]);
  await t.call('D4 TRUC submitpackage', 'submitpackage', [[hex(t0), hex(tc0)]]);
  const t0out1 = coinOf(wallet, t0, 1);
  const sibLow = t.name(pay(wallet, [t0out1], 3_000n, { version: 3 }), 'TSIBLOW');
  await t.call('D5 sibling paying less', 'sendrawtransaction', [hex(sibLow)]);
  const sib = t.name(pay(wallet, [t0out1], 12_000n, { version: 3, conflicting: true }), 'TSIB');
  await t.call('D6 sibling eviction', 'sendrawtransaction', [hex(sib)]);
  await t.mempool('D7 mempool');
  const grand = t.name(pay(wallet, [coinOf(wallet, sib, 0)], 5_000n, { version: 3 }), 'TGRAND');
  await t.call('D8 grandchild', 'sendrawtransaction', [hex(grand)]);
  await t.call('D8b grandchild testmempoolaccept', 'testmempoolaccept', [[hex(grand)]]);
  const v2child = t.name(pay(wallet, [coinOf(wallet, t0, 2)], 5_000n), 'TV2CHILD');
  await t.call('D9 non-TRUC child of TRUC', 'sendrawtransaction', [hex(v2child)]);
  const n0 = t.name(pay(wallet, [coin()], 1_000n), 'N0');
  await t.call('D10 non-TRUC parent', 'sendrawtransaction', [hex(n0)]);
  const v3child = t.name(pay(wallet, [coinOf(wallet, n0, 0)], 5_000n, { version: 3 }), 'TV3CHILD');
  await t.call('D11 TRUC child of non-TRUC', 'sendrawtransaction', [hex(v3child)]);
  const big = t.name(pay(wallet, [coin()], 200_000n, { version: 3, count: 240 }), 'TBIG');
  await t.call('D12 TRUC too big', 'sendrawtransaction', [hex(big)]);
  const t2 = t.name(pay(wallet, [coin()], 1_000n, { version: 3, count: 2 }), 'T2');
  await t.call('D13 TRUC parent', 'sendrawtransaction', [hex(t2)]);
  const bigChild = t.name(pay(wallet, [coinOf(wallet, t2, 0)], 20_000n, { version: 3, count: 25 }), 'TBIGCHILD');
  await t.call('D14 TRUC child too big', 'sendrawtransaction', [hex(bigChild)]);
  const t3 = t.name(pay(wallet, [coin()], 1_000n, { version: 3 }), 'T3');
  const t3v2 = t.name(pay(wallet, [coinOf(wallet, t3, 0)], 2_000n), 'T3V2');
  await t.call('D15 package non-TRUC child of TRUC', 'testmempoolaccept', [[hex(t3), hex(t3v2)]]);
  await t.call('D16 submitpackage non-TRUC child of TRUC', 'submitpackage', [[hex(t3), hex(t3v2)]]);
  const t4 = t.name(pay(wallet, [coin()], 0n), 'T4');
  const t4v3 = t.name(pay(wallet, [coinOf(wallet, t4, 0)], 20_000n, { version: 3 }), 'T4V3');
  await t.call('D17 package TRUC child of non-TRUC', 'testmempoolaccept', [[hex(t4), hex(t4v3)]]);
  await t.call('D18 submitpackage TRUC child of non-TRUC', 'submitpackage', [[hex(t4), hex(t4v3)]]);
  const t5 = t.name(pay(wallet, [coin()], 0n, { version: 3 }), 'T5');
  const t5big = t.name(pay(wallet, [coinOf(wallet, t5, 0)], 30_000n, { version: 3, count: 25 }), 'T5BIG');
  await t.call('D19 package TRUC child too big', 'submitpackage', [[hex(t5), hex(t5big)]]);
  const t6 = t.name(pay(wallet, [coin()], 2_000n, { version: 3, count: 2 }), 'T6');
  const t6a = t.name(pay(wallet, [coinOf(wallet, t6, 0)], 2_000n, { version: 3 }), 'T6A');
  const t6b = t.name(pay(wallet, [coinOf(wallet, t6, 1)], 2_000n, { version: 3 }), 'T6B');
  await t.call('D21 testmempoolaccept TRUC parent and two children', 'testmempoolaccept', [[hex(t6), hex(t6a), hex(t6b)]]);
  const t6grand = t.name(pay(wallet, [coinOf(wallet, t6a, 0)], 2_000n, { version: 3 }), 'T6GRAND');
  await t.call('D22 testmempoolaccept TRUC chain of three', 'testmempoolaccept', [[hex(t6), hex(t6a), hex(t6grand)]]);
  await t.call('D23 TRUC parent alone', 'sendrawtransaction', [hex(t6)]);
  await t.call('D24 testmempoolaccept TRUC child and grandchild of a pooled parent', 'testmempoolaccept', [[hex(t6a), hex(t6grand)]]);
  await t.call('D25 testmempoolaccept two TRUC children of a pooled parent', 'testmempoolaccept', [[hex(t6a), hex(t6b)]]);
  await t.mempool('D20 mempool');

  // E. Package RBF.
  const rcoin = coin();
  const r1 = t.name(pay(wallet, [rcoin], 1_000n), 'R1');
  await t.call('E1 original', 'sendrawtransaction', [hex(r1)]);
  const r3 = t.name(pay(wallet, [rcoin], 0n, { conflicting: true }), 'R3');
  const rc3 = t.name(pay(wallet, [coinOf(wallet, r3, 0)], 500n), 'RC3');
  await t.call('E2 package RBF paying too little', 'submitpackage', [[hex(r3), hex(rc3)]]);
  await t.call('E3 testmempoolaccept conflicting package', 'testmempoolaccept', [[hex(r3), hex(rc3)]]);
  const r2 = t.name(pay(wallet, [rcoin], 0n, { conflicting: true }), 'R2');
  const rc2 = t.name(pay(wallet, [coinOf(wallet, r2, 0)], 50_000n), 'RC2');
  await t.call('E4 package RBF', 'submitpackage', [[hex(r2), hex(rc2)]]);
  await t.mempool('E5 mempool');
  const r4 = t.name(pay(wallet, [rcoin], 100n, { conflicting: true }), 'R4');
  const rc4a = t.name(pay(wallet, [coinOf(wallet, r4, 0)], 60_000n), 'RC4');
  await t.call('E6 package RBF parent feerate above package', 'submitpackage', [[hex(r4), hex(rc4a)]]);
  const r5 = t.name(pay(wallet, [rcoin], 200_000n, { conflicting: true }), 'R5');
  const rc5 = t.name(pay(wallet, [coinOf(wallet, r5, 0)], 1_000n), 'RC5');
  await t.call('E7 package RBF parent pays alone', 'submitpackage', [[hex(r5), hex(rc5)]]);
  await t.mempool('E8 mempool');

  // F. Ephemeral dust.
  const dust: PaymentOutput = { value: 0n, to: KEY };
  const e0 = t.name(pay(wallet, [coin()], 0n, { version: 3, extra: [dust] }), 'E0');
  await t.call('F1 dusty parent alone', 'sendrawtransaction', [hex(e0)]);
  const e0out0 = coinOf(wallet, e0, 0);
  const ec0bad = t.name(pay(wallet, [e0out0], 10_000n, { version: 3 }), 'EC0BAD');
  await t.call('F2 child leaving the dust', 'submitpackage', [[hex(e0), hex(ec0bad)]]);
  await t.call('F2b testmempoolaccept child leaving the dust', 'testmempoolaccept', [[hex(e0), hex(ec0bad)]]);
  const e1 = t.name(pay(wallet, [coin()], 1_000n, { version: 3, extra: [dust] }), 'E1');
  await t.call('F3 dust with fee', 'sendrawtransaction', [hex(e1)]);
  const ec0 = t.name(pay(wallet, [e0out0, coinOf(wallet, e0, 1)], 10_000n, { version: 3, conflicting: true }), 'EC0');
  await t.call('F4 child spending the dust', 'submitpackage', [[hex(e0), hex(ec0)]]);
  await t.mempool('F5 mempool');
  await t.unbroadcast('F6 unbroadcast');

  // G. More package shapes: a failing script after a passing transaction, a child below
  // the minimum after a parent that pays for itself, two TRUC parents of one TRUC child.
  const g0 = t.name(pay(wallet, [coin()], 1_000n), 'G0');
  const g0child = pay(wallet, [coinOf(wallet, g0, 0)], 1_000n);
  const witness = g0child.inputs[0]!.witness.map((item) => Uint8Array.from(item));
  witness[0]![10]! ^= 1;
  const g0bad = t.name(new Transaction({ version: g0child.version, inputs: [{ ...g0child.inputs[0]!, witness }], outputs: g0child.outputs, locktime: g0child.locktime }), 'G0BAD');
  await t.call('G1 script failure after a valid parent', 'testmempoolaccept', [[hex(g0), hex(g0bad)]]);
  await t.call('G2 submitpackage script failure', 'submitpackage', [[hex(g0), hex(g0bad)]]);
  const g1 = t.name(pay(wallet, [coin()], 1_000n), 'G1');
  const g1child = t.name(pay(wallet, [coinOf(wallet, g1, 0)], 0n), 'G1CHILD');
  await t.call('G3 child below the minimum', 'submitpackage', [[hex(g1), hex(g1child)]]);
  const ga = t.name(pay(wallet, [coin()], 0n, { version: 3 }), 'GA');
  const gb = t.name(pay(wallet, [coin()], 0n, { version: 3 }), 'GB');
  const gc = t.name(pay(wallet, [coinOf(wallet, ga, 0), coinOf(wallet, gb, 0)], 30_000n, { version: 3 }), 'GC');
  await t.call('G4 TRUC child of two TRUC parents', 'submitpackage', [[hex(ga), hex(gb), hex(gc)]]);
  await t.call('G5 testmempoolaccept TRUC child of two TRUC parents', 'testmempoolaccept', [[hex(ga), hex(gb), hex(gc)], 0]);
  const gd = t.name(pay(wallet, [coin()], 2_000n), 'GD');
  const ge = t.name(pay(wallet, [coinOf(wallet, gd, 0)], 2_000n), 'GE');
  const gf = t.name(pay(wallet, [coinOf(wallet, ge, 0)], 2_000n), 'GF');
  await t.call('G6 submitpackage grandparent chain', 'submitpackage', [[hex(gd), hex(ge), hex(gf)]]);
  await t.call('G7 testmempoolaccept chain of three', 'testmempoolaccept', [[hex(gd), hex(ge), hex(gf)]]);
  await t.call('G8 submitpackage bad hex', 'submitpackage', [['00zz']]);
  await t.call('G9 submitpackage not a string', 'submitpackage', [[1]]);
  await t.mempool('G10 mempool');

  // H. Replacement refusals: a feerate diagram made worse, and package RBF's own rules.
  const hcoin = coin();
  const h0 = t.name(pay(wallet, [hcoin], 10_000n), 'H0');
  await t.call('H1 original', 'sendrawtransaction', [hex(h0)]);
  const hwide = t.name(pay(wallet, [hcoin], 10_200n, { count: 25, conflicting: true }), 'HWIDE');
  await t.call('H2 replacement worsening the diagram', 'sendrawtransaction', [hex(hwide)]);
  const h1 = t.name(pay(wallet, [hcoin], 9_000n, { conflicting: true }), 'H1');
  const h1child = t.name(pay(wallet, [coinOf(wallet, h1, 0)], 2_000n), 'H1CHILD');
  await t.call('H3 package RBF child below parent feerate', 'submitpackage', [[hex(h1), hex(h1child)]]);
  const pooledCoin = coin();
  const pooled = t.name(pay(wallet, [pooledCoin], 1_000n), 'HPOOLED');
  await t.call('H4 pooled parent', 'sendrawtransaction', [hex(pooled)]);
  const pooledOut = coinOf(wallet, pooled, 0);
  const h2 = t.name(pay(wallet, [hcoin, pooledOut], 0n, { conflicting: true }), 'H2');
  const h2child = t.name(pay(wallet, [coinOf(wallet, h2, 0)], 80_000n), 'H2CHILD');
  await t.call('H5 package RBF with a pooled ancestor', 'submitpackage', [[hex(h2), hex(h2child)]]);
  const h3a = t.name(pay(wallet, [hcoin], 0n, { conflicting: true }), 'H3A');
  const h3b = t.name(pay(wallet, [coin()], 0n), 'H3B');
  const h3child = t.name(pay(wallet, [coinOf(wallet, h3a, 0), coinOf(wallet, h3b, 0)], 90_000n), 'H3CHILD');
  await t.call('H6 package RBF with two parents', 'submitpackage', [[hex(h3a), hex(h3b), hex(h3child)]]);
  const h4 = t.name(pay(wallet, [pooledCoin, pooledOut], 0n, { conflicting: true }), 'H4');
  const h4child = t.name(pay(wallet, [coinOf(wallet, h4, 0)], 80_000n), 'H4CHILD');
  await t.call('H8 package RBF spending its own conflict', 'submitpackage', [[hex(h4), hex(h4child)]]);
  const h5 = t.name(pay(wallet, [hcoin], 0n, { conflicting: true }), 'H5');
  const h5child = t.name(pay(wallet, [coinOf(wallet, h5, 0)], 11_000n, { count: 25 }), 'H5CHILD');
  await t.call('H9 package RBF worsening the diagram', 'submitpackage', [[hex(h5), hex(h5child)]]);
  await t.mempool('H7 mempool');

  // I. TRUC siblings where packages are involved: no sibling eviction among several
  // transactions tested together; a pooled parent left out of submitpackage, whose new
  // child then evicts the old one alone.
  const tp = t.name(pay(wallet, [coin()], 1_000n, { version: 3, count: 2 }), 'TP');
  await t.call('I1 TRUC parent', 'sendrawtransaction', [hex(tp)]);
  const tpc1 = t.name(pay(wallet, [coinOf(wallet, tp, 0)], 2_000n, { version: 3 }), 'TPC1');
  await t.call('I2 first child', 'sendrawtransaction', [hex(tpc1)]);
  const tpc2 = t.name(pay(wallet, [coinOf(wallet, tp, 1)], 9_000n, { version: 3 }), 'TPC2');
  const other = t.name(pay(wallet, [coin()], 1_000n), 'IOTHER');
  await t.call('I3 testmempoolaccept sibling alone', 'testmempoolaccept', [[hex(tpc2)]]);
  await t.call('I4 testmempoolaccept sibling among several', 'testmempoolaccept', [[hex(other), hex(tpc2)]]);
  await t.call('I5 submitpackage pooled parent and sibling', 'submitpackage', [[hex(tp), hex(tpc2)]]);
  await t.mempool('I6 mempool');

  // J. The same transaction with another witness already pooled: left out as Core does.
  const wcoin = coin();
  const w = t.name(pay(wallet, [wcoin], 1_000n), 'W');
  const w2 = t.name(withSighashAllWitness(w, wcoin, wallet.seed), 'W2');
  assert.equal(w2.txidHex, w.txidHex);
  assert.notEqual(w2.wtxidHex, w.wtxidHex);
  await t.call('J1 original witness', 'sendrawtransaction', [hex(w)]);
  await t.call('J2 testmempoolaccept other witness', 'testmempoolaccept', [[hex(w2)]]);
  const wchild = t.name(pay(wallet, [coinOf(wallet, w, 0)], 2_000n), 'WCHILD');
  await t.call('J3 submitpackage other witness and child', 'submitpackage', [[hex(w2), hex(wchild)]]);

  // K. Packages refused before any transaction is looked at.
  const kcoin = coin();
  const kp1 = t.name(pay(wallet, [kcoin], 1_000n), 'KP1');
  const kp2 = t.name(pay(wallet, [kcoin], 2_000n, { conflicting: true }), 'KP2');
  const kc = t.name(pay(wallet, [coinOf(wallet, kp1, 0), coinOf(wallet, kp2, 0)], 5_000n), 'KC');
  await t.call('K1 submitpackage parents spending one coin', 'submitpackage', [[hex(kp1), hex(kp2), hex(kc)]]);
  await t.call('K2 submitpackage child with a parent left out and unknown', 'submitpackage', [[hex(kp1), hex(kc)]]);
  const kbig = t.name(pay(wallet, [coin()], 100_000n, { count: 1800 }), 'KBIG');
  const kbigChild = t.name(pay(wallet, [coinOf(wallet, kbig, 0)], 100_000n, { count: 600 }), 'KBIGCHILD');
  await t.call('K3 submitpackage too large', 'submitpackage', [[hex(kbig), hex(kbigChild)]]);
  await t.call('K4 testmempoolaccept too large', 'testmempoolaccept', [[hex(kbig), hex(kbigChild)]]);
  await t.mempool('K5 mempool');

  // Z. The fee estimator tracks what entered alone with no pooled parent, not package members.
  await t.call('Z1 estimaterawfee', 'estimaterawfee', [2]);
  t.replacementLog('Z2 replacement log');
}

/** Cluster limits with -limitclustercount=3: a package making a cluster of four is refused as a whole. */
async function runClusterScenario(t: Transcript): Promise<void> {
  const { wallet } = t;
  await mine(t.node, wallet, 105);
  const height = await t.node.call<number>('getblockcount');
  const coins = wallet.spendable(height + 1).filter((c) => c.coinbase);
  const a = t.name(pay(wallet, [coins[0]!], 1_000n), 'A');
  await t.call('L1 grandparent', 'sendrawtransaction', [hex(a)]);
  const b = t.name(pay(wallet, [coinOf(wallet, a, 0)], 1_000n), 'B');
  await t.call('L2 parent', 'sendrawtransaction', [hex(b)]);
  const b0 = coinOf(wallet, b, 0);
  const c = t.name(pay(wallet, [b0], 0n), 'C');
  const d = t.name(pay(wallet, [coinOf(wallet, c, 0)], 30_000n), 'D');
  await t.call('L3 testmempoolaccept cluster of four', 'testmempoolaccept', [[hex(c), hex(d)], 0]);
  await t.call('L4 submitpackage cluster of four', 'submitpackage', [[hex(c), hex(d)]]);
  const e = t.name(pay(wallet, [coins[1]!], 0n), 'E');
  const f = t.name(pay(wallet, [coinOf(wallet, e, 0), b0], 30_000n, { conflicting: true }), 'F');
  await t.call('L5 submitpackage joining a cluster of two', 'submitpackage', [[hex(e), hex(f)]]);
  await t.mempool('L6 mempool');
}

/** The same transaction, its one key-path input signed again with an explicit SIGHASH_ALL: same txid, another wtxid. */
function withSighashAllWitness(tx: Transaction, coin: WalletCoin, walletSeed: number): Transaction {
  const key = spendKey('p2tr', walletSeed * 100 + 2);
  const txdata = new PrecomputedTransactionData(tx, [{ value: coin.value, scriptPubKey: coin.scriptPubKey }]);
  const digest = taprootSignatureHash(tx, 0, SIGHASH_ALL, txdata, { annexHash: undefined }, false)!;
  const signature = concatBytes(schnorrSign(digest, key.signingSecret, new Uint8Array(32)), Uint8Array.of(SIGHASH_ALL));
  return new Transaction({ version: tx.version, inputs: [{ ...tx.inputs[0]!, witness: [signature] }], outputs: tx.outputs, locktime: tx.locktime });
}

async function transcriptOf(start: Starter, args: readonly string[], scenario: (t: Transcript) => Promise<void>): Promise<Transcript> {
  const node = await start({ args: ['-acceptnonstdtxn=0', ...args] });
  cleanups.push(() => node.stop());
  const t = new Transcript(node, new TestWallet(31));
  await scenario(t);
  await node.stop();
  return t;
}

const [, startTs] = NODE_STARTERS[0]!;
const [, startCore] = NODE_STARTERS[1]!;
const skip = startCore ? false : 'reference bitcoind missing';

/** Runs the scenario on bitcoind, then tsbtcd, and expects the same transcript step by step. */
async function compare(args: readonly string[], scenario: (t: Transcript) => Promise<void>, print: string): Promise<Step[]> {
  const core = await transcriptOf(startCore!, args, scenario);
  if (process.env['PACKAGES_PRINT']) writeFileSync(`${process.env['PACKAGES_PRINT']}.${print}`, JSON.stringify(core.steps, null, 1));
  const ts = await transcriptOf(startTs!, args, scenario);
  for (let i = 0; i < Math.max(core.steps.length, ts.steps.length); i++) {
    assert.deepEqual(ts.steps[i], core.steps[i], `step ${core.steps[i]?.step ?? ts.steps[i]?.step}`);
  }
  return core.steps;
}

test('submitpackage, testmempoolaccept packages, package RBF, TRUC and ephemeral dust answer as bitcoind v31 does', { skip }, async () => {
  const steps = await compare(['-debug=mempool'], runScenarios, 'main');
  // Not vacuous: the CPFP package entered.
  assert.equal((steps.find((s) => s.step === 'A6 mempool')!.result as string[]).length, 2);
});

test('package cluster limits (-limitclustercount=3) answer as bitcoind v31 does', { skip }, async () => {
  const steps = await compare(['-limitclustercount=3'], runClusterScenario, 'cluster');
  assert.ok(JSON.stringify(steps).includes('too-large-cluster'));
});
