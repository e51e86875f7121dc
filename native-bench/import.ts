/**
 * `make bench-import`: tsbtcd against Bitcoin Core v31.0 on the same block file, in the same
 * run, through the harness of issue 10 (loadblock-import.ts): each daemon started with
 * `-loadblock=FILE` in a fresh data directory, wall time from spawn until getblockcount
 * reaches the file's tip. The file is the generated regtest chain of import-chain.ts
 * (3,118 blocks, 200,000 signed P2WPKH and P2TR transactions, 210,000 inputs). Two modes:
 *
 *  (a) every script checked (-assumevalid=0);
 *  (b) -assumevalid=<last block>: Core's rule skips the scripts of its ancestors buried
 *      under more than two weeks of work below the best header, which the chain's
 *      2,017-block coinbase-only tail makes every transaction-bearing block.
 *
 * The runs interleave (tsbtcd a, bitcoind a, tsbtcd b, bitcoind b; --rounds R repeats the
 * pair R times per mode and keeps each daemon's best), so load on the shared machine falls
 * on both. Both get the same -par (--par, default 2). Prints seconds, blocks/s, inputs/s,
 * peak RSS and which blocks had their scripts checked (from each debug.log), and the
 * ratio tsbtcd ÷ bitcoind speed per mode. Fails unless every run ends on the chain's tip
 * with the same gettxoutsetinfo hash_serialized_3 and txouts.
 *
 * bitcoind: BITCOIND, else ../shared/bin/bitcoind (after ../shared/bin/ensure-deps). When
 * there is none, one line says so and only tsbtcd's rows are measured.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureChain, inputsByHeight } from './import-chain.js';
import { loadblockImport, type DaemonKind, type LoadblockImportResult, type ScriptCheckChange } from './loadblock-import.js';
import { fmt, pad } from './measure.js';
import { referenceBitcoind } from './reference-bitcoind.js';

/** native-bench/.cache in the checkout (this file runs from dist/native-bench). */
const CACHE_DIR = fileURLToPath(new URL('../../native-bench/.cache/', import.meta.url));
const MIB = 1024 * 1024;

interface Mode {
  label: string;
  assumeValid: string | null;
  best: Partial<Record<DaemonKind, LoadblockImportResult>>;
}

/** Blocks and inputs whose scripts were checked, by the changes a debug.log records; undefined if it records none. */
function scriptsChecked(changes: readonly ScriptCheckChange[], inputs: readonly number[], tip: number) {
  if (changes.length === 0) return undefined;
  let blocks = 0;
  let txBlocks = 0;
  let checkedInputs = 0;
  let next = 0;
  let checked: boolean | undefined;
  for (let height = 1; height <= tip; height++) {
    while (next < changes.length && changes[next]!.height <= height) checked = changes[next++]!.checked;
    if (checked === undefined) return undefined; // a block before the first logged change: unknown
    if (!checked) continue;
    blocks++;
    if (inputs[height]! > 0) txBlocks++;
    checkedInputs += inputs[height]!;
  }
  return { blocks, txBlocks, inputs: checkedInputs };
}

function describeChanges(changes: readonly ScriptCheckChange[]): string {
  return changes.map((c) => `${c.checked ? 'on' : 'off'} at #${c.height}${c.reason ? ` (${c.reason})` : ''}`).join(', ');
}

