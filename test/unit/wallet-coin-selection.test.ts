/**
 * Wallet coin selection against Bitcoin Core v31's own unit tests: coinselection_tests.cpp
 * (BnB and SRD over ten fee rates), coinselector_tests.cpp (BnB behaviour, Knapsack, waste, bump
 * fees, effective values, CoinGrinder, SRD, max weight, pre-selected inputs), group_outputs_tests.cpp
 * and amount_tests.cpp's GetFee cases. Core's FastRandomContext becomes a seeded SelectionRng, and
 * Core's RUN_TESTS loops run fewer times where each pass is expensive. A few checks at the end
 * are derived from Core's code rather than its tests and are counted apart.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import type { OutPoint } from '../../src/primitives/transaction.js';
import {
  AvailableCoins,
  CHANGE_LOWER,
  CHANGE_UPPER,
  chooseSelectionResult,
  COIN_SELECTION_ERROR,
  coinGrinder,
  coinSelectionParams,
  cryptoSelectionRng,
  eligibilityFilter,
  feeAtRate,
  generateChangeTarget,
  groupOutputs,
  isBetterSelection,
  knapsackSolver,
  MAX_STANDARD_TX_WEIGHT,
  OutputGroup,
  orderedEligibilityFilters,
  prepareTransactionSelection,
  preferAvoidPartialSpends,
  SELECTION_ALGORITHM,
  SelectableCoin,
  selectCoins,
  selectCoinsBnB,
  selectCoinsSRD,
  SelectionResult,
  seededSelectionRng,
  shouldTryAvoidPartialSpends,
  type CoinEligibilityFilter,
  type CoinSelectionParams,
  type FeeRate,
  type SelectionOutcome,
  type SelectionRng,
} from '../../src/wallet/coin-selection/index.js';

const CENT = 1_000_000n;
const COIN = 100_000_000n;
const P2WPKH_INPUT_VSIZE = 68;
const P2WPKH_OUTPUT_VSIZE = 31;

// ---------------------------------------------------------------------------------------------
// Bookkeeping: every test ported from Core registers here; the last test reports the tally.

const portedCases: { name: string; passed: boolean }[] = [];

function portedTest(name: string, body: () => void): void {
  const entry = { name, passed: false };
  portedCases.push(entry);
  test(`Core: ${name}`, () => {
    body();
    entry.passed = true;
  });
}

// ---------------------------------------------------------------------------------------------
// Fixtures in the shape of Core's test helpers.

let nextLockTime = 0;

/** A fresh outpoint: Core's tests vary nLockTime so every transaction hash differs. */
function freshOutpoint(vout = 0): OutPoint {
  const txid = createHash('sha256').update(`coin-selection-test-${nextLockTime++}`).digest();
  return { txid: new Uint8Array(txid), vout };
}

let nextScript = 0;

/** A unique P2WPKH script, standing in for a new wallet address. */
function freshP2wpkhScript(): Uint8Array {
  const hash = createHash('sha256').update(`script-${nextScript++}`).digest().subarray(0, 20);
  return Uint8Array.from([0x00, 0x14, ...hash]);
}

function unwrap(outcome: SelectionOutcome): SelectionResult {
  if (!outcome.ok) assert.fail(`expected a selection, got failure ${JSON.stringify(outcome.error)}`);
  return outcome.result;
}

function failure(outcome: SelectionOutcome): string {
  if (outcome.ok) assert.fail(`expected a failure, got a ${outcome.result.algorithm} selection of ${outcome.result.selectedValue()}`);
  return outcome.error;
}

