/**
 * A block database whose tip is dated more than two hours ahead of the clock (blocks mined
 * under a mock time, then a start without it) stops start-up, on tsbtcd as on the
 * reference bitcoind v31.0: the same exit code and the same bare message (Core asks it as
 * its "rebuild the databases?" question, which a daemon prints without "Error: ").
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, freePort, runProgramToExit, runToExit, tempDir } from './daemon-harness.js';

const reference = referenceBitcoind();
const THREE_HOURS = 3 * 60 * 60;

/** Mines one block dated three hours ahead (mock time) on a node, then stops it. */
async function mineIntoTheFuture(node: { call<T>(method: string, params: unknown[]): Promise<T>; stop(): Promise<unknown> }): Promise<void> {
  await node.call('setmocktime', [Math.floor(Date.now() / 1000) + THREE_HOURS]);
  await node.call('generatetodescriptor', [1, 'raw(51)#8lvh9jxk']);
  await node.stop();
}

test('a tip from more than two hours in the future stops start-up with Core’s message', { skip: 'path' in reference ? false : reference.missing, timeout: 120_000 }, async () => {
  const bitcoind = (reference as { path: string }).path;
  const coreDir = tempDir();
  const tsDir = tempDir();
  try {
    await mineIntoTheFuture(await BitcoindProcess.start(bitcoind, ['-connect=0', '-disablewallet'], coreDir));
    const ts = await Daemon.start({ datadir: tsDir, args: ['-disablewallet'] });
    await mineIntoTheFuture(ts);
    const restartArgs = ['-regtest', '-printtoconsole=0', '-connect=0', '-listen=0', '-disablewallet'];
    const want = await runProgramToExit(bitcoind, [`-datadir=${coreDir}`, `-rpcport=${await freePort()}`, ...restartArgs], 30_000);
    const got = await runToExit([`-datadir=${tsDir}`, `-rpcport=${await freePort()}`, ...restartArgs], 30_000);
    assert.equal(want.code, 1);
    assert.match(want.stderr, /appears to be from the future/);
    assert.deepEqual({ code: got.code, stderr: got.stderr }, { code: want.code, stderr: want.stderr });
  } finally {
    rmSync(coreDir, { recursive: true, force: true });
    rmSync(tsDir, { recursive: true, force: true });
  }
});
