/**
 * An RPC's rescan runs without stalling the node: while rescanblockchain scans a long chain,
 * getwalletinfo reports its progress (Core's "scanning" object), other calls are answered, a
 * second rescan or an import is refused with Core's -4, and abortrescan stops it (the
 * rescan answers Core's "Rescan aborted."); a rescan left alone finishes with the wallet's
 * balance as before.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Daemon, walletCaller } from './daemon-harness.js';
import { errorOf } from './wallet-answers.js';

test('rescanblockchain yields to other calls, reports its progress, refuses a second rescan and stops on abortrescan', async () => {
  const node = await Daemon.start({ args: ['-connect=0'] });
  try {
    await node.call('createwallet', ['w']);
    const w = walletCaller(node, 'w');
    const address = await w('getnewaddress');
    // Long enough that the scan spans many of its slices; most blocks pay elsewhere (a block
    // the wallet owns costs it more to take in, and the scan reads every block either way).
    await node.call('generatetoaddress', [1000, address]);
    for (let i = 0; i < 3; i++) await node.call('generatetoaddress', [1000, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080']);
    const balance = await w('getbalance');
    assert.deepEqual(await w('abortrescan'), false, 'nothing to abort');

    const rescan = w('rescanblockchain').then(
      (result) => ({ result }),
      (err: Error) => ({ error: err.message }),
    );
    let settled = false;
    void rescan.then(() => (settled = true));
    let seen: { duration: number; progress: number } | undefined;
    while (!settled && !seen) {
      const info = await w('getwalletinfo');
      if (typeof info.scanning === 'object') seen = info.scanning;
    }
    assert.ok(seen, 'getwalletinfo saw the rescan in progress (the node answered during it)');
    assert.ok(seen.duration >= 0 && seen.progress >= 0 && seen.progress <= 1, JSON.stringify(seen));
    // Asked together while it runs: each waits for the scan's next pause, not for its end.
    const [second, importing, height] = await Promise.all([errorOf(() => w('rescanblockchain')), errorOf(() => w('importdescriptors', [[]])), node.call('getblockcount')]);
    const busy = { code: -4, message: 'Wallet is currently rescanning. Abort existing rescan or wait.' };
    assert.deepEqual({ second, importing, height }, { second: busy, importing: busy, height: 4000 });
    assert.equal(await w('abortrescan'), true);
    assert.deepEqual(await rescan, { error: 'rescanblockchain: -1 Rescan aborted.' });
    assert.equal(await w('abortrescan'), false);

    // Left alone, it finishes: the whole chain, the same balance.
    assert.deepEqual(await w('rescanblockchain'), { start_height: 0, stop_height: 4000 });
    assert.equal(await w('getbalance'), balance);
    assert.equal((await w('getwalletinfo')).scanning, false);
  } finally {
    await node.stop();
    node.cleanup();
  }
});