function sortedValues(values: Iterable<bigint>): bigint[] {
  return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** HaveEquivalentValues / EquivalentResult: the same input values, whichever outpoints. */
function inputValues(result: SelectionResult): bigint[] {
  return sortedValues(result.inputs().map((coin) => coin.value));
}

/** EqualResult: the same outpoints. */
function sameInputs(a: SelectionResult, b: SelectionResult): boolean {
  const keys = (r: SelectionResult) => r.inputs().map((c) => `${Buffer.from(c.outpoint.txid).toString('hex')}:${c.outpoint.vout}`);
  return JSON.stringify(keys(a)) === JSON.stringify(keys(b));
}

// ---------------------------------------------------------------------------------------------
// coinselection_tests.cpp (v31): BnB and SRD over Core's set of fee rates.

/** Core's FEERATES: zero, the minimum, around the default minimum, dust and LTFRE rates, a high and a huge one. */
const FEERATES: readonly bigint[] = [0n, 1n, 99n, 100n, 315n, 1_000n, 2_345n, 10_292n, 59_764n, 1_500_000n];

const testRng = seededSelectionRng(20260401);

/** init_cs_params: P2WPKH change, 50k change target, LTFRE 10 sat/vB, discard 3 sat/vB. */
function initCsParams(effectiveFeeRate: FeeRate = 5000n, rng: SelectionRng = testRng): CoinSelectionParams {
  const discardFeeRate = 3000n;
  const changeFee = feeAtRate(effectiveFeeRate, P2WPKH_OUTPUT_VSIZE);
  const minViableChange = feeAtRate(discardFeeRate, P2WPKH_INPUT_VSIZE);
  return coinSelectionParams(rng, {
    changeOutputSize: P2WPKH_OUTPUT_VSIZE,
    changeSpendSize: P2WPKH_INPUT_VSIZE,
    minChangeTarget: 50_000n,
    effectiveFeeRate,
    longTermFeeRate: 10_000n,
    discardFeeRate,
    txNoInputsSize: 11 + P2WPKH_OUTPUT_VSIZE,
    changeFee,
    minViableChange,
    costOfChange: minViableChange + changeFee,
  });
}

const defaultCsParams = initCsParams();

/** MakeCoin: one group of one UTXO whose effective value is `amount`. */
function makeCoin(amount: bigint, params: CoinSelectionParams = defaultCsParams, spendingVsize = P2WPKH_INPUT_VSIZE): OutputGroup {
  const fee = feeAtRate(params.effectiveFeeRate, spendingVsize);
  const group = new OutputGroup({ longTermFeeRate: params.longTermFeeRate, subtractFeeOutputs: params.subtractFeeOutputs });
  const coin = new SelectableCoin({
    outpoint: freshOutpoint(),
    value: amount + fee,
    scriptPubKey: new Uint8Array(),
    depth: 1,
    inputBytes: spendingVsize,
    fromMe: false,
    fee,
  });
  group.insert(coin, 0, 0);
  return group;
}

function addCoins(pool: OutputGroup[], amounts: readonly bigint[], params: CoinSelectionParams = defaultCsParams): void {
  for (const amount of amounts) pool.push(makeCoin(amount, params));
}

function addDuplicateCoins(pool: OutputGroup[], count: number, amount: bigint, params: CoinSelectionParams = defaultCsParams): void {
  for (let i = 0; i < count; i++) pool.push(makeCoin(amount, params));
}

function testBnBSuccess(
  title: string,
  pool: OutputGroup[],
  target: bigint,
  expectedAmounts: readonly bigint[],
  params: CoinSelectionParams = defaultCsParams,
  spendingVsize = P2WPKH_INPUT_VSIZE,
  maxSelectionWeight = MAX_STANDARD_TX_WEIGHT,
): void {
  const expected = expectedAmounts.map((amount) => makeCoin(amount, params, spendingVsize).value);
  const outcome = selectCoinsBnB(pool, target, params.costOfChange, maxSelectionWeight);
  assert.ok(outcome.ok, `Falsy result in BnB-Success: ${title}`);
  const result = outcome.result;
  assert.deepEqual(inputValues(result), sortedValues(expected), `Result mismatch in BnB-Success: ${title}`);
  assert.equal(result.selectedValue(), expected.reduce((a, b) => a + b, 0n), `Selected amount mismatch in BnB-Success: ${title}`);
  assert.ok(result.weight <= maxSelectionWeight, `Selected weight is higher than permitted in BnB-Success: ${title}`);
  assert.equal(result.algorithm, SELECTION_ALGORITHM.BNB);
}

function testBnBFail(
  title: string,
  pool: OutputGroup[],
  target: bigint,
  params: CoinSelectionParams = defaultCsParams,
  maxSelectionWeight = MAX_STANDARD_TX_WEIGHT,
  expectMaxWeightExceeded = false,
): void {
  const error = failure(selectCoinsBnB(pool, target, params.costOfChange, maxSelectionWeight));
  assert.equal(error.includes('The inputs size exceeds the maximum weight'), expectMaxWeightExceeded, `BnB-Fail: ${title}`);
}

portedTest('coinselection_tests/bnb_test (every fee rate)', () => {
  for (const feerate of FEERATES) {
    const pool: OutputGroup[] = [];
    const params = initCsParams(feerate);

    testBnBFail('Empty UTXO pool', pool, 1n * CENT, params);

    addCoins(pool, [1n * CENT, 3n * CENT, 5n * CENT], params);

    testBnBSuccess('Select smallest UTXO', pool, 1n * CENT, [1n * CENT], params);
    testBnBSuccess('Select middle UTXO', pool, 3n * CENT, [3n * CENT], params);
    testBnBSuccess('Select biggest UTXO', pool, 5n * CENT, [5n * CENT], params);
    testBnBSuccess('Select two UTXOs', pool, 4n * CENT, [1n * CENT, 3n * CENT], params);
    testBnBSuccess('Select all UTXOs', pool, 9n * CENT, [1n * CENT, 3n * CENT, 5n * CENT], params);

    // A changeless solution may overshoot by up to cost_of_change, not one sat more.
    testBnBSuccess('Select upper bound', pool, 4n * CENT - params.costOfChange, [1n * CENT, 3n * CENT], params);
    testBnBFail('Overshoot upper bound', pool, 4n * CENT - params.costOfChange - 1n, params);

    testBnBSuccess('Select max weight', pool, 4n * CENT, [1n * CENT, 3n * CENT], params, P2WPKH_INPUT_VSIZE, 4 * 2 * P2WPKH_INPUT_VSIZE);
    testBnBFail('Exceed max weight', pool, 4n * CENT, params, 4 * 2 * P2WPKH_INPUT_VSIZE - 1, true);

    testBnBFail('Smallest combination too big', pool, CENT / 2n, params);
    testBnBFail('No UTXO combination in target window', pool, 7n * CENT, params);
    testBnBFail('Select more than available', pool, 10n * CENT, params);

    // Equivalent input sets (50,000 clones) are skipped, so the search ends well within its tries.
    const clonePool: OutputGroup[] = [];
    addCoins(clonePool, [2n * CENT, 7n * CENT, 7n * CENT], params);
    addDuplicateCoins(clonePool, 50_000, 5n * CENT, params);
    testBnBSuccess('Skip equivalent input sets', clonePool, 16n * CENT, [2n * CENT, 7n * CENT, 7n * CENT], params);

    // TOTAL_TRIES: eight small UTXOs are the only combination in the window; nine (then ten) larger
    // ones exceed it on the eighth input by more than cost_of_change, forcing a visit of every
    // combination of eight.
    const doppelgangerPool: OutputGroup[] = [];
    const doppelgangers: bigint[] = [];
    const expectedInputs: bigint[] = [];
    for (let i = 0; i < 17; i++) {
      if (i < 8) {
        doppelgangers.push(1n * CENT + BigInt(i));
        expectedInputs.push(1n * CENT + BigInt(i));
      } else {
        doppelgangers.push(1n * CENT + params.costOfChange + BigInt(i));
      }
    }
    addCoins(doppelgangerPool, doppelgangers, params);
    testBnBSuccess('Combine smallest 8 of 17 unique UTXOs', doppelgangerPool, 8n * CENT, expectedInputs, params);
    addCoins(doppelgangerPool, [1n * CENT + params.costOfChange + 17n], params);
    testBnBFail('Exhaust looking for smallest 8 of 18 unique UTXOs', doppelgangerPool, 8n * CENT, params);
  }
});

portedTest('coinselection_tests/bnb_feerate_sensitivity_test', () => {
  // The same effective values at 5 sat/vB (below the 10 sat/vB long-term rate) ...
  const lowFeeratePool: OutputGroup[] = [];
  addCoins(lowFeeratePool, [2n * CENT, 3n * CENT, 5n * CENT, 10n * CENT]);
  testBnBSuccess('Select many inputs at low feerates', lowFeeratePool, 10n * CENT, [2n * CENT, 3n * CENT, 5n * CENT]);

  // ... and at 25 sat/vB (above it).
  const highFeerateParams = initCsParams(25_000n);
  const highFeeratePool: OutputGroup[] = [];
  addCoins(highFeeratePool, [2n * CENT, 3n * CENT, 5n * CENT, 10n * CENT], highFeerateParams);
  testBnBSuccess('Select one input at high feerates', highFeeratePool, 10n * CENT, [10n * CENT], highFeerateParams);

  // Heavy inputs {6, 7} join {2, 3, 5, 10}.
  lowFeeratePool.push(makeCoin(6n * CENT, defaultCsParams, 500));
  lowFeeratePool.push(makeCoin(7n * CENT, defaultCsParams, 500));
  testBnBSuccess('Prefer two heavy inputs over two light inputs at low feerates', lowFeeratePool, 13n * CENT, [6n * CENT, 7n * CENT], defaultCsParams, 500);

  highFeeratePool.push(makeCoin(6n * CENT, highFeerateParams, 500));
  highFeeratePool.push(makeCoin(7n * CENT, highFeerateParams, 500));
  testBnBSuccess('Prefer two light inputs over two heavy inputs at high feerates', highFeeratePool, 13n * CENT, [3n * CENT, 10n * CENT], highFeerateParams);
});

function testSRDSuccess(title: string, pool: OutputGroup[], target: bigint, params: CoinSelectionParams, maxSelectionWeight = MAX_STANDARD_TX_WEIGHT): void {
  const expectedMinAmount = target + params.changeFee + CHANGE_LOWER;
  const outcome = selectCoinsSRD(pool, target, params.changeFee, params.rng, maxSelectionWeight);
  assert.ok(outcome.ok, `Falsy result in SRD-Success: ${title}`);
  assert.ok(outcome.result.selectedEffectiveValue() >= expectedMinAmount, `Selected effective value is lower than expected in SRD-Success: ${title}`);
  assert.ok(outcome.result.weight <= maxSelectionWeight, `Selected weight is higher than permitted in SRD-Success: ${title}`);
  assert.equal(outcome.result.target, target);
  assert.equal(outcome.result.algorithm, SELECTION_ALGORITHM.SRD);
}

function testSRDFail(title: string, pool: OutputGroup[], target: bigint, params: CoinSelectionParams, maxSelectionWeight = MAX_STANDARD_TX_WEIGHT, expectMaxWeightExceeded = false): void {
  const error = failure(selectCoinsSRD(pool, target, params.changeFee, params.rng, maxSelectionWeight));
  assert.equal(error.includes('The inputs size exceeds the maximum weight'), expectMaxWeightExceeded, `SRD-Fail: ${title}`);
}

portedTest('coinselection_tests/srd_test (every fee rate)', () => {
  for (const feerate of FEERATES) {
    const pool: OutputGroup[] = [];
    const params = initCsParams(feerate);

    testSRDFail('Empty UTXO pool', pool, 1n * CENT, params);

    addCoins(pool, [1n * CENT, 3n * CENT, 5n * CENT], params);

    testSRDSuccess('Select 21k sats', pool, 21_000n, params);
    testSRDSuccess('Select 1 CENT', pool, 1n * CENT, params);
    testSRDSuccess('Select 3.125 CENT', pool, 3_125_000n, params);
    testSRDSuccess('Select 4 CENT', pool, 4n * CENT, params);
    testSRDSuccess('Select 7 CENT', pool, 7n * CENT, params);

    // SRD's minimum change is change_fee plus CHANGE_LOWER.
    testSRDSuccess('Create minimum change', pool, 9n * CENT - params.changeFee - CHANGE_LOWER, params);
    testSRDFail('Undershoot minimum change by one sat', pool, 9n * CENT - params.changeFee - CHANGE_LOWER + 1n, params);
    testSRDFail('Spend more than available', pool, 9n * CENT + 1n, params);
    testSRDFail('Spend everything', pool, 9n * CENT, params);

    addDuplicateCoins(pool, 100, 5n * CENT, params);
    addDuplicateCoins(pool, 3, 7n * CENT, params);
    testSRDSuccess('Select most valuable UTXOs for acceptable weight', pool, 20n * CENT, params, 4 * 4 * (P2WPKH_INPUT_VSIZE - 1));
    testSRDFail('No acceptable weight possible', pool, 25n * CENT, params, 4 * 3 * P2WPKH_INPUT_VSIZE, true);
  }
});

// ---------------------------------------------------------------------------------------------
// coinselector_tests.cpp: coins as the wallet's add_coin makes them.

const filterStandard = eligibilityFilter(1, 6, 0);
const filterConfirmed = eligibilityFilter(1, 1, 0);
const filterStandardExtra = eligibilityFilter(6, 6, 0);

interface AddCoinOptions {
  readonly feeRate?: FeeRate;
  /** nAge: the coin's depth. */
  readonly age?: number;
  readonly fromMe?: boolean;
  /** A wallet P2WPKH script (68-vbyte spend); otherwise an empty script the wallet cannot size (-1). */
  readonly spendable?: boolean;
  /** custom_size: the spend's vsize instead of the script's. */
  readonly customSize?: number;
}

/** add_coin(CoinsResult&, CWallet&, ...): a BECH32 coin at `feeRate` (default 0). */
function addCoin(coins: AvailableCoins, value: bigint, options: AddCoinOptions = {}): SelectableCoin {
  const spendable = options.spendable ?? false;
  const inputBytes = options.customSize !== undefined && options.customSize !== 0 ? options.customSize : spendable ? P2WPKH_INPUT_VSIZE : -1;
  const coin = new SelectableCoin({
    outpoint: freshOutpoint(),
    value,
    scriptPubKey: spendable ? freshP2wpkhScript() : new Uint8Array(),
    depth: options.age ?? 6 * 24,
    inputBytes,
    fromMe: options.fromMe ?? false,
    feeRate: options.feeRate ?? 0n,
  });
  coins.add('bech32', coin);
  return coin;
}

/** GroupCoins: one default group per coin (no long-term rate), optionally selecting by value. */
function groupCoins(coins: readonly SelectableCoin[], subtractFeeOutputs = false): OutputGroup[] {
  return coins.map((coin) => {
    const group = new OutputGroup();
    group.insert(coin, 0, 0);
    group.subtractFeeOutputs = subtractFeeOutputs;
    return group;
  });
}

/** KnapsackGroupOutputs: GroupOutputs at fee rate 0 under one filter, all mixed groups. */
function knapsackGroupOutputs(coins: AvailableCoins, filter: CoinEligibilityFilter): OutputGroup[] {
  const params = coinSelectionParams(testRng, { minChangeTarget: CENT });
  return groupOutputs(coins, params, [{ filter, allowMixedOutputTypes: true }]).for(filter).allGroups.mixedGroup;
}

/** The bnb tests' CoinSelectionParams: effective 3 sat/vB, long-term and discard 1 sat/vB. */
function bnbSearchParams(): CoinSelectionParams {
  const effectiveFeeRate = 3000n;
  const changeFee = feeAtRate(effectiveFeeRate, 31);
  return coinSelectionParams(testRng, {
    changeOutputSize: 31,
    changeSpendSize: 68,
    minChangeTarget: 0n,
    effectiveFeeRate,
    longTermFeeRate: 1000n,
    discardFeeRate: 1000n,
    txNoInputsSize: 0,
    changeFee,
    costOfChange: feeAtRate(effectiveFeeRate, 68) + changeFee,
    minViableChange: feeAtRate(effectiveFeeRate, 68),
  });
}

portedTest('coinselector_tests/bnb_search_test: a coin of unknown size selects at its full value', () => {
  // Core's test sets input_bytes on a copy (CoinsResult::All returns one), so the coin keeps the
  // -1 size its empty script gives it: no fee, effective value = value.
  const params = bnbSearchParams();
  const coins = new AvailableCoins();
  addCoin(coins, 1n * CENT, { feeRate: params.effectiveFeeRate });
  const result = unwrap(selectCoinsBnB(groupCoins(coins.all()), 1n * CENT, params.costOfChange, MAX_STANDARD_TX_WEIGHT));
  assert.equal(result.selectedValue(), 1n * CENT);
});

portedTest('coinselector_tests/bnb_search_test: BnB behind pre-selected inputs', () => {
  let params: CoinSelectionParams = { ...bnbSearchParams(), effectiveFeeRate: 0n };
  const coins = new AvailableCoins();
  const preset = addCoin(coins, 5n * CENT, { feeRate: params.effectiveFeeRate, spendable: true });
  addCoin(coins, 3n * CENT, { feeRate: params.effectiveFeeRate, spendable: true });
  addCoin(coins, 2n * CENT, { feeRate: params.effectiveFeeRate, spendable: true });
  coins.erase([preset.outpoint]);
  const result10 = unwrap(selectCoins({ availableCoins: coins, presetInputs: [preset], target: 10n * CENT, params }));
  assert.deepEqual(inputValues(result10), [2n * CENT, 3n * CENT, 5n * CENT]);

  // A pre-selected coin is spent even when it is disadvantageous.
  params = { ...params, effectiveFeeRate: 5000n, longTermFeeRate: 3000n };
  const inputFee = feeAtRate(params.effectiveFeeRate, 68);
  const coins2 = new AvailableCoins();
  addCoin(coins2, 10n * CENT + inputFee, { feeRate: params.effectiveFeeRate, spendable: true });
  const nine = addCoin(coins2, 9n * CENT + inputFee, { feeRate: params.effectiveFeeRate, spendable: true });
  addCoin(coins2, 1n * CENT + inputFee, { feeRate: params.effectiveFeeRate, spendable: true });
  coins2.erase([nine.outpoint]);
  const result13 = unwrap(selectCoins({ availableCoins: coins2, presetInputs: [nine], target: 10n * CENT, params }));
  assert.deepEqual(inputValues(result13), [1n * CENT + inputFee, 9n * CENT + inputFee]);
  // The automatic part was BnB's exact 1 CENT; the merge keeps that algorithm and adds the targets.
  assert.equal(result13.algorithm, SELECTION_ALGORITHM.BNB);
  assert.equal(result13.target, 10n * CENT);
});

portedTest('coinselector_tests/bnb_search_test: BnB max weight exceeded', () => {
  // Inputs [10, 9, 8, 5, 3, 1], target 16, and the only 5 far too heavy: every exact match needs it.
  const params: CoinSelectionParams = { ...bnbSearchParams(), effectiveFeeRate: 5000n, longTermFeeRate: 3000n };
  const coins = new AvailableCoins();
  for (const [value, customSize] of [[10n, 0], [9n, 0], [8n, 0], [5n, MAX_STANDARD_TX_WEIGHT], [3n, 0], [1n, 0]] as const) {
    addCoin(coins, value * CENT, { feeRate: params.effectiveFeeRate, spendable: true, customSize });
  }
  const error = failure(selectCoinsBnB(groupCoins(coins.all(), true), 16n * CENT, 0n, MAX_STANDARD_TX_WEIGHT));
  assert.ok(error.includes('The inputs size exceeds the maximum weight'));

  // A light 5 makes {8, 5, 3} the selection.
  addCoin(coins, 5n * CENT, { feeRate: params.effectiveFeeRate, spendable: true });
  const result = unwrap(selectCoinsBnB(groupCoins(coins.all(), true), 16n * CENT, 0n, MAX_STANDARD_TX_WEIGHT));
  assert.deepEqual(inputValues(result), [3n * CENT, 5n * CENT, 8n * CENT]);
});

portedTest('coinselector_tests/bnb_sffo_restriction', () => {
  // With subtract-fee-from-outputs BnB does not run, though a single input would be its best answer.
  const effectiveFeeRate = 3000n;
  const changeFee = feeAtRate(effectiveFeeRate, 31);
  const costOfChange = feeAtRate(1000n, 68) + changeFee;
  const params = coinSelectionParams(seededSelectionRng(7), {
    changeOutputSize: 31,
    changeSpendSize: 68,
    effectiveFeeRate,
    longTermFeeRate: 1000n,
    discardFeeRate: 1000n,
    subtractFeeOutputs: true,
    changeFee,
    costOfChange,
    minChangeTarget: costOfChange + 1n,
  });
  const coins = new AvailableCoins();
  const options = { feeRate: effectiveFeeRate, age: 6, fromMe: true, spendable: true };
  addCoin(coins, COIN + costOfChange, options);
  addCoin(coins, COIN / 2n + costOfChange, options);
  addCoin(coins, COIN / 2n, options);
  const result = unwrap(selectCoins({ availableCoins: coins, target: COIN, params }));
  assert.notEqual(result.algorithm, SELECTION_ALGORITHM.BNB);
  assert.equal(result.inputCount, 2);
  assert.ok(result.algorithm === SELECTION_ALGORITHM.SRD || result.algorithm === SELECTION_ALGORITHM.KNAPSACK);
});

portedTest('coinselector_tests/knapsack_solver_test', () => {
  const rng = seededSelectionRng(1);
  const knapsack = (groups: OutputGroup[], target: bigint, changeTarget: bigint): SelectionOutcome =>
    knapsackSolver(groups, target, changeTarget, rng, MAX_STANDARD_TX_WEIGHT);
  const coins = new AvailableCoins();

  // Core runs this RUN_TESTS (100) times for the shuffle order; so do we.
  for (let i = 0; i < 100; i++) {
    coins.clear();
    // An empty wallet cannot pay a cent.
    failure(knapsack(knapsackGroupOutputs(coins, filterStandard), 1n * CENT, CENT));

    addCoin(coins, 1n * CENT, { age: 4 }); // a new 1 cent coin
    // No mature 1 cent yet ...
    failure(knapsack(knapsackGroupOutputs(coins, filterStandard), 1n * CENT, CENT));
    // ... but a new one.
    assert.equal(unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 1n * CENT, CENT)).selectedValue(), 1n * CENT);

    addCoin(coins, 2n * CENT); // a mature 2 cent coin
    failure(knapsack(knapsackGroupOutputs(coins, filterStandard), 3n * CENT, CENT));
    assert.equal(unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 3n * CENT, CENT)).selectedValue(), 3n * CENT);

    addCoin(coins, 5n * CENT); // mature 5 cents
    addCoin(coins, 10n * CENT, { age: 3, fromMe: true }); // a new 10 cents from ourselves
    addCoin(coins, 20n * CENT); // mature 20 cents
    // New: 1 + 10 (self-sent); mature: 2 + 5 + 20. Total 38.

    failure(knapsack(knapsackGroupOutputs(coins, filterStandard), 38n * CENT, CENT));
    failure(knapsack(knapsackGroupOutputs(coins, filterStandardExtra), 38n * CENT, CENT));
    assert.equal(unwrap(knapsack(knapsackGroupOutputs(coins, filterStandard), 37n * CENT, CENT)).selectedValue(), 37n * CENT);
    assert.equal(unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 38n * CENT, CENT)).selectedValue(), 38n * CENT);

    // 34 cents from 1, 2, 5, 10, 20: 35 is closest (20 + 10 + 5).
    const result5 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 34n * CENT, CENT));
    assert.equal(result5.selectedValue(), 35n * CENT);
    assert.equal(result5.inputCount, 3);

    // 7 cents: just 2 + 5.
    const result6 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 7n * CENT, CENT));
    assert.equal(result6.selectedValue(), 7n * CENT);
    assert.equal(result6.inputCount, 2);

    // 8 cents: 1 + 2 + 5 exactly.
    const result7 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 8n * CENT, CENT));
    assert.equal(result7.selectedValue(), 8n * CENT);
    assert.equal(result7.inputCount, 3);

    // 9 cents: no subset of the small coins is enough; the next bigger coin (10).
    const result8 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 9n * CENT, CENT));
    assert.equal(result8.selectedValue(), 10n * CENT);
    assert.equal(result8.inputCount, 1);

    // Subsets of smaller coins against the next biggest coin.
    coins.clear();
    for (const cents of [6n, 7n, 8n, 20n, 30n]) addCoin(coins, cents * CENT); // 71 cents
    unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 71n * CENT, CENT));
    failure(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 72n * CENT, CENT));

    // 16 cents: 6 + 7 + 8 = 21 loses to the 20 coin.
    const result10 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 16n * CENT, CENT));
    assert.equal(result10.selectedValue(), 20n * CENT);
    assert.equal(result10.inputCount, 1);

    addCoin(coins, 5n * CENT); // 5 + 6 + 7 + 8 + 20 + 30 = 75
    // Now 5 + 6 + 7 = 18 beats 20.
    const result11 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 16n * CENT, CENT));
    assert.equal(result11.selectedValue(), 18n * CENT);
    assert.equal(result11.inputCount, 3);

    addCoin(coins, 18n * CENT);
    // 5 + 6 + 7 ties with the 18 coin: the single coin wins ties.
    const result12 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 16n * CENT, CENT));
    assert.equal(result12.selectedValue(), 18n * CENT);
    assert.equal(result12.inputCount, 1);

    // 11 cents: 5 + 6.
    const result13 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 11n * CENT, CENT));
    assert.equal(result13.selectedValue(), 11n * CENT);
    assert.equal(result13.inputCount, 2);

    // The smallest bigger coin is used.
    for (const coinsOf of [1n, 2n, 3n, 4n]) addCoin(coins, coinsOf * COIN);
    const result14 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 95n * CENT, CENT));
    assert.equal(result14.selectedValue(), 1n * COIN);
    assert.equal(result14.inputCount, 1);
    const result15 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 195n * CENT, CENT));
    assert.equal(result15.selectedValue(), 2n * COIN);
    assert.equal(result15.inputCount, 1);

    // Fractions of a cent: small change avoidance.
    coins.clear();
    for (const tenths of [1n, 2n, 3n, 4n, 5n]) addCoin(coins, (CENT * tenths) / 10n);
    // Change below CENT whatever happens: CENT exactly.
    assert.equal(unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), CENT, CENT)).selectedValue(), CENT);

    addCoin(coins, 1111n * CENT);
    // 1 from 0.1 + 0.2 + 0.3 + 0.4 + 0.5 + 1111: the exact amount.
    assert.equal(unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 1n * CENT, CENT)).selectedValue(), 1n * CENT);

    addCoin(coins, (CENT * 6n) / 10n);
    addCoin(coins, (CENT * 7n) / 10n);
    assert.equal(unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 1n * CENT, CENT)).selectedValue(), 1n * CENT);

    // The 'mtgox' case: ten of twenty 50k coins make 500k exactly.
    coins.clear();
    for (let j = 0; j < 20; j++) addCoin(coins, 50_000n * COIN);
    const result19 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 500_000n * COIN, CENT));
    assert.equal(result19.selectedValue(), 500_000n * COIN);
    assert.equal(result19.inputCount, 10);

    // Too little in small coins for CENT of change (0.5 + 0.6 + 0.7 < 1 + 1): an exact subset is
    // still sought, and failing that the next biggest coin.
    coins.clear();
    for (const value of [(CENT * 5n) / 10n, (CENT * 6n) / 10n, (CENT * 7n) / 10n, 1111n * CENT]) addCoin(coins, value);
    const result20 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), 1n * CENT, CENT));
    assert.equal(result20.selectedValue(), 1111n * CENT);
    assert.equal(result20.inputCount, 1);

    // Here an exact subset exists (0.4 + 0.6).
    coins.clear();
    for (const value of [(CENT * 4n) / 10n, (CENT * 6n) / 10n, (CENT * 8n) / 10n, 1111n * CENT]) addCoin(coins, value);
    const result21 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), CENT, CENT));
    assert.equal(result21.selectedValue(), CENT);
    assert.equal(result21.inputCount, 2);

    // Avoiding small change.
    coins.clear();
    addCoin(coins, (CENT * 5n) / 100n);
    addCoin(coins, CENT);
    addCoin(coins, CENT * 100n);
    // 100.01 from these three: all of them.
    const result22 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), (CENT * 10001n) / 100n, CENT));
    assert.equal(result22.selectedValue(), (CENT * 10105n) / 100n);
    assert.equal(result22.inputCount, 3);
    // 99.9: the bigger of the two small coins, avoiding small change.
    const result23 = unwrap(knapsack(knapsackGroupOutputs(coins, filterConfirmed), (CENT * 9990n) / 100n, CENT));
    assert.equal(result23.selectedValue(), 101n * CENT);
    assert.equal(result23.inputCount, 2);
  }
});

