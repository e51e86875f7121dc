/**
 * fee_estimates.dat at start-up, on tsbtcd and the reference bitcoind v31.0 alike: a file
 * written by the project's encoder (the format bitcoind's own files were checked against
 * in fee-estimation-bitcoind.test.ts) is loaded when fresh, refused with Core's warning
 * when older than 60 hours unless -acceptstalefeeestimates, and a corrupt one is
 * reported and skipped; the estimates both nodes then give are the same.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BlockPolicyEstimator, encodeFeeEstimates } from '../../src/fees/index.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, runToExit } from './daemon-harness.js';

const reference = referenceBitcoind();

/** Twenty blocks each confirming ten 7,000 sat/kvB transactions the block after they entered. */
function estimatesFile(): Uint8Array {
  const est = new BlockPolicyEstimator();
  est.processBlock([], 1);
  for (let h = 1; h <= 20; h++) {
    const txs = Array.from({ length: 10 }, (_, i) => ({ txid: `${h}-${i}`, fee: 7000n, vsize: 1000, height: h }));
    for (const tx of txs) est.processTransaction({ ...tx, limitsBypassed: false, submittedInPackage: false, chainstateIsCurrent: true, hasNoPoolParents: true });
    est.processBlock(txs, h + 1);
  }
  return encodeFeeEstimates(est.state());
}

type Case = { name: string; contents: Uint8Array; ageHours: number; args: string[]; expect: 'loaded' | 'stale' | 'corrupt' };

const FILE = estimatesFile();
const CASES: Case[] = [
  { name: 'fresh', contents: FILE, ageHours: 0, args: [], expect: 'loaded' },
  { name: '61 hours old', contents: FILE, ageHours: 61, args: [], expect: 'stale' },
  { name: '61 hours old, -acceptstalefeeestimates', contents: FILE, ageHours: 61, args: ['-acceptstalefeeestimates'], expect: 'loaded' },
  { name: 'truncated', contents: FILE.slice(0, 5000), ageHours: 0, args: [], expect: 'corrupt' },
];

function datadirWith(c: Case): string {
  const dir = mkdtempSync(join(tmpdir(), 'tsbtcd-feefile-'));
  mkdirSync(join(dir, 'regtest'));
  const file = join(dir, 'regtest', 'fee_estimates.dat');
  writeFileSync(file, c.contents);
  const when = Date.now() / 1000 - c.ageHours * 3600;
  utimesSync(file, when, when);
  return dir;
}

async function runCase(c: Case, start: (dir: string) => Promise<{ call: (m: string, p: unknown[]) => Promise<any>; log: () => string; stop: () => Promise<void> }>) {
  const dir = datadirWith(c);
  const node = await start(dir);
  try {
    const smart = await node.call('estimatesmartfee', [6]);
    const log = node.log();
    return { smart, log };
  } finally {
    await node.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const c of CASES) {
  test(`fee_estimates.dat ${c.name}: tsbtcd ${c.expect === 'loaded' ? 'loads it' : 'skips it'}${'path' in reference ? ', as bitcoind' : ''}`, async () => {
    const ts = await runCase(c, async (dir) => {
      const d = await Daemon.start({ datadir: dir, args: ['-par=1', ...c.args] });
      return { call: (m, p) => d.call(m, p), log: () => d.debugLog(), stop: () => d.cleanup() };
    });
    if (c.expect === 'loaded') assert.deepEqual(ts.smart, { feerate: 0.00007, blocks: 6 });
    else assert.deepEqual(ts.smart, { errors: ['Insufficient data or no feerate found'], blocks: 0 });
    if (c.expect === 'stale') assert.match(ts.log, /Fee estimation file \S+fee_estimates\.dat too old \(age=61 > 60 hours\) and will not be used to avoid serving stale estimates\./);
    if (c.expect === 'corrupt') {
      assert.match(ts.log, /Unable to read policy estimator data \(non-fatal\): /);
      assert.match(ts.log, /Failed to read fee estimates from \S+fee_estimates\.dat\. Continue anyway\./);
    }
    if (!('path' in reference)) return;
    const core = await runCase(c, async (dir) => {
      const b = await BitcoindProcess.start(reference.path, ['-connect=0', '-disablewallet', ...c.args], dir);
      return { call: (m, p) => b.call(m, p), log: () => readFileSync(join(dir, 'regtest', 'debug.log'), 'utf8'), stop: () => b.stop() };
    });
    assert.deepEqual(ts.smart, core.smart);
    if (c.expect === 'stale') assert.match(core.log, /too old \(age=61 > 60 hours\)/);
    if (c.expect === 'corrupt') assert.match(core.log, /Failed to read fee estimates from/);
  });
}

test(`-blocksonly runs without a fee estimator: estimatesmartfee fails and no file is written${'path' in reference ? ', as bitcoind' : ''}`, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsbtcd-feefile-'));
  try {
    const d = await Daemon.start({ datadir: dir, args: ['-par=1', '-blocksonly'] });
    const error = (await d.rpc('estimatesmartfee', [2])).json.error;
    await d.stop();
    assert.deepEqual(error, { code: -32603, message: 'Fee estimation disabled' });
    assert.ok(!existsSync(join(dir, 'regtest', 'fee_estimates.dat')));
    if (!('path' in reference)) return;
    const coreDir = mkdtempSync(join(tmpdir(), 'tsbtcd-feefile-core-'));
    const b = await BitcoindProcess.start(reference.path, ['-connect=0', '-disablewallet', '-blocksonly'], coreDir);
    try {
      await assert.rejects(b.call('estimatesmartfee', [2]), (err: { code?: number; message: string }) => err.code === error.code && err.message.includes(error.message));
    } finally {
      await b.stop();
      assert.ok(!existsSync(join(coreDir, 'regtest', 'fee_estimates.dat')));
      rmSync(coreDir, { recursive: true, force: true });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('-acceptstalefeeestimates is refused off regtest, as in Core', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tsbtcd-feefile-'));
  try {
    const run = await runToExit(['-signet', `-datadir=${dir}`, '-acceptstalefeeestimates', '-printtoconsole=0', '-connect=0', '-listen=0']);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /acceptstalefeeestimates is not supported on signet chain\./);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
