import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  computeBlockVersion,
  deploymentActiveAfter,
  deploymentActiveAt,
  deploymentInfo,
  NO_TIMEOUT,
  periodStatistics,
  selectParams,
  VersionBitsCache,
  type ChainParams,
  type SelectParamsOptions,
} from '../../src/consensus/index.js';
import { extend, indexHeader, type TestIndex } from './consensus-test-chain.js';

const SIGNAL = 0x20000000 | (1 << 28);
const PLAIN = 0x20000000;

function regtest(options: SelectParamsOptions = {}): ChainParams {
  return selectParams('regtest', options);
}

/** Regtest genesis plus `count` blocks, ten minutes apart, signalling testdummy where `signals(height)`. */
function chain(params: ChainParams, count: number, signals: (height: number) => boolean = () => false): TestIndex {
  return extend(indexHeader(params.genesis.header, undefined), count, (h) => ({ time: params.genesis.header.time + h * 600, bits: 0x207fffff, version: signals(h) ? SIGNAL : PLAIN }));
}

test('testdummy on regtest: defined, started, locked in, active at period boundaries of 144', () => {
  const params = regtest();
  const cache = new VersionBitsCache();
  // Every block of the first signalling period (144..287) signals.
  const tip = chain(params, 600, (h) => h >= 144 && h < 288);
  const at = (h: number) => tip.ancestor(h)!;
  assert.equal(cache.state(undefined, params, 'testdummy'), 'defined');
  assert.equal(cache.state(at(0), params, 'testdummy'), 'defined');
  assert.equal(cache.state(at(142), params, 'testdummy'), 'defined');
  assert.equal(cache.state(at(143), params, 'testdummy'), 'started');
  assert.equal(cache.state(at(286), params, 'testdummy'), 'started');
  assert.equal(cache.state(at(287), params, 'testdummy'), 'locked_in');
  assert.equal(cache.state(at(430), params, 'testdummy'), 'locked_in');
  assert.equal(cache.state(at(431), params, 'testdummy'), 'active');
  assert.equal(cache.state(at(599), params, 'testdummy'), 'active');
  assert.equal(cache.stateSinceHeight(at(200), params, 'testdummy'), 144);
  assert.equal(cache.stateSinceHeight(at(300), params, 'testdummy'), 288);
  assert.equal(cache.stateSinceHeight(at(599), params, 'testdummy'), 432);
  assert.equal(cache.stateSinceHeight(at(100), params, 'testdummy'), 0);
  // Taproot is ALWAYS_ACTIVE on regtest.
  assert.equal(cache.state(undefined, params, 'taproot'), 'active');
  assert.equal(cache.stateSinceHeight(at(10), params, 'taproot'), 0);
  // A fresh cache computing from the tip backwards agrees with the one filled forwards.
  assert.equal(new VersionBitsCache().state(at(431), params, 'testdummy'), 'active');
  assert.ok(deploymentActiveAfter(at(431), params, 'testdummy', cache));
  assert.ok(!deploymentActiveAfter(at(430), params, 'testdummy', cache));
  assert.ok(deploymentActiveAt(at(432), params, 'testdummy', cache));
  assert.ok(!deploymentActiveAt(at(431), params, 'testdummy', cache));
});

test('the threshold is 108 of 144: 107 signals do not lock in', () => {
  const params = regtest();
  const cache = new VersionBitsCache();
  const short = chain(params, 300, (h) => h >= 144 && h < 144 + 107);
  assert.equal(cache.state(short.ancestor(287), params, 'testdummy'), 'started');
  const enough = chain(params, 300, (h) => h >= 144 && h < 144 + 108);
  assert.equal(cache.state(enough.ancestor(287), params, 'testdummy'), 'locked_in');
});

test('min_activation_height holds a locked-in deployment back until its boundary', () => {
  const params = regtest({ vbparams: { testdummy: { start: 0, timeout: NO_TIMEOUT, minActivationHeight: 1000 } } });
  const cache = new VersionBitsCache();
  const tip = chain(params, 1100, (h) => h >= 144 && h < 288);
  assert.equal(cache.state(tip.ancestor(287), params, 'testdummy'), 'locked_in');
  assert.equal(cache.state(tip.ancestor(863), params, 'testdummy'), 'locked_in');
  assert.equal(cache.state(tip.ancestor(1006), params, 'testdummy'), 'locked_in');
  assert.equal(cache.state(tip.ancestor(1007), params, 'testdummy'), 'active');
  assert.equal(cache.stateSinceHeight(tip.ancestor(1050), params, 'testdummy'), 1008);
  assert.equal(cache.info(tip.ancestor(1007)!, params, 'testdummy').activeSince, 1008);
});

test('timeout: a started deployment fails, but lock-in in the same period wins', () => {
  const genesisTime = selectParams('regtest').genesis.header.time;
  // Median time past of block 287 is the time of block 282.
  const timeout = BigInt(genesisTime + 282 * 600);
  const params = regtest({ vbparams: { testdummy: { start: 0, timeout } } });
  const failed = chain(params, 400);
  const cache = new VersionBitsCache();
  assert.equal(cache.state(failed.ancestor(287), params, 'testdummy'), 'failed');
  assert.equal(cache.state(failed.ancestor(399), params, 'testdummy'), 'failed');
  const locked = chain(params, 400, (h) => h >= 144 && h < 288);
  assert.equal(new VersionBitsCache().state(locked.ancestor(287), params, 'testdummy'), 'locked_in');
  // A start time not yet reached keeps it defined.
  const late = regtest({ vbparams: { testdummy: { start: BigInt(genesisTime + 1000 * 600), timeout: NO_TIMEOUT } } });
  const lateChain = chain(late, 400);
  assert.equal(new VersionBitsCache().state(lateChain.ancestor(287), late, 'testdummy'), 'defined');
});