portedTest('coinselector_tests/knapsack_solver_test: many inputs', () => {
  const rng = seededSelectionRng(2);
  const coins = new AvailableCoins();
  for (let amount = 1500n; amount < COIN; amount *= 10n) {
    coins.clear();
    // 676 inputs (the old MAX_STANDARD_TX_SIZE of 100,000 bytes / 148 bytes per input).
    for (let j = 0; j < 676; j++) addCoin(coins, amount);
    // Core repeats this RUN_TESTS (100) times; each pass is ~10^6 coin flips, so three here.
    for (let i = 0; i < 3; i++) {
      const result = unwrap(knapsackSolver(knapsackGroupOutputs(coins, filterConfirmed), 2000n, CENT, rng, MAX_STANDARD_TX_WEIGHT));
      if (amount - 2000n < CENT) {
        // More than one input needed.
        const returnSize = (2000n + CENT + amount - 1n) / amount;
        assert.equal(result.selectedValue(), amount * returnSize);
        assert.equal(BigInt(result.inputCount), returnSize);
      } else {
        assert.equal(result.selectedValue(), amount);
        assert.equal(result.inputCount, 1);
      }
    }
  }
});

portedTest('coinselector_tests/knapsack_solver_test: randomness', () => {
  const rng = seededSelectionRng(3);
  const knapsack = (groups: OutputGroup[], target: bigint): SelectionResult => unwrap(knapsackSolver(groups, target, CENT, rng, MAX_STANDARD_TX_WEIGHT));
  const coins = new AvailableCoins();
  for (let i = 0; i < 100; i++) addCoin(coins, COIN);
  const RANDOM_REPEATS = 5;
  for (let i = 0; i < 20; i++) {
    // 50 of 100 coins: not the shuffle but the stochastic approximation varies the choice.
    const result25 = knapsack(groupCoins(coins.all()), 50n * COIN);
    const result26 = knapsack(groupCoins(coins.all()), 50n * COIN);
    assert.ok(!sameInputs(result25, result26));
    // 1 of 100 identical coins: the same twice 1% of the time, so fail only if every repeat does.
    let fails = 0;
    for (let j = 0; j < RANDOM_REPEATS; j++) {
      if (sameInputs(knapsack(groupCoins(coins.all()), COIN), knapsack(groupCoins(coins.all()), COIN))) fails++;
    }
    assert.notEqual(fails, RANDOM_REPEATS);
  }
  // 75 cents in small change is not enough for 90: one of several "smallest bigger" coins, at random.
  for (const cents of [5n, 10n, 15n, 20n, 25n]) addCoin(coins, cents * CENT);
  for (let i = 0; i < 20; i++) {
    let fails = 0;
    for (let j = 0; j < RANDOM_REPEATS; j++) {
      if (sameInputs(knapsack(groupCoins(coins.all()), 90n * CENT), knapsack(groupCoins(coins.all()), 90n * CENT))) fails++;
    }
    assert.notEqual(fails, RANDOM_REPEATS);
  }
});

