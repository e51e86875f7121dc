/**
 * `make bench-ibd`: initial block download over P2P, tsbtcd against Bitcoin Core v31.0 in the
 * same run. A source bitcoind imports `make bench-import`'s chain (import-chain.ts: 3,118
 * regtest blocks, 200,000 signed P2WPKH and P2TR transactions) with -loadblock and listens
 * on loopback; then each daemon under test starts in a fresh data directory with
 * `-connect=<source>` and is timed from spawn until getblockcount reaches the tip (the
 * harness of loadblock-import.ts). Two modes, as bench-import: every script checked
 * (-assumevalid=0), and -assumevalid=<last block>. Runs interleave (tsbtcd, bitcoind per
 * mode; --rounds R keeps each daemon's best of R). Prints seconds, blocks/s, inputs/s and
 * peak RSS, and the speed ratio tsbtcd ÷ bitcoind per mode; fails unless every run ends on
 * the tip with the same hash_serialized_3.
 *
 * Needs the reference bitcoind (BITCOIND, else ../shared/bin): without it there is no
 * source to sync from, and one line says so.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort } from '../test/integration/daemon-harness.js';
import { CookieRpc, isUnreachable } from './cookie-rpc.js';
import { ensureChain } from './import-chain.js';
import { loadblockImport, type DaemonKind, type LoadblockImportResult } from './loadblock-import.js';
import { fmt, pad } from './measure.js';
import { referenceBitcoind } from './reference-bitcoind.js';

const CACHE_DIR = fileURLToPath(new URL('../../native-bench/.cache/', import.meta.url));
const MIB = 1024 * 1024;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The source node: bitcoind with the chain imported, serving it on a loopback port. */
async function startSource(executable: string, file: string, tipHeight: number): Promise<{ address: string; stop: () => Promise<void> }> {
  const datadir = mkdtempSync(join(tmpdir(), 'bench-ibd-source-'));
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const child = spawn(
    executable,
    ['-regtest', `-datadir=${datadir}`, `-loadblock=${file}`, '-assumevalid=0', '-checkblockindex=0', '-checkmempool=0', '-disablewallet', `-rpcport=${rpcPort}`, `-port=${p2pPort}`, `-bind=127.0.0.1:${p2pPort}`, '-listen=1', '-connect=0', '-printtoconsole=0', '-par=2'],
    { stdio: 'ignore' },
  );
  const rpc = new CookieRpc(rpcPort, join(datadir, 'regtest', '.cookie'));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  for (;;) {
    try {
      if ((await rpc.call<number>('getblockcount', [], 10_000)) >= tipHeight) break;
    } catch (err) {
      if (!isUnreachable(err) && (err as { code?: number }).code !== -28) throw err;
    }
    await sleep(200);
  }
  // -loadblock is done only when the import thread says so: bitcoind ignores getheaders until then.
  await sleep(2000);
  return {
    address: `127.0.0.1:${p2pPort}`,
    stop: async () => {
      try {
        await rpc.call('stop');
      } catch {
        child.kill('SIGKILL');
      }
      await exited;
      rmSync(datadir, { recursive: true, force: true });
    },
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { par: { type: 'string' }, rounds: { type: 'string' } } });
  const par = values.par === undefined ? 2 : Number(values.par);
  const rounds = values.rounds === undefined ? 1 : Number(values.rounds);
  const reference = referenceBitcoind();
  if ('missing' in reference) {
    console.log(`bench-ibd skipped: ${reference.missing}`);
    return;
  }
  const { file, meta } = await ensureChain(CACHE_DIR);
  console.log(`\nChain: ${fmt(meta.blocks)} blocks, ${fmt(meta.transactions)} transactions, ${fmt(meta.inputs)} signed inputs; source: bitcoind ${reference.path} with -loadblock`);
  const source = await startSource(reference.path, file, meta.blocks);
  console.log(`Harness: each daemon -regtest -connect=${source.address} -par=${par} -checkblockindex=0 -checkmempool=0 -listen=0 -disablewallet, fresh data directory, wall time from spawn until getblockcount = ${fmt(meta.blocks)}\n`);
  const daemons: { kind: DaemonKind; executable?: string }[] = [{ kind: 'tsbtcd' }, { kind: 'bitcoind', executable: reference.path }];
  const modes: { label: string; assumeValid: string | null; best: Partial<Record<DaemonKind, LoadblockImportResult>> }[] = [
    { label: 'every script (-assumevalid=0)', assumeValid: null, best: {} },
    { label: '-assumevalid=<last block>', assumeValid: meta.lastHash, best: {} },
  ];
  let firstUtxo: string | undefined;
  try {
    for (const mode of modes) {
      for (let round = 1; round <= rounds; round++) {
        for (const daemon of daemons) {
          process.stdout.write(`  syncing: ${daemon.kind}, ${mode.label}${rounds > 1 ? `, round ${round}` : ''} ... `);
          const r = await loadblockImport({
            daemon: daemon.kind,
            ...(daemon.executable ? { executable: daemon.executable } : {}),
            connect: source.address,
            tipHeight: meta.blocks,
            assumeValid: mode.assumeValid,
            par,
          });
          console.log(`${fmt(r.seconds, 2)} s`);
          if (r.tipHash !== meta.lastHash) throw new Error(`${daemon.kind} ended at ${r.tipHash}, not the chain's tip ${meta.lastHash}`);
          firstUtxo ??= r.utxo.hash;
          if (r.utxo.hash !== firstUtxo) throw new Error(`${daemon.kind}: hash_serialized_3 ${r.utxo.hash} differs from the first run's ${firstUtxo}`);
          const best = mode.best[daemon.kind];
          if (!best || r.seconds < best.seconds) mode.best[daemon.kind] = r;
        }
      }
    }
  } finally {
    await source.stop();
  }
  const header = `${'mode'.padEnd(31)}${'daemon'.padEnd(10)}${pad('seconds', 9)}${pad('blocks/s', 10)}${pad('inputs/s', 10)}${pad('peak RSS', 10)}`;
  console.log(`\n${header}\n${'-'.repeat(header.length)}`);
  for (const mode of modes) {
    for (const daemon of daemons) {
      const r = mode.best[daemon.kind]!;
      console.log(
        `${(daemon === daemons[0] ? mode.label : '').padEnd(31)}${daemon.kind.padEnd(10)}${pad(fmt(r.seconds, 2), 9)}${pad(fmt(meta.blocks / r.seconds, 1), 10)}` +
          `${pad(fmt(meta.inputs / r.seconds), 10)}${pad(`${fmt(r.rss.main / MIB)} MiB`, 10)}`,
      );
    }
    const ratio = mode.best.bitcoind!.seconds / mode.best.tsbtcd!.seconds;
    console.log(`${''.padEnd(31)}tsbtcd speed ÷ bitcoind speed: ${fmt(ratio, 3)}×\n`);
  }
  console.log(`Every run ended on ${meta.lastHash} with hash_serialized_3 ${firstUtxo}.`);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
