/**
 * tsbtcd's REST endpoints against bitcoind's, back to back on the same regtest chain, the
 * setup of issue 13: both daemons pinned to CPU 0 (tsbtcd -rest -rpcfrontends=1, as one
 * core gives it; bitcoind -rest -checkblockindex=0 -checkmempool=0), wrk -t1 -c64 (GET) on
 * CPU 1. The chain (2,010+ blocks with an 830-spend block of 118 kB, http-block.ts) is
 * built once on tsbtcd, submitted to bitcoind, and kept in REST_CMP_DIR for later runs.
 *
 * Each endpoint's reply is compared first (status, Content-Type, body). Then ROUNDS
 * interleaved pairs of runs (bitcoind, tsbtcd) of `seconds` each: the medians of
 * requests/s, p50 and p99, each round's ratio, and the server CPU each request cost (user
 * + system of every process of the daemon, from /proc): on a machine shared with other
 * work, CPU per request is the steadier comparison.
 *
 *   node dist/native-bench/rest-vs-bitcoind.js [name filter | /rest/target] [seconds]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BitcoindProcess } from '../test/integration/bitcoind-process.js';
import { Daemon } from '../test/integration/daemon-harness.js';
import { restRequest } from '../test/support/rest-client.js';
import { buildBigBlock } from './http-block.js';
import { run, runWrk, type WrkResult } from './wrk.js';

const DIR = process.env['REST_CMP_DIR'] ?? join(tmpdir(), 'tsbtcd-rest-vs-bitcoind');
const BITCOIND = process.env['BITCOIND'] ?? '/work/shared/bin/bitcoind';
const ADDRESS = 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk';
const filter = process.argv[2] ?? '';
const SECONDS = Number(process.argv[3] ?? 3);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);

/** CPU seconds (user + system, all threads) the processes have used so far. */
function cpuSeconds(pids: readonly number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

/** A wrk run and the server CPU it cost per request (robust on a shared machine). */
async function measured(pids: readonly number[], opts: Parameters<typeof runWrk>[0]): Promise<WrkResult & { cpuUs: number }> {
  const before = cpuSeconds(pids);
  const r = await runWrk(opts);
  return { ...r, cpuUs: ((cpuSeconds(pids) - before) * 1e6) / r.requests };
}

/** Medians over the rounds; errors of all of them. */
function summary(runs: readonly (WrkResult & { cpuUs: number })[]) {
  const median = (pick: (r: WrkResult & { cpuUs: number }) => number) => runs.map(pick).sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
  return { rps: median((r) => r.rps), p50: median((r) => r.p50), p99: median((r) => r.p99), cpuUs: median((r) => r.cpuUs), errors: runs.flatMap((r) => r.errors) };
}

interface Meta {
  genesis: string;
  big: string;
  txids: string[];
}

async function prepare(): Promise<Meta> {
  const metaFile = join(DIR, 'meta.json');
  if (existsSync(metaFile)) return JSON.parse(readFileSync(metaFile, 'utf8')) as Meta;
  mkdirSync(join(DIR, 'ts'), { recursive: true });
  mkdirSync(join(DIR, 'core'), { recursive: true });
  const d = await Daemon.start({ datadir: join(DIR, 'ts'), args: ['-rest'], readyTimeoutMs: 30_000 });
  const core = await BitcoindProcess.start(BITCOIND, ['-rest'], join(DIR, 'core'));
  try {
    const big = await buildBigBlock(d, 830);
    while ((await d.call<number>('getblockcount')) < 2010) await d.call('generatetoaddress', [250, ADDRESS]);
    const tip = await d.call<number>('getblockcount');
    for (let h = 1; h <= tip; h++) {
      const hash = await d.call<string>('getblockhash', [h]);
      const raw = await d.call<string>('getblock', [hash, 0]);
      const r = await core.call('submitblock', [raw]);
      if (r !== null) throw new Error(`submitblock ${h}: ${r}`);
    }
    const meta: Meta = {
      genesis: await d.call<string>('getblockhash', [0]),
      big: big.hash,
      txids: (await d.call<{ tx: string[] }>('getblock', [big.hash, 1])).tx.slice(1, 16),
    };
    writeFileSync(metaFile, JSON.stringify(meta));
    console.log(`chain of ${tip}, big block ${big.size} bytes`);
    return meta;
  } finally {
    await d.stop();
    await core.stop();
  }
}

async function main(): Promise<void> {
  const meta = await prepare();
  const d = await Daemon.start({ datadir: join(DIR, 'ts'), args: ['-rest', '-rpcfrontends=1'], readyTimeoutMs: 30_000 });
  const core = await BitcoindProcess.start(BITCOIND, ['-rest'], join(DIR, 'core'));
  try {
    for (const pid of [d.proc.pid!, ...d.frontendPids(), core.child.pid!]) await run('taskset', ['-a', '-cp', '0', String(pid)]);
    const corePort = core.rpc.port;
    const corePids = [core.child.pid!];
    const tsPids = [d.proc.pid!, ...d.frontendPids()];
    const outpoints = meta.txids.map((t) => `${t}-0`).join('/');
    const targets: [string, string][] = [
      ['headers.bin', `/rest/headers/${meta.genesis}.bin?count=2000`],
      ['headers.hex', `/rest/headers/${meta.genesis}.hex?count=2000`],
      ['headers.json', `/rest/headers/${meta.genesis}.json?count=2000`],
      ['getutxos.json', `/rest/getutxos/checkmempool/${outpoints}.json`],
      ['getutxos.bin', `/rest/getutxos/checkmempool/${outpoints}.bin`],
      ['block.bin', `/rest/block/${meta.big}.bin`],
      ['block.hex', `/rest/block/${meta.big}.hex`],
      ['chaininfo.json', '/rest/chaininfo.json'],
    ];
    console.log(`${'endpoint'.padEnd(16)}${'core r/s'.padStart(10)}${'ts r/s'.padStart(10)}${'ratio'.padStart(8)}${'core p99'.padStart(10)}${'ts p99'.padStart(10)}  bytes`);
    if (filter.startsWith('/')) targets.splice(0, targets.length, [filter.slice(0, 16), filter]);
    for (const [name, target] of targets) {
      if (!name.includes(filter) && !filter.startsWith('/')) continue;
      const a = await restRequest(corePort, target);
      const b = await restRequest(d.port, target);
      const same = a.status === b.status && a.body.equals(b.body) && a.headers['content-type'] === b.headers['content-type'];
      if (!same) console.log(`${name}: DIFFERENT status ${a.status}/${b.status} type ${a.headers['content-type']}/${b.headers['content-type']} len ${a.body.length}/${b.body.length}`);
      const opts = { connections: 64, threads: 1, cpus: '1' };
      const coreUrl = `http://127.0.0.1:${corePort}${target}`;
      const tsUrl = `http://127.0.0.1:${d.port}${target}`;
      await runWrk({ ...opts, url: coreUrl, seconds: 1 });
      await runWrk({ ...opts, url: tsUrl, seconds: 1 });
      // Interleaved rounds: the machine is shared, so each ratio is of neighbouring runs.
      const cores: (WrkResult & { cpuUs: number })[] = [];
      const tss: (WrkResult & { cpuUs: number })[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        cores.push(await measured(corePids, { ...opts, url: coreUrl, seconds: SECONDS }));
        tss.push(await measured(tsPids, { ...opts, url: tsUrl, seconds: SECONDS }));
      }
      const rc = summary(cores);
      const rt = summary(tss);
      const ratios = cores.map((c, i) => (tss[i]!.rps / c.rps).toFixed(2)).join(' ');
      const errs = [...rc.errors.map((e) => `core ${e}`), ...rt.errors.map((e) => `ts ${e}`)].join('; ');
      console.log(
        `${name.padEnd(16)}${rc.rps.toFixed(0).padStart(10)}${rt.rps.toFixed(0).padStart(10)}${(rt.rps / rc.rps).toFixed(2).padStart(8)}${rc.p99.toFixed(2).padStart(10)}${rt.p99.toFixed(2).padStart(10)}  p50 ${rc.p50.toFixed(2)}/${rt.p50.toFixed(2)}  [${ratios}] cpu us/req ${rc.cpuUs.toFixed(0)}/${rt.cpuUs.toFixed(0)} = ${(rc.cpuUs / rt.cpuUs).toFixed(2)}x  ${b.body.length} ${errs}`,
      );
    }
  } finally {
    await d.stop();
    await core.stop();
  }
}

await main();