portedTest('coinselector_tests/ApproximateBestSubset', () => {
  const coins = new AvailableCoins();
  // vValue sort order: a thousand 1000-coin UTXOs and one of 3 coins.
  for (let i = 0; i < 1000; i++) addCoin(coins, 1000n * COIN);
  addCoin(coins, 3n * COIN);
  const result = unwrap(knapsackSolver(knapsackGroupOutputs(coins, filterStandard), 1003n * COIN, CENT, seededSelectionRng(4), MAX_STANDARD_TX_WEIGHT));
  assert.equal(result.selectedValue(), 1003n * COIN);
  assert.equal(result.inputCount, 2);
});

portedTest('coinselector_tests/SelectCoins_test (ideal conditions always fund the target)', () => {
  const rng = seededSelectionRng(5);
  // Core runs 100 wallets of 1000 exponentially distributed coins; each pass runs Knapsack over
  // 1000 groups, so five here.
  for (let i = 0; i < 5; i++) {
    const coins = new AvailableCoins();
    let balance = 0n;
    for (let j = 0; j < 1000; j++) {
      // std::exponential_distribution<double>(100) * 10,000,000.
      const uniform = (rng.randrange(2 ** 32) + 0.5) / 2 ** 32;
      const value = BigInt(Math.floor((-Math.log(uniform) / 100) * 10_000_000));
      addCoin(coins, value);
      balance += value;
    }
    const target = BigInt(rng.randrange(Number(balance - 1000n))) + 1000n;
    const params = coinSelectionParams(rng, { changeOutputSize: 34, changeSpendSize: 148, minChangeTarget: CENT, costOfChange: 1n, minViableChange: 1n });
    const result = unwrap(selectCoins({ availableCoins: coins, target, params }));
    assert.ok(result.selectedValue() >= target);
  }
});

