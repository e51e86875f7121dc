/**
 * `make bench-import`: importing a generated regtest chain (import-chain.ts: ≥ 1,000
 * blocks, ≥ 200,000 transactions with real P2WPKH and P2TR key-path signatures) through the
 * real import path, twice in one run, each in a fresh data directory and a process of its
 * own (import-run.ts):
 *
 *  (a) every script checked (-assumevalid=0);
 *  (b) -assumevalid set to the last block: Core's rule skips the scripts of its ancestors
 *      that are buried under more than two weeks of work below the best header; the output
 *      says how many blocks and inputs still had their scripts checked.
 *
 * Prints blocks/s, transactions/s (coinbases included, as Core counts them), inputs/s
 * (non-coinbase inputs) and peak RSS for each, then the ratio (b)/(a). Both runs must end
 * on the same tip with the same UTXO set, or the benchmark fails.
 *
 * Options: --par N script-check threads (default one per core), --dbcache MiB (default
 * 450, Core's default).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureChain, type ChainMeta } from './import-chain.js';
import type { ImportRunOptions, ImportRunResult } from './import-run.js';
import { fmt, pad } from './measure.js';

/** native-bench/.cache in the checkout (this file runs from dist/native-bench). */
const CACHE_DIR = fileURLToPath(new URL('../../native-bench/.cache/', import.meta.url));
const RUNNER = fileURLToPath(new URL('./import-run.js', import.meta.url));

function runImport(options: ImportRunOptions): Promise<ImportRunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNNER, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').pop();
      if (code !== 0 || !last) return reject(new Error(`the import process exited with code ${code}`));
      resolve(JSON.parse(last) as ImportRunResult);
    });
  });
}

interface Mode {
  label: string;
  assumeValid: string | null;
  result?: ImportRunResult;
}

function rates(meta: ChainMeta, r: ImportRunResult) {
  const transactions = meta.transactions + meta.blocks; // with one coinbase per block
  return {
    blocks: meta.blocks / r.seconds,
    transactions: transactions / r.seconds,
    inputs: meta.inputs / r.seconds,
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { par: { type: 'string' }, dbcache: { type: 'string' } } });
  const threads = values.par === undefined ? availableParallelism() : Number(values.par);
  const dbcacheMiB = values.dbcache === undefined ? 450 : Number(values.dbcache);
  if (!Number.isInteger(threads) || threads < 1) throw new Error('--par needs a whole number of threads, at least 1');
  if (!Number.isInteger(dbcacheMiB) || dbcacheMiB < 4) throw new Error('--dbcache needs a whole number of MiB, at least 4');

  const { file, meta } = await ensureChain(CACHE_DIR);
  const coinbases = meta.blocks;
  console.log(
    `\nChain: ${fmt(meta.blocks)} blocks after genesis (${fmt(meta.txBlocks)} with transactions, then ${fmt(meta.tailBlocks)} coinbase-only), ` +
      `${fmt(meta.transactions)} transactions + ${fmt(coinbases)} coinbases, ${fmt(meta.inputs)} signed inputs, ${fmt(meta.bytes / 1e6, 1)} MB`,
  );
  console.log(`Import: importBlockFile into a Chainstate on LMDB, ${threads} script-check thread${threads === 1 ? '' : 's'}, dbcache ${dbcacheMiB} MiB, a fresh data directory and process per mode\n`);

  const modes: Mode[] = [
    { label: 'all scripts (assumevalid=0)', assumeValid: null },
    { label: 'assumevalid=last block', assumeValid: meta.lastHash },
  ];
  for (const mode of modes) {
    const datadir = mkdtempSync(join(tmpdir(), 'tsbtcd-bench-import-'));
    console.log(`  importing: ${mode.label} ...`);
    try {
      mode.result = await runImport({ file, datadir, assumeValid: mode.assumeValid, threads, dbcacheMiB });
    } finally {
      rmSync(datadir, { recursive: true, force: true });
    }
    const r = mode.result;
    if (r.tipHeight !== meta.blocks || r.tipHash !== meta.lastHash) {
      throw new Error(`${mode.label}: the import ended at height ${r.tipHeight} (${r.tipHash}), not at the chain's tip ${meta.blocks} (${meta.lastHash})`);
    }
  }
  const [all, assumed] = modes.map((m) => m.result!) as [ImportRunResult, ImportRunResult];
  if (all.utxoHash !== assumed.utxoHash) throw new Error(`the two imports ended with different UTXO sets: ${all.utxoHash} / ${assumed.utxoHash}`);

  const header = `${'mode'.padEnd(30)}${pad('seconds', 9)}${pad('blocks/s', 10)}${pad('tx/s', 10)}${pad('inputs/s', 10)}${pad('peak RSS', 11)}   scripts checked in`;
  console.log(`\n${header}\n${'-'.repeat(header.length + 12)}`);
  for (const mode of modes) {
    const r = mode.result!;
    const rate = rates(meta, r);
    const skippedBlocks = meta.txBlocks - r.scriptBlocks;
    console.log(
      `${mode.label.padEnd(30)}${pad(fmt(r.seconds, 1), 9)}${pad(fmt(rate.blocks, 1), 10)}${pad(fmt(rate.transactions), 10)}${pad(fmt(rate.inputs), 10)}${pad(`${fmt(r.maxRssMiB)} MiB`, 11)}` +
        `   ${fmt(r.scriptBlocks)} of ${fmt(meta.txBlocks)} blocks with transactions, ${fmt(r.scriptInputs)} inputs (skipped: ${fmt(skippedBlocks)} blocks, ${fmt(meta.inputs - r.scriptInputs)} inputs)`,
    );
  }
  const a = rates(meta, all);
  const b = rates(meta, assumed);
  console.log(
    `\nassumevalid / all scripts: ${fmt(b.blocks / a.blocks, 2)}× blocks/s, ${fmt(b.transactions / a.transactions, 2)}× tx/s, ${fmt(b.inputs / a.inputs, 2)}× inputs/s, ` +
      `${fmt(assumed.maxRssMiB / all.maxRssMiB, 2)}× peak RSS`,
  );
  console.log(`Both imports end at height ${fmt(all.tipHeight)} with the same UTXO set (${fmt(all.utxoCount)} coins, hash_serialized_3 ${all.utxoHash}).`);
}

main().catch((err: Error) => {
  process.stderr.write(`bench-import: ${err.message}\n`);
  process.exitCode = 1;
});