test('block version: top bits plus started or locked-in deployments', () => {
  const params = regtest();
  const cache = new VersionBitsCache();
  const tip = chain(params, 450, (h) => h >= 144 && h < 288);
  assert.equal(computeBlockVersion(tip.ancestor(100), params, cache), 0x20000000);
  assert.equal(computeBlockVersion(tip.ancestor(143), params, cache), 0x30000000);
  assert.equal(computeBlockVersion(tip.ancestor(287), params, cache), 0x30000000);
  assert.equal(computeBlockVersion(tip.ancestor(431), params, cache), 0x20000000);
  assert.equal(computeBlockVersion(undefined, selectParams('main'), cache), 0x20000000);
});

test('period statistics and the signalling string', () => {
  const params = regtest();
  const tip = chain(params, 153, (h) => h >= 144 && h % 3 === 0);
  const signalling: boolean[] = [];
  const stats = periodStatistics(tip, params.deployments.testdummy, signalling);
  // Blocks 144..153: 144, 147, 150 and 153 signal.
  assert.deepEqual(stats, { period: 144, threshold: 108, elapsed: 10, count: 4, possible: true });
  assert.deepEqual(signalling, [true, false, false, true, false, false, true, false, false, true]);
  const hopeless = chain(params, 144 + 40, () => false);
  assert.equal(periodStatistics(hopeless, params.deployments.testdummy).possible, false);
  assert.deepEqual(periodStatistics(undefined, params.deployments.testdummy), { period: 144, threshold: 108, elapsed: 0, count: 0, possible: false });
});

/** JSON as Core's writer prints it: bigint values as plain numbers. */
function coreJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `__big${v}__` : v)).replace(/"__big(-?\d+)__"/g, '$1');
}

test('getdeploymentinfo at regtest genesis is byte-identical to Core (rpc-results.md sample)', () => {
  const params = regtest();
  const genesis = indexHeader(params.genesis.header, undefined);
  const expected =
    '{"hash":"0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206","height":0,"deployments":{"bip34":{"type":"buried","active":true,"height":1},"bip66":{"type":"buried","active":true,"height":1},"bip65":{"type":"buried","active":true,"height":1},"csv":{"type":"buried","active":true,"height":1},"segwit":{"type":"buried","active":true,"height":0},"testdummy":{"type":"bip9","active":false,"bip9":{"start_time":0,"timeout":9223372036854775807,"min_activation_height":0,"status":"defined","since":0,"status_next":"defined"}},"taproot":{"type":"bip9","height":0,"active":true,"bip9":{"start_time":-1,"timeout":9223372036854775807,"min_activation_height":0,"status":"active","since":0,"status_next":"active"}}}}';
  assert.equal(coreJson(deploymentInfo(genesis, params, new VersionBitsCache())), expected);
  // At height 111 (the other sample) the deployments read the same.
  const at111 = coreJson(deploymentInfo(chain(params, 111), params, new VersionBitsCache()));
  assert.equal(at111.slice(at111.indexOf('"deployments"')), expected.slice(expected.indexOf('"deployments"')));
});

test('getdeploymentinfo while started and locked in: bit, statistics, signalling', () => {
  const params = regtest();
  const cache = new VersionBitsCache();
  const tip = chain(params, 450, (h) => h >= 144 && h < 288);
  const started = deploymentInfo(tip.ancestor(145)!, params, cache).deployments.testdummy!;
  assert.equal(
    coreJson(started),
    '{"type":"bip9","active":false,"bip9":{"bit":28,"start_time":0,"timeout":9223372036854775807,"min_activation_height":0,"status":"started","since":144,"status_next":"started","statistics":{"period":144,"elapsed":2,"count":2,"threshold":108,"possible":true},"signalling":"##"}}',
  );
  const locked = deploymentInfo(tip.ancestor(290)!, params, cache).deployments.testdummy!;
  assert.equal(
    coreJson(locked),
    '{"type":"bip9","active":false,"bip9":{"bit":28,"start_time":0,"timeout":9223372036854775807,"min_activation_height":0,"status":"locked_in","since":288,"status_next":"locked_in","statistics":{"period":144,"elapsed":3,"count":0},"signalling":"---"}}',
  );
  // The last locked-in block reports the activation height of its child.
  const activating = deploymentInfo(tip.ancestor(431)!, params, cache).deployments.testdummy!;
  assert.equal(activating.type === 'bip9' && activating.height, 432);
  assert.equal(activating.active, true);
  // NEVER_ACTIVE deployments are not reported.
  const main = selectParams('main');
  const mainGenesis = indexHeader(main.genesis.header, undefined);
  assert.deepEqual(Object.keys(deploymentInfo(mainGenesis, main, new VersionBitsCache()).deployments), ['bip34', 'bip66', 'bip65', 'csv', 'segwit', 'taproot']);
});
