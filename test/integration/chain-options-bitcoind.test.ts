/**
 * Two chain options on tsbtcd and on bitcoind v31.0 (Core's feature_maxtipage.py idea and
 * -stopafterblockimport): -maxtipage decides how old a tip may be before the node counts
 * itself in initial block download, from the default 24 hours to the largest value; and
 * -stopafterblockimport stops the node by itself once its imports (-loadblock) are done.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { selectParams } from '../../src/consensus/index.js';
import { serializeBlock, type Block } from '../../src/primitives/index.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, freePort, runProgramToExit, tempDir, TSBTCD } from './daemon-harness.js';
import { buildBlock } from './p2p-test-peer.js';

const reference = referenceBitcoind();
const REGTEST = selectParams('regtest');
const DAY = 24 * 3600;

interface Rpc {
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
}

/** Blocks on genesis, the n-th dated `times[n]`. */
function chainAt(times: readonly number[]): Block[] {
  const blocks: Block[] = [];
  let prev = { hash: REGTEST.genesisHash, height: 0, time: 0 };
  for (const time of times) {
    const block = buildBlock({ ...prev, time: time - 1 });
    blocks.push(block);
    prev = { hash: block.header.hash, height: prev.height + 1, time };
  }
  return blocks;
}

/**
 * With the node's clock at `now`, tips `maxTipAge` + 5 .. + 1 seconds old keep it in IBD and
 * one exactly `maxTipAge` old takes it out (the largest value: out at the first block).
 */
async function ibdAlong(node: Rpc, now: number, maxTipAge: number, deltas: boolean): Promise<boolean[]> {
  await node.call('setmocktime', [now]);
  const oldest = Math.max(now - maxTipAge, REGTEST.genesis.header.time + 10);
  const times = deltas ? [5, 4, 3, 2, 1, 0].map((d) => oldest - d) : [oldest];
  const states: boolean[] = [];
  for (const block of chainAt(times)) {
    assert.equal(await node.call('submitblock', [Buffer.from(serializeBlock(block)).toString('hex')]), null);
    states.push((await node.call('getblockchaininfo')).initialblockdownload);
  }
  return states;
}

const CASES: readonly { args: string[]; maxTipAge: number; deltas: boolean }[] = [
  { args: [], maxTipAge: DAY, deltas: true },
  { args: ['-maxtipage=36000'], maxTipAge: 36000, deltas: true },
  { args: ['-maxtipage=3600'], maxTipAge: 3600, deltas: true },
  { args: ['-maxtipage=9223372036854775807'], maxTipAge: Number.MAX_SAFE_INTEGER, deltas: false },
];

test('-maxtipage: how old a tip keeps the node in initial block download, as bitcoind', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const ours: boolean[][] = [];
  for (const c of CASES) {
    const node = await Daemon.start({ args: c.args });
    try {
      ours.push(await ibdAlong(node, now, c.maxTipAge, c.deltas));
    } finally {
      await node.cleanup();
    }
  }
  assert.deepEqual(ours, [
    [true, true, true, true, true, false],
    [true, true, true, true, true, false],
    [true, true, true, true, true, false],
    [false],
  ]);
  if ('missing' in reference) return t.skip(reference.missing);
  const theirs: boolean[][] = [];
  for (const c of CASES) {
    const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-disablewallet', ...c.args]);
    try {
      theirs.push(await ibdAlong(core, now, c.maxTipAge, c.deltas));
    } finally {
      await core.stop();
    }
  }
  assert.deepEqual(ours, theirs);
});

/** Core's block file framing: magic, little-endian size, block. */
function blockFile(blocks: readonly Block[]): Buffer {
  return Buffer.concat(
    blocks.map((block) => {
      const bytes = serializeBlock(block);
      const head = Buffer.alloc(8);
      Buffer.from(REGTEST.messageStart).copy(head, 0);
      head.writeUInt32LE(bytes.length, 4);
      return Buffer.concat([head, bytes]);
    }),
  );
}

test('-stopafterblockimport: the node imports -loadblock and stops by itself, as bitcoind', async (t) => {
  const start = Math.floor(Date.now() / 1000) - 3600;
  const blocks = chainAt(Array.from({ length: 20 }, (_, i) => start + i));
  const dir = tempDir();
  const file = join(dir, 'blocks.dat');
  writeFileSync(file, blockFile(blocks));
  const run = async (executable: string, extra: readonly string[]): Promise<{ code: number | null; logged: boolean; height: number }> => {
    const datadir = join(dir, `${executable === TSBTCD ? 'ours' : 'theirs'}`);
    const args = ['-regtest', `-datadir=${datadir}`, `-rpcport=${await freePort()}`, `-port=${await freePort()}`, '-printtoconsole=0', '-connect=0', '-listen=0', `-loadblock=${file}`, '-stopafterblockimport', ...extra];
    mkdirSync(datadir, { recursive: true });
    const { code } = await runProgramToExit(executable, args, 60_000);
    const log = readFileSync(join(datadir, 'regtest', 'debug.log'), 'utf8');
    // What was imported stays: a restart without the options has it.
    const node = executable === TSBTCD ? await Daemon.start({ datadir }) : await BitcoindProcess.start(executable, ['-connect=0', '-disablewallet'], datadir);
    try {
      return { code, logged: log.includes('Stopping after block import'), height: await node.call<number>('getblockcount') };
    } finally {
      if (node instanceof Daemon) await node.cleanup();
      else await node.stop();
    }
  };
  try {
    const ours = await run(TSBTCD, []);
    assert.deepEqual(ours, { code: 0, logged: true, height: 20 });
    if ('missing' in reference) return t.skip(reference.missing);
    // Regtest's -checkblockindex aborts bitcoind v31.0 in this import (as in make bench-import).
    assert.deepEqual(await run(reference.path, ['-disablewallet', '-checkblockindex=0']), ours);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