/** add_coin(value, nInput, SelectionResult&, fee, long_term_fee): a 148-vbyte coin whose long-term fee is forced. */
function addCoinToSelection(value: bigint, selection: SelectionResult, fee: bigint, longTermFee: bigint): void {
  const coin = new SelectableCoin({ outpoint: freshOutpoint(), value, scriptPubKey: new Uint8Array(), depth: 1, inputBytes: 148, fromMe: false, fee });
  const group = new OutputGroup();
  group.insert(coin, 0, 0);
  coin.longTermFee = longTermFee; // insert() sets long_term_fee, so it is overridden afterwards
  selection.addInput(group);
}

portedTest('coinselector_tests/waste_test', () => {
  const fee = 100n;
  const minViableChange = 300n;
  const changeCost = 125n;
  const changeFee = 30n;
  const feeDiff = 40n;
  const inAmount = 3n * COIN;
  const target = 2n * COIN;
  const excess = 80n;
  const exactTarget = inAmount - fee * 2n; // all that can be spent after fees: no change, no excess

  const selectionOf = (t: bigint, coinFee: bigint, longTermFee: bigint, cost = changeCost): SelectionResult => {
    const selection = new SelectionResult(t, SELECTION_ALGORITHM.MANUAL);
    addCoinToSelection(1n * COIN, selection, coinFee, longTermFee);
    addCoinToSelection(2n * COIN, selection, coinFee, longTermFee);
    selection.recalculateWaste(minViableChange, cost, changeFee);
    return selection;
  };

  // With change: the change cost plus fee - long-term fee per input.
  const selection1 = selectionOf(target, fee, fee - feeDiff);
  assert.equal(selection1.waste, feeDiff * 2n + changeCost);
  // A higher fee with the same long-term fee wastes more.
  const selection2 = selectionOf(target, fee * 2n, fee - feeDiff);
  assert.ok(selection2.waste > selection1.waste);
  // A long-term fee above the fee wastes less.
  const selection3 = selectionOf(target, fee, fee + feeDiff);
  assert.equal(selection3.waste, feeDiff * -2n + changeCost);
  assert.ok(selection3.waste < selection1.waste);

  // Without change: the excess plus fee - long-term fee per input.
  const noChange1 = selectionOf(exactTarget - excess, fee, fee - feeDiff);
  assert.equal(noChange1.waste, feeDiff * 2n + excess);
  const noChange2 = selectionOf(exactTarget - excess, fee, fee + feeDiff);
  assert.equal(noChange2.waste, feeDiff * -2n + excess);
  assert.ok(noChange2.waste < noChange1.waste);

  // fee == long-term fee: just the cost of change, or just the excess, or 0 without either.
  assert.equal(selectionOf(target, fee, fee).waste, changeCost);
  assert.equal(selectionOf(exactTarget - excess, fee, fee).waste, excess);
  assert.equal(selectionOf(exactTarget, fee, fee).waste, 0n);

  // 0 when (fee - long-term fee) is -change_cost, or -excess.
  assert.equal(selectionOf(target, fee, fee + feeDiff, feeDiff * 2n).waste, 0n);
  assert.equal(selectionOf(exactTarget - feeDiff * 2n, fee, fee + feeDiff).waste, 0n);

  // Negative when the long-term fee exceeds the fee and nothing else adds waste ...
  assert.equal(selectionOf(exactTarget, fee, fee + feeDiff).waste, -2n * feeDiff);
  // ... or when the change cost is smaller than what the inputs save: 200 - 380 + 125 = -55.
  const largeFeeDiff = 90n;
  assert.equal(selectionOf(target, fee, fee + largeFeeDiff).waste, -55n);
});

portedTest('coinselector_tests/bump_fee_test', () => {
  const fee = 100n;
  const minViableChange = 200n;
  const changeCost = 125n;
  const changeFee = 35n;
  const feeDiff = 40n;
  const rng = seededSelectionRng(6);
  {
    const selection = new SelectionResult(2n * COIN, SELECTION_ALGORITHM.MANUAL);
    addCoinToSelection(1n * COIN, selection, fee, fee + feeDiff);
    addCoinToSelection(2n * COIN, selection, fee, fee + feeDiff);
    selection.shuffledInputs(rng).forEach((coin, i) => coin.applyBumpFee(20n * BigInt(i + 1)));
    selection.recalculateWaste(minViableChange, changeCost, changeFee);
    assert.equal(selection.waste, feeDiff * -2n + changeCost + 60n);
    assert.equal(selection.totalBumpFees(), 60n);
    selection.setBumpFeeDiscount(30n);
    selection.recalculateWaste(minViableChange, changeCost, changeFee);
    assert.equal(selection.waste, feeDiff * -2n + changeCost + 60n - 30n);
    assert.equal(selection.totalBumpFees(), 30n);
  }
  {
    // Changeless: bump fees and excess both count in full, so a discount does not change the
    // waste as long as there is still no change.
    const selection = new SelectionResult(3n * COIN - 2n * fee - 100n, SELECTION_ALGORITHM.MANUAL);
    addCoinToSelection(1n * COIN, selection, fee, fee + feeDiff);
    addCoinToSelection(2n * COIN, selection, fee, fee + feeDiff);
    selection.shuffledInputs(rng).forEach((coin, i) => coin.applyBumpFee(20n * BigInt(i + 1)));
    selection.recalculateWaste(minViableChange, changeCost, changeFee);
    assert.equal(selection.waste, feeDiff * -2n + 60n + 40n);
    selection.setBumpFeeDiscount(30n);
    selection.recalculateWaste(minViableChange, changeCost, changeFee);
    assert.equal(selection.waste, feeDiff * -2n + 60n - 30n + 70n);
  }
});

portedTest('coinselector_tests/effective_value_test', () => {
  const base = { outpoint: freshOutpoint(), value: 10_000n, scriptPubKey: new Uint8Array(), depth: 1, fromMe: false };
  // A fee rate: 10000 - 148.
  assert.equal(new SelectableCoin({ ...base, inputBytes: 148, feeRate: 1000n }).effectiveValue, 9852n);
  // Unknown input size: the whole value.
  assert.equal(new SelectableCoin({ ...base, inputBytes: -1, feeRate: 1000n }).effectiveValue, 10_000n);
  // Negative effective value: 10000 - 14800.
  assert.equal(new SelectableCoin({ ...base, inputBytes: 148, feeRate: 100_000n }).effectiveValue, -4800n);
  // Explicit fees.
  assert.equal(new SelectableCoin({ ...base, inputBytes: 148, fee: 148n }).effectiveValue, 9852n);
  assert.equal(new SelectableCoin({ ...base, inputBytes: -1, fee: 0n }).effectiveValue, 10_000n);
});

/** The CoinGrinder and SRD tests' groups: GroupOutputs under filter (0, 0, 0), all positive groups. */
function positiveGroups(coins: AvailableCoins, params: CoinSelectionParams): OutputGroup[] {
  const filter = eligibilityFilter(0, 0, 0);
  return groupOutputs(coins, params, [{ filter, allowMixedOutputTypes: true }]).for(filter).allGroups.positiveGroup;
}