function bitcoindVersion(path: string): string {
  return execFileSync(path, ['-version'], { encoding: 'utf8' }).split('\n')[0] ?? '';
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { par: { type: 'string' }, rounds: { type: 'string' } } });
  const par = values.par === undefined ? 2 : Number(values.par);
  const rounds = values.rounds === undefined ? 1 : Number(values.rounds);
  if (!Number.isInteger(par) || par < 1) throw new Error('--par needs a whole number of script-check threads, at least 1');
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds needs a whole number, at least 1');

  const { file, meta } = await ensureChain(CACHE_DIR);
  const inputs = inputsByHeight(file);
  if (inputs.length !== meta.blocks + 1) throw new Error(`${file} holds ${inputs.length - 1} blocks, its description says ${meta.blocks}`);
  console.log(
    `\nChain: ${fmt(meta.blocks)} blocks after genesis (${fmt(meta.txBlocks)} with transactions, then ${fmt(meta.tailBlocks)} coinbase-only), ` +
      `${fmt(meta.transactions)} transactions + ${fmt(meta.blocks)} coinbases, ${fmt(meta.inputs)} signed inputs, ${fmt(meta.bytes / 1e6, 1)} MB`,
  );

  const reference = referenceBitcoind();
  const daemons: { kind: DaemonKind; executable?: string }[] = [{ kind: 'tsbtcd' }];
  if ('path' in reference) {
    daemons.push({ kind: 'bitcoind', executable: reference.path });
    console.log(`bitcoind: ${reference.path} (${bitcoindVersion(reference.path)})`);
  } else {
    console.log(`bitcoind rows skipped: ${reference.missing}`);
  }
  console.log(
    `Harness: -regtest -loadblock=FILE -par=${par} -checkblockindex=0 -checkmempool=0 -listen=0 -connect=0 -disablewallet -server, a fresh data directory per run; ` +
      `wall time from spawn until getblockcount = ${fmt(meta.blocks)} (polled every 50 ms); ${rounds === 1 ? 'one round' : `best of ${rounds} rounds`}, daemons interleaved\n`,
  );

  const modes: Mode[] = [
    { label: 'every script (-assumevalid=0)', assumeValid: null, best: {} },
    { label: '-assumevalid=<last block>', assumeValid: meta.lastHash, best: {} },
  ];
  let firstUtxo: LoadblockImportResult['utxo'] | undefined;
  for (const mode of modes) {
    for (let round = 1; round <= rounds; round++) {
      for (const daemon of daemons) {
        const what = `${daemon.kind}, ${mode.label}${rounds > 1 ? `, round ${round} of ${rounds}` : ''}`;
        process.stdout.write(`  importing: ${what} ... `);
        const r = await loadblockImport({
          daemon: daemon.kind,
          ...(daemon.executable ? { executable: daemon.executable } : {}),
          file,
          tipHeight: meta.blocks,
          assumeValid: mode.assumeValid,
          par,
          progress: (height, seconds) => process.stdout.write(`[getblockcount ${fmt(height)} at ${fmt(seconds)} s] `),
        });
        console.log(`${fmt(r.seconds, 2)} s`);
        if (r.tipHeight !== meta.blocks || r.tipHash !== meta.lastHash) {
          throw new Error(`${what}: ended at height ${r.tipHeight} (${r.tipHash}), not at the chain's tip ${meta.blocks} (${meta.lastHash})`);
        }
        firstUtxo ??= r.utxo;
        if (r.utxo.hash !== firstUtxo.hash || r.utxo.txouts !== firstUtxo.txouts || r.utxo.totalAmount !== firstUtxo.totalAmount) {
          throw new Error(
            `${what}: gettxoutsetinfo differs: hash_serialized_3 ${r.utxo.hash}, ${r.utxo.txouts} txouts, ${r.utxo.totalAmount} BTC; ` +
              `the first run had ${firstUtxo.hash}, ${firstUtxo.txouts} txouts, ${firstUtxo.totalAmount} BTC`,
          );
        }
        const best = mode.best[daemon.kind];
        if (!best || r.seconds < best.seconds) mode.best[daemon.kind] = r;
      }
    }
  }

  const header =
    `${'mode'.padEnd(31)}${'daemon'.padEnd(10)}${pad('seconds', 9)}${pad('blocks/s', 10)}${pad('inputs/s', 10)}` +
    `${pad('peak RSS', 10)}  ${'(process tree)'.padEnd(21)} scripts checked (from debug.log)`;
  console.log(`\n${header}\n${'-'.repeat(header.length + 20)}`);
  for (const mode of modes) {
    for (const daemon of daemons) {
      const r = mode.best[daemon.kind]!;
      const checked = scriptsChecked(r.scriptChecks, inputs, meta.blocks);
      const scripts = checked
        ? `${fmt(checked.txBlocks)} of ${fmt(meta.txBlocks)} blocks with transactions, ${fmt(checked.inputs)} of ${fmt(meta.inputs)} inputs`
        : 'not logged';
      const tree = `${fmt(r.rss.tree / MIB)} MiB, ${r.rss.processes} proc${r.rss.processes === 1 ? '' : 's'}`;
      console.log(
        `${(daemon === daemons[0] ? mode.label : '').padEnd(31)}${daemon.kind.padEnd(10)}${pad(fmt(r.seconds, 2), 9)}${pad(fmt(meta.blocks / r.seconds, 1), 10)}` +
          `${pad(fmt(meta.inputs / r.seconds), 10)}${pad(`${fmt(r.rss.main / MIB)} MiB`, 10)}  ${`(${tree})`.padEnd(21)} ${scripts}`,
      );
    }
    const ts = mode.best.tsbtcd!;
    const core = mode.best.bitcoind;
    if (core) {
      const ratio = core.seconds / ts.seconds;
      console.log(`${''.padEnd(31)}ratio tsbtcd ÷ bitcoind speed: ${fmt(ratio, 3)}× (target ≥ 0.5×: ${ratio >= 0.5 ? 'met' : 'not met'})`);
    }
    console.log();
  }

  console.log('Script checking as each debug.log records it (Core v31\'s "Enabling/Disabling script verification at block #N" lines):');
  for (const mode of modes) {
    for (const daemon of daemons) {
      const changes = mode.best[daemon.kind]!.scriptChecks;
      console.log(`  ${mode.label}, ${daemon.kind}: ${changes.length > 0 ? describeChanges(changes) : 'nothing logged'}`);
    }
  }
  console.log('\nStart-up: the first getblockcount answer (RPC up), seconds after spawn, and the height it said:');
  for (const mode of modes) {
    const line = daemons.map((d) => {
      const first = mode.best[d.kind]!.firstAnswer;
      return `${d.kind} ${fmt(first.seconds, 2)} s (height ${fmt(first.height)})`;
    });
    console.log(`  ${mode.label}: ${line.join(', ')}`);
  }
  console.log(
    `\nPeak RSS is VmHWM read at the tip: the daemon process itself, and (tree) the sum over it and its descendants ` +
      `(tsbtcd: the coordinator, whose script-check workers are threads, plus its HTTP front-end processes).`,
  );
  console.log(
    `Every run ends at height ${fmt(meta.blocks)} (${meta.lastHash}) with the same UTXO set: ` +
      `${fmt(firstUtxo!.txouts)} txouts, hash_serialized_3 ${firstUtxo!.hash}.`,
  );
}

main().catch((err: Error) => {
  process.stderr.write(`bench-import: ${err.message}\n`);
  process.exitCode = 1;
});
