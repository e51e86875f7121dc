/** The tip long polls against a real daemon: timeouts, waking on new blocks, Core's errors. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon } from './daemon-harness.js';

const ADDRESS = 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk';
let d: Daemon;

before(async () => {
  d = await Daemon.start({ args: ['-rpcfrontends=2'] });
});
after(async () => {
  await d.cleanup();
});

test('waitfornewblock returns the current tip on timeout and the new one when a block arrives', async () => {
  const genesis = (await d.rpc('getbestblockhash')).json.result;
  const started = Date.now();
  const timedOut = await d.rpc('waitfornewblock', [200]);
  assert.ok(Date.now() - started >= 180, 'waited for the timeout');
  assert.deepEqual(timedOut.json.result, { hash: genesis, height: 0 });
  const waiting = d.rpc('waitfornewblock', [0]);
  const [mined] = (await d.rpc('generatetoaddress', [1, ADDRESS])).json.result;
  assert.deepEqual((await waiting).json.result, { hash: mined, height: 1 });
  // current_tip given: returns at once when the tip already differs.
  assert.deepEqual((await d.rpc('waitfornewblock', [0, genesis])).json.result, { hash: mined, height: 1 });
});

test('waitforblockheight and waitforblock wake exactly when their block is the tip', async () => {
  const start = (await d.rpc('getblockcount')).json.result as number;
  const byHeight = d.rpc('waitforblockheight', [start + 3, 0]);
  const proposal = (await d.rpc('generateblock', [ADDRESS, [], false])).json.result;
  const byHash = d.rpc('waitforblock', [proposal.hash, 0]);
  assert.equal((await d.rpc('submitblock', [proposal.hex])).json.result, null);
  assert.deepEqual((await byHash).json.result, { hash: proposal.hash, height: start + 1 });
  const hashes = (await d.rpc('generatetoaddress', [2, ADDRESS])).json.result;
  assert.deepEqual((await byHeight).json.result, { hash: hashes[1], height: start + 3 });
  // Already reached: immediate.
  assert.equal((await d.rpc('waitforblockheight', [1, 0])).json.result.height, start + 3);
});

test('negative timeouts and bad hashes get Core’s errors', async () => {
  assert.deepEqual((await d.rpc('waitfornewblock', [-1])).json.error, { code: -1, message: 'Negative timeout' });
  assert.deepEqual((await d.rpc('waitforblockheight', [1, -5])).json.error, { code: -1, message: 'Negative timeout' });
  assert.deepEqual((await d.rpc('waitforblock', ['00', 10])).json.error, {
    code: -8,
    message: "blockhash must be of length 64 (not 2, for '00')",
  });
});