portedTest('coinselector_tests/coin_grinder_tests', () => {
  const params = coinSelectionParams(testRng, {
    changeOutputSize: 34,
    changeSpendSize: 68,
    minChangeTarget: CENT,
    effectiveFeeRate: 5000n,
    longTermFeeRate: 2000n,
    discardFeeRate: 1000n,
    txNoInputsSize: 10 + 34,
  });
  const grind = (target: bigint, maxWeight: number, setup: (coins: AvailableCoins) => void): SelectionOutcome => {
    const coins = new AvailableCoins();
    setup(coins);
    return coinGrinder(positiveGroups(coins, params), target, params.minChangeTarget, maxWeight);
  };
  const spendable = (customSize = 0) => ({ feeRate: 5000n, age: 144, spendable: true, customSize });
  const checkAttempts = (result: SelectionResult, expected: number): void => assert.equal(result.selectionsEvaluated, expected);

  // 1) Insufficient funds: every coin together is not enough.
  assert.equal(
    failure(
      grind((495n * COIN) / 10n, 10_000, (coins) => {
        for (let j = 0; j < 10; j++) {
          addCoin(coins, 1n * COIN);
          addCoin(coins, 2n * COIN);
        }
      }),
    ),
    '',
  );

  // 2) Every funding selection exceeds the maximum weight.
  assert.ok(
    failure(
      grind((295n * COIN) / 10n, 3000, (coins) => {
        for (let j = 0; j < 10; j++) {
          addCoin(coins, 1n * COIN, spendable());
          addCoin(coins, 2n * COIN, spendable());
        }
      }),
    ).includes('The inputs size exceeds the maximum weight'),
  );

  // 3) The lightest solution when some combinations would be too heavy.
  const result3 = unwrap(
    grind((2533n * COIN) / 100n, 10_000, (coins) => {
      for (let j = 0; j < 60; j++) addCoin(coins, (33n * COIN) / 100n, spendable()); // 19.8 BTC, 16,320 WU
      for (let j = 0; j < 10; j++) addCoin(coins, 2n * COIN, spendable()); // 20 BTC, 2,720 WU
    }),
  );
  assert.deepEqual(inputValues(result3), sortedValues([...Array(10).fill(2n * COIN), ...Array(17).fill((33n * COIN) / 100n)]));
  checkAttempts(result3, 37);

  // 4) Two lighter, less valuable UTXOs beat one heavier, more valuable one.
  const result4 = unwrap(
    grind((19n * COIN) / 10n, 400_000, (coins) => {
      addCoin(coins, 2n * COIN, spendable(148));
      addCoin(coins, 1n * COIN, spendable(68));
      addCoin(coins, 1n * COIN, spendable(68));
    }),
  );
  assert.deepEqual(inputValues(result4), [1n * COIN, 1n * COIN]);
  checkAttempts(result4, 3);

  // 5) Mixed weights.
  const result5 = unwrap(
    grind(30n * COIN, 400_000, (coins) => {
      for (let j = 0n; j < 5n; j++) {
        addCoin(coins, (3n + 3n * j) * COIN, spendable(350)); // heavy {3, 6, 9, 12, 15}
        addCoin(coins, (2n + 3n * j) * COIN, spendable(250)); // medium {2, 5, 8, 11, 14}
        addCoin(coins, (1n + 3n * j) * COIN, spendable(150)); // light {1, 4, 7, 10, 13}
      }
    }),
  );
  assert.deepEqual(inputValues(result5), [4n * COIN, 13n * COIN, 14n * COIN]);
  checkAttempts(result5, 92);

  // 6) The lightest among many clones.
  const result6 = unwrap(
    grind((99n * COIN) / 10n, 400_000, (coins) => {
      for (const btc of [4n, 3n, 2n, 1n]) addCoin(coins, btc * COIN, spendable(100));
      for (const [btc, size] of [[8n, 1000], [7n, 800], [6n, 600], [5n, 400]] as const) {
        for (let j = 0; j < 100; j++) addCoin(coins, btc * COIN, spendable(size));
      }
    }),
  );
  assert.deepEqual(inputValues(result6), [1n * COIN, 2n * COIN, 3n * COIN, 4n * COIN]);
  checkAttempts(result6, 38);

  // 7) Many tiny UTXOs skipped as too heavy while the lookahead still has enough.
  const result7 = unwrap(
    grind((19n * COIN) / 10n, 40_000, (coins) => {
      addCoin(coins, (18n * COIN) / 10n, spendable(2500));
      addCoin(coins, 1n * COIN, spendable(1000));
      addCoin(coins, 1n * COIN, spendable(1000));
      for (let j = 0n; j < 100n; j++) addCoin(coins, COIN / 100n + j, spendable(110)); // 100 unique coins a sat apart
    }),
  );
  assert.deepEqual(inputValues(result7), [1n * COIN, 1n * COIN]);
  checkAttempts(result7, 7);
});

portedTest('coinselector_tests/srd_tests', () => {
  const params = coinSelectionParams(seededSelectionRng(8), { changeOutputSize: 34, changeSpendSize: 68, minChangeTarget: CENT, txNoInputsSize: 10 + 34 });
  const draw = (target: bigint, maxWeight: number, setup: (coins: AvailableCoins) => void): SelectionOutcome => {
    const coins = new AvailableCoins();
    setup(coins);
    return selectCoinsSRD(positiveGroups(coins, params), target, params.changeFee, params.rng, maxWeight);
  };
  const spendable = { age: 144, spendable: true };

  // 1) Insufficient funds.
  assert.equal(
    failure(
      draw((495n * COIN) / 10n, 10_000, (coins) => {
        for (let j = 0; j < 10; j++) {
          addCoin(coins, 1n * COIN);
          addCoin(coins, 2n * COIN);
        }
      }),
    ),
    '',
  );
  // 2) Max weight exceeded: 20 × 272 WU > 3000.
  assert.ok(
    failure(
      draw((495n * COIN) / 10n, 3000, (coins) => {
        for (let j = 0; j < 10; j++) {
          addCoin(coins, 1n * COIN, spendable);
          addCoin(coins, 2n * COIN, spendable);
        }
      }),
    ).includes('The inputs size exceeds the maximum weight'),
  );
  // 3) The result stays within the maximum weight.
  const result = unwrap(
    draw((2533n * COIN) / 100n, 10_000, (coins) => {
      for (let j = 0; j < 60; j++) addCoin(coins, (33n * COIN) / 100n, spendable);
      for (let j = 0; j < 10; j++) addCoin(coins, 2n * COIN, spendable);
    }),
  );
  assert.ok(result.weight <= 10_000);
});

portedTest('coinselector_tests/check_max_selection_weight', () => {
  const target = (495n * COIN) / 10n;
  const params = coinSelectionParams(seededSelectionRng(9), { changeOutputSize: 34, changeSpendSize: 68, minChangeTarget: CENT, txNoInputsSize: 10 + 34 });
  const maxWeight = MAX_STANDARD_TX_WEIGHT - 4 * (params.txNoInputsSize + params.changeOutputSize);
  const spendable = { age: 144, spendable: true };
  const select = (setup: (coins: AvailableCoins) => void): SelectionOutcome => {
    const coins = new AvailableCoins();
    setup(coins);
    const outcome = selectCoins({ availableCoins: coins, target, params });
    if (outcome.ok) {
      // Header, output and P2WPKH inputs stay within the standard weight, and the target is met.
      assert.ok((10 + 34 + 68 * outcome.result.inputCount) * 4 <= MAX_STANDARD_TX_WEIGHT);
      assert.ok(outcome.result.selectedValue() >= target);
    }
    return outcome;
  };
  const hasCoin = (result: SelectionResult, amount: bigint) => result.inputs().some((coin) => coin.effectiveValue === amount);

  // 1) 1515 × 0.033 BTC and one 50 BTC coin: only the 50 BTC coin keeps the transaction small enough.
  const result1 = unwrap(
    select((coins) => {
      for (let j = 0; j < 1515; j++) addCoin(coins, (33n * COIN) / 1000n, spendable);
      addCoin(coins, 50n * COIN, spendable);
    }),
  );
  assert.ok(hasCoin(result1, 50n * COIN));
  assert.ok(result1.weight <= maxWeight);

  // 2) 400 × 0.0625 and 2000 × 0.025 BTC: a mix of both, within the weight.
  const result2 = unwrap(
    select((coins) => {
      for (let j = 0; j < 400; j++) addCoin(coins, (625n * COIN) / 10_000n, spendable);
      for (let j = 0; j < 2000; j++) addCoin(coins, (25n * COIN) / 1000n, spendable);
    }),
  );
  assert.ok(hasCoin(result2, (625n * COIN) / 10_000n));
  assert.ok(hasCoin(result2, (25n * COIN) / 1000n));
  assert.ok(result2.weight <= maxWeight);

  // 3) 1515 × 0.033 BTC only: 412,080 WU of inputs is above the standard weight, no result.
  failure(
    select((coins) => {
      for (let j = 0; j < 1515; j++) addCoin(coins, (33n * COIN) / 1000n, spendable);
    }),
  );
});

