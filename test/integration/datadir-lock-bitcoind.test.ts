/**
 * The data directory lock and the PID file, on tsbtcd and on bitcoind v31.0 (Core's
 * feature_filelock.py idea): a second node on a running node's directory stops at start-up
 * with Core's message, whichever of the two holds it, and writes nothing; a SIGKILLed
 * node leaves no stale lock; bitcoind.pid (or -pid's file, relative to the network's
 * directory) holds the coordinator's process id until a clean stop removes it; -nopid
 * writes none.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, freePort, runProgramToExit, runToExit } from './daemon-harness.js';

const reference = referenceBitcoind();

/** A second tsbtcd on `datadir` with ports of its own: its exit code and stderr. */
async function secondTsbtcd(datadir: string): Promise<{ code: number | null; stderr: string }> {
  const { code, stderr } = await runToExit(['-regtest', `-datadir=${datadir}`, `-rpcport=${await freePort()}`, `-port=${await freePort()}`, '-printtoconsole=0', '-connect=0', '-listen=0'], 30_000);
  return { code, stderr };
}

test('a running tsbtcd holds its directories: a second tsbtcd stops with Core’s message; after a SIGKILL the lock is gone', async () => {
  const first = await Daemon.start();
  try {
    const logBefore = readFileSync(join(first.netdir, 'debug.log'), 'utf8').length;
    assert.deepEqual(await secondTsbtcd(first.datadir), { code: 1, stderr: `Error: Cannot obtain a lock on directory ${first.netdir}. tsbtcd is probably already running.\n` });
    // The refused node wrote nothing into the running node's log.
    assert.ok(readFileSync(join(first.netdir, 'debug.log'), 'utf8').length >= logBefore);
    assert.equal(readFileSync(join(first.netdir, 'bitcoind.pid'), 'utf8'), `${first.proc.pid}\n`);
    await first.kill();
    const again = await first.restart();
    try {
      assert.equal(await again.call('getblockcount'), 0);
      assert.equal(readFileSync(join(again.netdir, 'bitcoind.pid'), 'utf8'), `${again.proc.pid}\n`);
      assert.deepEqual(await again.stop(), { code: 0, signal: null });
      assert.equal(existsSync(join(again.netdir, 'bitcoind.pid')), false, 'removed at a clean stop');
    } finally {
      await again.cleanup();
    }
  } finally {
    await first.cleanup();
  }
});

test('-pid names the file (relative to the network directory); -nopid writes none', async () => {
  const named = await Daemon.start({ args: ['-pid=custom.pid'] });
  try {
    assert.equal(readFileSync(join(named.netdir, 'custom.pid'), 'utf8'), `${named.proc.pid}\n`);
    assert.equal(existsSync(join(named.netdir, 'bitcoind.pid')), false);
  } finally {
    await named.cleanup();
  }
  const none = await Daemon.start({ args: ['-nopid'] });
  try {
    assert.equal(existsSync(join(none.netdir, 'bitcoind.pid')), false);
  } finally {
    await none.cleanup();
  }
});

/** The permission bits of what a node made in its network directory, by name (files Core writes too). */
function modes(netdir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['.', '.lock', '.cookie', 'bitcoind.pid', 'debug.log', 'settings.json', 'blocks', 'blocks/.lock', 'wallets']) {
    out[name] = (statSync(join(netdir, name)).mode & 0o777).toString(8);
  }
  return out;
}

test('tsbtcd and bitcoind v31.0 refuse each other’s running directory; both keep it to the user (umask 077)', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  let coreModes: Record<string, string> = {};
  const core = await BitcoindProcess.start(reference.path, ['-connect=0', '-disablewallet']);
  try {
    const netdir = join(core.datadir, 'regtest');
    assert.equal(readFileSync(join(netdir, 'bitcoind.pid'), 'utf8'), `${core.child.pid}\n`);
    coreModes = modes(netdir);
    assert.deepEqual(await secondTsbtcd(core.datadir), { code: 1, stderr: `Error: Cannot obtain a lock on directory ${netdir}. tsbtcd is probably already running.\n` });
  } finally {
    await core.stop();
  }
  const ours = await Daemon.start();
  try {
    assert.deepEqual(modes(ours.netdir), coreModes);
    assert.equal(coreModes['debug.log'], '600');
    const { code, stderr } = await runProgramToExit(reference.path, ['-regtest', `-datadir=${ours.datadir}`, `-rpcport=${await freePort()}`, `-port=${await freePort()}`, '-printtoconsole=0', '-connect=0', '-listen=0', '-disablewallet'], 30_000);
    assert.deepEqual({ code, stderr }, { code: 1, stderr: `Error: Cannot obtain a lock on directory ${ours.netdir}. Bitcoin Core is probably already running.\n` });
  } finally {
    await ours.cleanup();
  }
});
