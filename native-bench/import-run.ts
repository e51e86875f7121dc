/**
 * One import of the benchmark chain, run by import.ts in a process of its own so that the
 * peak RSS it reports belongs to this import alone: a fresh data directory, a Chainstate on
 * LmdbChainStore with a ScriptCheckPool, and importBlockFile (the path of -loadblock).
 *
 * Argument: one JSON object {file, datadir, assumeValid: hex|null, threads, dbcacheMiB}.
 * Progress goes to stderr; the last line on stdout is the result as JSON.
 */
import { join } from 'node:path';
import { Chainstate, computeUtxoStats, importBlockFile, LmdbChainStore, PoolScriptChecker, type ScriptChecker, type ScriptCheckVerdict, type ScriptJob } from '../src/chain/index.js';
import { selectParams } from '../src/consensus/index.js';
import { hashToHex, hexToHash } from '../src/primitives/index.js';
import { ScriptCheckPool } from '../workers/index.js';

export interface ImportRunOptions {
  file: string;
  datadir: string;
  /** The -assumevalid block, or null to check every script (-assumevalid=0). */
  assumeValid: string | null;
  threads: number;
  dbcacheMiB: number;
}

export interface ImportRunResult {
  seconds: number;
  /** Blocks read from the file and newly accepted. */
  read: number;
  loaded: number;
  tipHeight: number;
  tipHash: string;
  /** Blocks whose scripts went to the checker, and their inputs. */
  scriptBlocks: number;
  scriptInputs: number;
  /** hash_serialized_3 of the UTXO set at the end, to compare the two modes. */
  utxoHash: string;
  utxoCount: number;
  maxRssMiB: number;
  workers: number;
}

/** Counts what reaches the script checker: the chainstate calls it once per block whose scripts it checks. */
class CountingChecker implements ScriptChecker {
  blocks = 0;
  inputs = 0;
  constructor(private readonly inner: ScriptChecker) {}
  verify(jobs: readonly ScriptJob[]): Promise<ScriptCheckVerdict> {
    this.blocks++;
    for (const job of jobs) this.inputs += job.tx.inputs.length;
    return this.inner.verify(jobs);
  }
}

async function run(options: ImportRunOptions): Promise<ImportRunResult> {
  const params = selectParams('regtest');
  const store = LmdbChainStore.open(join(options.datadir, params.dataSubdir), params, {});
  const pool = new PoolScriptChecker(options.threads > 1 ? new ScriptCheckPool({ threads: options.threads }) : null);
  const scripts = new CountingChecker(pool);
  const log = (m: string) => {
    if (/rejected|error|fail/i.test(m)) process.stderr.write(`    ${m}\n`);
  };
  let connected = 0;
  let lastReport = performance.now();
  const started = { at: 0 };
  const chain = new Chainstate({
    params,
    store,
    scripts,
    assumeValid: options.assumeValid === null ? null : hexToHash(options.assumeValid),
    coinsCacheBytes: options.dbcacheMiB * 1024 * 1024,
    now: () => Math.floor(Date.now() / 1000),
    log,
    events: {
      blockConnected: (_block, entry) => {
        connected++;
        const now = performance.now();
        if (now - lastReport > 10_000) {
          lastReport = now;
          process.stderr.write(`    connected up to height ${entry.height} (${connected} blocks, ${((now - started.at) / 1000).toFixed(0)} s)\n`);
        }
      },
    },
  });
  try {
    await chain.load();
    started.at = performance.now();
    const report = await importBlockFile(chain, options.file, log);
    const seconds = (performance.now() - started.at) / 1000;
    const maxRssMiB = process.resourceUsage().maxRSS / 1024;
    const tip = chain.tip!;
    const stats = chain.snapshot((view) => computeUtxoStats(view.coins(), 'hash_serialized_3'));
    return {
      seconds,
      read: report.read,
      loaded: report.loaded,
      tipHeight: tip.height,
      tipHash: tip.hashHex,
      scriptBlocks: scripts.blocks,
      scriptInputs: scripts.inputs,
      utxoHash: hashToHex(stats.hash!),
      utxoCount: stats.txouts,
      maxRssMiB,
      workers: pool.threads,
    };
  } finally {
    await chain.shutdown();
    await pool.close();
    await store.close();
  }
}

const options = JSON.parse(process.argv[2] ?? '{}') as ImportRunOptions;
run(options).then(
  (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
  (err: Error) => {
    process.stderr.write(`import failed: ${err.stack ?? err.message}\n`);
    process.exitCode = 1;
  },
);