portedTest('coinselector_tests/SelectCoins_effective_value_test', () => {
  // A pre-selected coin worth more than the target but whose effective value is less, with other
  // inputs not allowed: insufficient. Its 148 WU weight is 37 vbytes (FetchSelectedInputs).
  const preset = new SelectableCoin({ outpoint: freshOutpoint(), value: 100_000n, scriptPubKey: new Uint8Array(), depth: 0, inputBytes: 37, fromMe: false, feeRate: 3000n });
  preset.applyBumpFee(0n);
  const params = coinSelectionParams(testRng, {
    changeOutputSize: 34,
    changeSpendSize: 148,
    minChangeTarget: 1000n,
    effectiveFeeRate: 3000n,
    longTermFeeRate: 1000n,
    discardFeeRate: 1000n,
  });
  const error = failure(selectCoins({ availableCoins: new AvailableCoins(), presetInputs: [preset], target: 99_900n, allowOtherInputs: false, params }));
  assert.equal(error, COIN_SELECTION_ERROR.PRESELECTED_INSUFFICIENT);
});

portedTest('coinselector_tests/wallet_coinsresult_test', () => {
  const coins = new AvailableCoins();
  for (let i = 0; i < 10; i++) addCoin(coins, 1n * COIN);
  const toRemove = coins.all().slice(0, 2).map((coin) => coin.outpoint);
  coins.erase(toRemove);
  const left = coins.all();
  for (const outpoint of toRemove) assert.ok(!left.some((coin) => coin.outpoint === outpoint));
  assert.equal(coins.size(), 8);
  assert.equal(coins.totalAmount, 8n * COIN);
});

// ---------------------------------------------------------------------------------------------
// group_outputs_tests.cpp

portedTest('group_outputs_tests/outputs_grouping_tests', () => {
  const pool = new AvailableCoins();
  const addWalletCoin = (script: Uint8Array, value: bigint, fromMe: boolean, feeRate: FeeRate = 0n, depth = 6): void => {
    pool.add('bech32', new SelectableCoin({ outpoint: freshOutpoint(), value, scriptPubKey: script, depth, inputBytes: P2WPKH_INPUT_VSIZE, fromMe, feeRate }));
  };
  const groupVerify = (filter: CoinEligibilityFilter, avoidPartialSpends: boolean, positiveOnly: boolean, expectedSize: number): void => {
    const params = coinSelectionParams(testRng, { minChangeTarget: CENT, avoidPartialSpends });
    const groups = groupOutputs(pool, params, [{ filter, allowMixedOutputTypes: true }]).for(filter).groupsByType.get('bech32');
    const list = positiveOnly ? groups?.positiveGroup : groups?.mixedGroup;
    assert.equal(list?.length ?? 0, expectedSize);
  };
  const groupAndVerify = (filter: CoinEligibilityFilter, withPartialSpends: number, withoutPartialSpends: number, positiveOnly: boolean): void => {
    groupVerify(filter, false, positiveOnly, withPartialSpends);
    groupVerify(filter, true, positiveOnly, withoutPartialSpends);
  };
  const BASIC_FILTER = eligibilityFilter(1, 6, 0);
  const GROUP_SIZE = 10;

  // 1, 2) Ten coins to one script: ten groups with partial spends, one without.
  const dest = freshP2wpkhScript();
  for (let i = 0; i < GROUP_SIZE; i++) addWalletCoin(dest, 10n * COIN, true);
  groupAndVerify(BASIC_FILTER, GROUP_SIZE, 1, true);

  // 3) Ten more to another script.
  const dest2 = freshP2wpkhScript();
  for (let i = 0; i < GROUP_SIZE; i++) addWalletCoin(dest2, 5n * COIN, true);
  groupAndVerify(BASIC_FILTER, GROUP_SIZE * 2, 2, true);

  // 4) A coin of negative effective value: left out of the positive groups only.
  const dest3 = freshP2wpkhScript();
  addWalletCoin(dest3, 1n, true, 100n);
  assert.ok(pool.all().at(-1)!.effectiveValue <= 0n);
  groupAndVerify(BASIC_FILTER, GROUP_SIZE * 2, 2, true);
  groupAndVerify(BASIC_FILTER, GROUP_SIZE * 2 + 1, 3, false);

  // 5) Not ours and only 5 confirmations: not eligible, in no group.
  addWalletCoin(freshP2wpkhScript(), 6n * COIN, false, 0n, 5);
  groupAndVerify(BASIC_FILTER, GROUP_SIZE * 2 + 1, 3, false);

  // 6) Ours but unconfirmed: not eligible either.
  addWalletCoin(freshP2wpkhScript(), 6n * COIN, true, 0n, 0);
  groupAndVerify(BASIC_FILTER, GROUP_SIZE * 2 + 1, 3, false);

  // 7) 101 coins to one script: a full group of OUTPUT_GROUP_MAX_ENTRIES and a partial one.
  const dest7 = freshP2wpkhScript();
  for (let i = 0; i < 101; i++) addWalletCoin(dest7, 9n * COIN, true);
  const previousRound = GROUP_SIZE * 2 + 1;
  // Without partial groups only the full group is added ...
  groupAndVerify(BASIC_FILTER, previousRound + 101, 4, false);
  // ... and with them the partial one too.
  groupAndVerify(eligibilityFilter(1, 6, 0, 0, true), previousRound + 101, 5, false);
});

// ---------------------------------------------------------------------------------------------
// amount_tests.cpp: CFeeRate::GetFee as v31 computes it (rounding up).

portedTest('amount_tests/GetFeeTest', () => {
  // A zero rate is always free.
  assert.equal(feeAtRate(0n, 0), 0n);
  assert.equal(feeAtRate(0n, 100_000), 0n);
  // 1000 sat/kvB: the size.
  for (const size of [0, 1, 121, 999, 1000, 9000]) assert.equal(feeAtRate(1000n, size), BigInt(size));
  // -1000 sat/kvB: minus the size.
  for (const size of [0, 1, 121, 999, 1000, 9000]) assert.equal(feeAtRate(-1000n, size), -BigInt(size));
  // 123 sat/kvB rounds up, so never 0 for a non-empty size.
  const expected123: [number, bigint][] = [[0, 0n], [8, 1n], [9, 2n], [121, 15n], [122, 16n], [999, 123n], [1000, 123n], [9000, 1107n]];
  for (const [size, fee] of expected123) assert.equal(feeAtRate(123n, size), fee);
  // -123 sat/kvB: -1 where it would round to 0.
  assert.equal(feeAtRate(-123n, 0), 0n);
  assert.equal(feeAtRate(-123n, 8), -1n);
  assert.equal(feeAtRate(-123n, 9), -1n);
});

// ---------------------------------------------------------------------------------------------
// Checks derived from Core's code (not its tests): counted separately.

test('derived: GenerateChangeTarget stays within its bounds and draws nothing for small payments', () => {
  const draws: number[] = [];
  const rng = seededSelectionRng(10);
  const counting: SelectionRng = { ...rng, randrange: (n) => { draws.push(n); return rng.randrange(n); } };
  // payment <= CHANGE_LOWER / 2: exactly change_fee + CHANGE_LOWER, no randomness.
  assert.equal(generateChangeTarget(25_000n, 155n, counting), 155n + CHANGE_LOWER);
  assert.equal(draws.length, 0);
  for (const payment of [25_001n, 40_000n, 300_000n, 10n * COIN]) {
    const upper = payment * 2n < CHANGE_UPPER ? payment * 2n : CHANGE_UPPER;
    for (let i = 0; i < 200; i++) {
      const changeTarget = generateChangeTarget(payment, 155n, counting);
      assert.ok(changeTarget >= 155n + CHANGE_LOWER && changeTarget < 155n + upper);
    }
    assert.equal(draws.at(-1), Number(upper - CHANGE_LOWER));
  }
  // The crypto-backed default is usable the same way.
  const target = generateChangeTarget(COIN, 0n, cryptoSelectionRng());
  assert.ok(target >= CHANGE_LOWER && target < CHANGE_UPPER);
});

test('derived: SelectionResult ordering, change and merge follow operator<, GetChange and Merge', () => {
  const make = (values: bigint[], target: bigint, algorithm = SELECTION_ALGORITHM.MANUAL as (typeof SELECTION_ALGORITHM)[keyof typeof SELECTION_ALGORITHM]) => {
    const selection = new SelectionResult(target, algorithm);
    for (const value of values) addCoinToSelection(value, selection, 10n, 10n);
    return selection;
  };
  const oneInput = make([1000n], 500n);
  const twoInputs = make([405n, 605n], 500n);
  oneInput.recalculateWaste(10_000n, 7n, 0n);
  twoInputs.recalculateWaste(10_000n, 7n, 0n);
  // Equal waste (no change, fee = long-term fee: the 490 excess of 990 effective over 500): more inputs win.
  assert.equal(oneInput.waste, twoInputs.waste);
  assert.ok(isBetterSelection(twoInputs, oneInput));
  assert.ok(!isBetterSelection(oneInput, twoInputs));
  // Change below min_viable_change is dropped; at or above it is kept.
  assert.equal(oneInput.waste, 490n);
  assert.equal(oneInput.change(491n, 0n), 0n);
  assert.equal(oneInput.change(490n, 0n), 490n);
  assert.equal(oneInput.change(400n, 90n), 400n); // the change output's own fee comes out of it
  // Merge: targets add, a manual selection takes the other's algorithm, a shared input is a bug.
  const automatic = make([2000n], 1000n, SELECTION_ALGORITHM.SRD);
  const manual = make([3000n], 2000n);
  manual.merge(automatic);
  assert.equal(manual.target, 3000n);
  assert.equal(manual.algorithm, SELECTION_ALGORITHM.SRD);
  assert.equal(manual.selectedValue(), 5000n);
  assert.throws(() => manual.merge(automatic), /Shared UTXOs among selection results/);
});

