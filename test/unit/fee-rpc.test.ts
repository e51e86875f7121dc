/**
 * estimatesmartfee and estimaterawfee through the real dispatcher: help texts equal
 * Core v31.0's (fixture taken from bitcoind's `help`), an empty estimator's answers
 * are the JSON text bitcoind v31 gives on a fresh node, and argument errors are Core's.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { BlockPolicyEstimator, type NewPoolTransaction } from '../../src/fees/index.js';
import { feeMethods } from '../../src/rpc/index.js';
import { caller } from './rpc-call-helper.js';

const fixtures = JSON.parse(fs.readFileSync(new URL('../../../test/unit/fixtures/core-v31-fee-help.json', import.meta.url), 'utf8')) as Record<string, string>;

function rpcFor(estimator: BlockPolicyEstimator | undefined, minFeeRate = 100n) {
  return caller(...feeMethods({ estimator: () => estimator, minFeeRate: () => minFeeRate }));
}

const FAIL_ALL = '{"startrange":0,"endrange":1e+99,"withintarget":0,"totalconfirmed":0,"inmempool":0,"leftmempool":0}';
const NO_THRESHOLD = '"errors":["Insufficient data or no feerate found which meets threshold"]';

test('help estimatesmartfee / estimaterawfee equal Core v31.0’s text', () => {
  const rpc = rpcFor(new BlockPolicyEstimator());
  for (const name of ['estimatesmartfee', 'estimaterawfee']) assert.equal(rpc.registry.help(name), fixtures[name], name);
  // estimaterawfee is hidden: the listing shows only estimatesmartfee, under Util.
  assert.equal(rpc.registry.help(''), '== Util ==\nestimatesmartfee conf_target ( "estimate_mode" )');
});

test('a fresh estimator answers as a fresh bitcoind v31', async () => {
  const rpc = rpcFor(new BlockPolicyEstimator());
  assert.equal(await rpc.text('estimatesmartfee', [2]), '{"errors":["Insufficient data or no feerate found"],"blocks":0}');
  assert.equal(await rpc.text('estimatesmartfee', [2, 'CONSERVATIVE']), '{"errors":["Insufficient data or no feerate found"],"blocks":0}');
  const horizon = (name: string, decay: string, scale: number) => `"${name}":{"decay":${decay},"scale":${scale},"fail":${FAIL_ALL},${NO_THRESHOLD}}`;
  assert.equal(await rpc.text('estimaterawfee', [2]), `{${horizon('short', '0.962', 1)},${horizon('medium', '0.9952', 2)},${horizon('long', '0.99931', 24)}}`);
  assert.equal(await rpc.text('estimaterawfee', [13, 0.5]), `{${horizon('medium', '0.9952', 2)},${horizon('long', '0.99931', 24)}}`);
  assert.equal(await rpc.text('estimaterawfee', [200]), `{${horizon('long', '0.99931', 24)}}`);
});

test('argument errors are Core’s', async () => {
  const rpc = rpcFor(new BlockPolicyEstimator());
  const invalidTarget = { code: -8, message: 'Invalid conf_target, must be between 1 and 1008' };
  assert.deepEqual(await rpc.error('estimatesmartfee', [0]), invalidTarget);
  assert.deepEqual(await rpc.error('estimatesmartfee', [1009]), invalidTarget);
  assert.deepEqual(await rpc.error('estimaterawfee', [1009]), invalidTarget);
  assert.deepEqual(await rpc.error('estimatesmartfee', [2.5]), { code: -1, message: 'JSON integer out of range' });
  assert.deepEqual(await rpc.error('estimatesmartfee', [2, 'foo']), { code: -8, message: 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"' });
  assert.deepEqual(await rpc.error('estimaterawfee', [2, 2]), { code: -8, message: 'Invalid threshold' });
  assert.deepEqual(await rpc.error('estimaterawfee', [2, -0.1]), { code: -8, message: 'Invalid threshold' });
  assert.deepEqual(await rpcFor(undefined).error('estimatesmartfee', [2]), { code: -32603, message: 'Fee estimation disabled' });
});

test('an estimate is floored at the minimum fee rate and reported with its pass and fail ranges', async () => {
  const est = new BlockPolicyEstimator();
  est.processBlock([], 1);
  const tx = (id: string, rate: number, height: number): NewPoolTransaction => ({
    txid: id,
    fee: BigInt(rate),
    vsize: 1000,
    height,
    limitsBypassed: false,
    submittedInPackage: false,
    chainstateIsCurrent: true,
    hasNoPoolParents: true,
  });
  for (let h = 1; h <= 20; h++) {
    const txs = Array.from({ length: 10 }, (_, i) => tx(`${h}-${i}`, 4000, h));
    for (const t of txs) est.processTransaction(t);
    est.processBlock(txs, h + 1);
  }
  assert.deepEqual(await rpcFor(est).result('estimatesmartfee', [6]), { feerate: 0.00004, blocks: 6 });
  assert.deepEqual(await rpcFor(est).result('estimatesmartfee', [1008, 'economical']), { feerate: 0.00004, blocks: 9 });
  assert.deepEqual(await rpcFor(est, 5000n).result('estimatesmartfee', [6]), { feerate: 0.00005, blocks: 6 });
  const raw = await rpcFor(est).text('estimaterawfee', [1]);
  // 200 confirmations decayed over 20 blocks: 10 * (1 - 0.962^20) / 0.038 = 141.9 on the short horizon.
  const empty = '"withintarget":0,"totalconfirmed":0,"inmempool":0,"leftmempool":0';
  assert.ok(
    raw.startsWith(
      '{"short":{"feerate":0.00004000,"decay":0.962,"scale":1,"pass":{"startrange":3883,"endrange":1e+99,"withintarget":141.9,"totalconfirmed":141.9,"inmempool":0,"leftmempool":0},' +
        `"fail":{"startrange":0,"endrange":3883,${empty}}},`,
    ),
    raw,
  );
});
