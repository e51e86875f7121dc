/**
 * -sigbackend with real processes: an unknown value stops start-up with a clear init error
 * (exit code 1, as Core for a bad option), -help documents the option, and a node started
 * with -sigbackend=noble logs its backend and validates blocks with signed spends (the
 * native default runs in every other daemon test).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { mineWithSpends } from '../support/regtest-mining.js';
import { TestWallet } from '../support/wallet.js';
import { Daemon, runToExit, tempDir } from './daemon-harness.js';

test('-sigbackend=bogus is refused with a clear message and exit code 1', async () => {
  const dir = tempDir();
  try {
    const r = await runToExit(['-regtest', `-datadir=${dir}`, '-printtoconsole=0', '-sigbackend=bogus']);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, 'Error: Invalid -sigbackend value "bogus" (one of native, noble).\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('-help documents -sigbackend', async () => {
  const r = await runToExit(['-help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /-sigbackend=<backend>\n\s+Signature verification backend: native/);
});

test('-sigbackend=noble starts, logs the backend and validates blocks with signed spends', async () => {
  const d = await Daemon.start({ args: ['-sigbackend=noble'] });
  try {
    const stats = await mineWithSpends(d, new TestWallet(41), 0, 106, { seed: 41 });
    assert.ok(stats.blocksWithTransactions.length >= 4, `blocks with spends: ${stats.blocksWithTransactions.length}`);
    assert.equal(await d.call<number>('getblockcount'), 106);
    assert.match(d.debugLog(), /Using signature backend @noble\/secp256k1\n/);
  } finally {
    await d.cleanup();
  }
});