test('derived: ChooseSelectionResult runs CoinGrinder only above 3 × the long-term rate, and reports weight errors', () => {
  // One coin of 6 BTC + 1 sat or two of 3 BTC pay 5 BTC. Knapsack takes the two (its "lowest
  // larger" coin is not closer than their 6 BTC); only CoinGrinder is sure to find the lighter single coin.
  const chosen = (effectiveFeeRate: FeeRate): SelectionResult => {
    const params = initCsParams(effectiveFeeRate, seededSelectionRng(11));
    const groups = [makeCoin(6n * COIN + 1n, params), makeCoin(3n * COIN, params), makeCoin(3n * COIN, params)];
    return unwrap(chooseSelectionResult(5n * COIN, { positiveGroup: [...groups], mixedGroup: [...groups] }, params));
  };
  // Exactly 3 × the 10 sat/vB long-term rate is not above it: no CoinGrinder.
  assert.notEqual(chosen(30_000n).algorithm, SELECTION_ALGORITHM.CG);
  const above = chosen(30_001n);
  assert.equal(above.algorithm, SELECTION_ALGORITHM.CG);
  assert.deepEqual(inputValues(above), [6n * COIN + 1n + feeAtRate(30_001n, P2WPKH_INPUT_VSIZE)]);

  const groupsFor = (params: CoinSelectionParams) => {
    const groups = [makeCoin(3n * COIN, params), makeCoin(3n * COIN, params)];
    return { positiveGroup: [...groups], mixedGroup: [...groups] };
  };
  const tooHeavy = { ...initCsParams(5000n), maxTxWeight: (11 + P2WPKH_OUTPUT_VSIZE) * 4 };
  assert.equal(failure(chooseSelectionResult(COIN, groupsFor(tooHeavy), tooHeavy)), COIN_SELECTION_ERROR.MAX_WEIGHT_BELOW_NO_INPUTS_WEIGHT);
  const noRoomForChange = { ...initCsParams(5000n), maxTxWeight: (11 + P2WPKH_OUTPUT_VSIZE) * 4 + 100 };
  assert.equal(failure(chooseSelectionResult(COIN, groupsFor(noRoomForChange), noRoomForChange)), COIN_SELECTION_ERROR.MAX_WEIGHT_TOO_LOW_FOR_CHANGE);
});

test('derived: AutomaticCoinSelection climbs the eligibility ladder and names too long unconfirmed chains', () => {
  const params = initCsParams(1000n, seededSelectionRng(13));
  // Unconfirmed change with 3 ancestors: eligible only from filter (0, 1, 4, 4) on.
  const coins = new AvailableCoins();
  coins.add('bech32', new SelectableCoin({ outpoint: freshOutpoint(), value: COIN, scriptPubKey: freshP2wpkhScript(), depth: 0, inputBytes: 68, fromMe: true, ancestors: 3, descendants: 3, feeRate: 1000n }));
  const result = unwrap(selectCoins({ availableCoins: coins, target: COIN / 2n, params }));
  assert.equal(result.inputCount, 1);
  // Without -spendzeroconfchange it cannot be used at all.
  assert.equal(failure(selectCoins({ availableCoins: coins, target: COIN / 2n, params, context: { spendZeroConfChange: false } })), '');

  // Ancestry beyond the mempool limit: Core's dedicated message.
  const longChain = new AvailableCoins();
  longChain.add('bech32', new SelectableCoin({ outpoint: freshOutpoint(), value: COIN, scriptPubKey: freshP2wpkhScript(), depth: 0, inputBytes: 68, fromMe: true, ancestors: 25, descendants: 25, feeRate: 1000n }));
  assert.equal(failure(selectCoins({ availableCoins: longChain, target: COIN / 2n, params })), COIN_SELECTION_ERROR.UNCONFIRMED_CHAIN_TOO_LONG);
  // With -walletrejectlongchains=0 the unlimited filter funds it.
  unwrap(selectCoins({ availableCoins: longChain, target: COIN / 2n, params, context: { rejectLongChains: false } }));

  const ladder = orderedEligibilityFilters({ limitAncestorCount: 25, limitDescendantCount: 25, spendZeroConfChange: true, rejectLongChains: true, includeUnsafeInputs: false });
  assert.deepEqual(
    ladder.map(({ filter: f, allowMixedOutputTypes }) => [f.confMine, f.confTheirs, f.maxAncestors, f.maxDescendants, f.includePartialGroups, allowMixedOutputTypes]),
    [
      [1, 6, 0, 0, false, false],
      [1, 1, 0, 0, false, true],
      [0, 1, 2, 2, false, true],
      [0, 1, 4, 4, false, true],
      [0, 1, 12, 12, false, true],
      [0, 1, 24, 24, true, true],
    ],
  );
});

test('derived: prepareTransactionSelection sets up CreateTransactionInternal’s parameters and target', () => {
  const recipientScript = freshP2wpkhScript();
  const prepared = prepareTransactionSelection({
    rng: seededSelectionRng(14),
    recipients: [{ amount: 10_000n, scriptPubKey: recipientScript, subtractFeeFromAmount: false }],
    effectiveFeeRate: 2000n,
    changeScriptPubKey: freshP2wpkhScript(),
    changeSpendSize: 68,
  });
  assert.ok(prepared.ok);
  const { params, selectionTarget } = prepared;
  // 10 + 1 output count + 31-byte P2WPKH output.
  assert.equal(params.txNoInputsSize, 42);
  assert.equal(params.changeOutputSize, 31);
  assert.equal(params.changeFee, 62n);
  // Spending change at the 10 sat/vB discard rate: 680; dust at that rate is 980 (31 + 67 bytes).
  assert.equal(params.costOfChange, 680n + 62n);
  assert.equal(params.minViableChange, 980n);
  // A 10,000 sat payment is at most CHANGE_LOWER / 2: the change target is just change fee + CHANGE_LOWER.
  assert.equal(params.minChangeTarget, 62n + CHANGE_LOWER);
  assert.equal(selectionTarget, 10_000n + 84n);

  const nothing = prepareTransactionSelection({
    rng: seededSelectionRng(15),
    recipients: [{ amount: 0n, scriptPubKey: Uint8Array.of(0x6a), subtractFeeFromAmount: false }],
    effectiveFeeRate: 0n,
    changeScriptPubKey: freshP2wpkhScript(),
    changeSpendSize: -1,
  });
  assert.deepEqual(nothing, { ok: false, error: COIN_SELECTION_ERROR.NOTHING_TO_FUND });
  const badWeight = prepareTransactionSelection({
    rng: seededSelectionRng(16),
    recipients: [{ amount: 1n, scriptPubKey: recipientScript, subtractFeeFromAmount: false }],
    effectiveFeeRate: 1000n,
    changeScriptPubKey: freshP2wpkhScript(),
    changeSpendSize: 68,
    maxTxWeight: 100,
  });
  assert.deepEqual(badWeight, { ok: false, error: 'Maximum transaction weight must be between 260 and 400000' });
});

test('derived: -maxapsfee decides between the grouped and ungrouped builds as CreateTransaction does', () => {
  assert.equal(shouldTryAvoidPartialSpends(1000n, 0n, false), true);
  assert.equal(shouldTryAvoidPartialSpends(0n, 0n, false), false); // fee 0: estimation not working
  assert.equal(shouldTryAvoidPartialSpends(1000n, -1n, false), false); // -maxapsfee=-1 disables it
  assert.equal(shouldTryAvoidPartialSpends(1000n, 0n, true), false);
  assert.equal(preferAvoidPartialSpends(1000n, 1000n, 0n), true);
  assert.equal(preferAvoidPartialSpends(1000n, 1001n, 0n), false);
  assert.equal(preferAvoidPartialSpends(1000n, 1500n, 500n), true);
  assert.equal(preferAvoidPartialSpends(1000n, null, 500n), false);
});

test('ported Core cases: tally', (t) => {
  const passed = portedCases.filter((c) => c.passed).length;
  const failedNames = portedCases.filter((c) => !c.passed).map((c) => c.name);
  t.diagnostic(`coin selection: ${passed} of ${portedCases.length} ported Core test cases pass`);
  assert.deepEqual(failedNames, []);
});
