/**
 * The node's notification commands on tsbtcd and on bitcoind v31.0, the same script on both
 * (the idea of Core's feature_notifications.py and feature_startupnotify.py): -blocknotify
 * (the last one given wins; each new tip once out of initial block download, with %s its
 * hash), -startupnotify once per start, -shutdownnotify (every one, waited for before the
 * process exits), and -alertnotify with the warning of an invalid chain more than six blocks
 * of work ahead, which getblockchaininfo, getnetworkinfo and getmininginfo show too.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { BitcoindProcess } from './bitcoind-process.js';
import { Daemon, sleep, tempDir, waitFor } from './daemon-harness.js';
import { buildBlock, REGTEST } from './p2p-test-peer.js';
import { blockSubsidy } from '../../src/consensus/index.js';
import { hexToHash, serializeBlock } from '../../src/primitives/index.js';

const reference = referenceBitcoind();

interface Node {
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
  /** Asks the node to stop and resolves when the process has exited. */
  stop(): Promise<void>;
  cleanup(): Promise<void>;
  /** The debug log so far. */
  log(): string;
}

type Starter = (args: readonly string[]) => Promise<Node>;

const startTsbtcd: Starter = async (args) => {
  const daemon = await Daemon.start({ args });
  return {
    call: (method, params = []) => daemon.call(method, params),
    stop: async () => {
      await daemon.stop(60_000);
    },
    cleanup: () => daemon.cleanup(),
    log: () => daemon.debugLog(),
  };
};

function bitcoindStarter(path: string): Starter {
  return async (args) => {
    const core = await BitcoindProcess.start(path, ['-connect=0', '-disablewallet', ...args]);
    return {
      call: (method, params = []) => core.call(method, params),
      stop: async () => {
        const exited = new Promise((resolve) => core.child.once('exit', resolve));
        await core.call('stop');
        await exited;
      },
      cleanup: () => core.stop(),
      log: () => readFileSync(join(core.datadir, 'regtest', 'debug.log'), 'utf8'),
    };
  };
}

const ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';

/** Seven blocks on the tip, each paying its coinbase one satoshi too much: invalid, with more than six blocks' work. */
async function submitInvalidChain(node: Node): Promise<void> {
  let prev = await node.call('getblockheader', [await node.call<string>('getbestblockhash')]);
  const blocks = [];
  for (let i = 0; i < 7; i++) {
    const block = buildBlock({ hash: hexToHash(prev.hash), height: prev.height, time: prev.time }, [], { coinbaseValue: blockSubsidy(prev.height + 1, REGTEST) + 1n });
    blocks.push(block);
    prev = { hash: block.header.hashHex, height: prev.height + 1, time: prev.time + 1 };
  }
  for (const block of blocks) await node.call('submitheader', [Buffer.from(block.header.toBytes()).toString('hex')]);
  for (const block of [...blocks].reverse()) await node.call('submitblock', [Buffer.from(serializeBlock(block)).toString('hex')]);
}

async function scenario(start: Starter): Promise<Record<string, unknown>> {
  const dir = tempDir();
  const seen: Record<string, unknown> = {};
  try {
    const blockDir = join(dir, 'blocks');
    mkdirSync(blockDir);
    const [startupFile, shutdownFile, slowShutdownFile, alertFile, ignored] = ['startup', 'shutdown', 'shutdown-slow', 'alert', 'ignored'].map((n) => join(dir, n));
    const args = [
      `-blocknotify=echo > ${ignored}`,
      `-blocknotify=echo > ${join(blockDir, '%s')}`,
      `-startupnotify=echo started >> ${startupFile}`,
      `-shutdownnotify=echo > ${shutdownFile}`,
      // The process waits for this one: its file must be there when the process has gone.
      `-shutdownnotify=sleep 1; echo > ${slowShutdownFile}`,
      `-alertnotify=echo %s >> ${alertFile}`,
    ];
    const node = await start(args);
    try {
      await waitFor('the -startupnotify file', () => (existsSync(startupFile) ? true : undefined), 10_000);
      const hashes = await node.call<string[]>('generatetoaddress', [10, ADDRESS]);
      await waitFor('ten -blocknotify files', () => (readdirSync(blockDir).length >= 10 ? true : undefined), 10_000);
      await sleep(300);
      seen.blocknotify = readdirSync(blockDir).sort().join() === [...hashes].sort().join();
      seen.ignoredWritten = existsSync(ignored);
      for (const f of readdirSync(blockDir)) rmSync(join(blockDir, f));

      // A tip taken back by invalidateblock and given again by reconsiderblock.
      const tip = hashes[9]!;
      await node.call('invalidateblock', [tip]);
      await sleep(1000);
      seen.afterInvalidate = readdirSync(blockDir).map((h) => (h === hashes[8] ? 'previous tip' : h === tip ? 'tip' : 'other')).sort();
      await node.call('reconsiderblock', [tip]);
      await sleep(1000);
      seen.afterReconsider = readdirSync(blockDir).map((h) => (h === hashes[8] ? 'previous tip' : h === tip ? 'tip' : 'other')).sort();

      seen.warningsBefore = (await node.call('getblockchaininfo')).warnings;
      await submitInvalidChain(node);
      await waitFor('the -alertnotify file', () => (existsSync(alertFile) ? true : undefined), 10_000);
      await sleep(300);
      seen.alert = readFileSync(alertFile, 'utf8');
      seen.warnings = [(await node.call('getblockchaininfo')).warnings, (await node.call('getnetworkinfo')).warnings, (await node.call('getmininginfo')).warnings];
      seen.tipKept = (await node.call<string>('getbestblockhash')) === tip;
      // Two blocks on our chain: the invalid one is no longer six blocks of work ahead.
      await node.call('generatetoaddress', [2, ADDRESS]);
      seen.warningsAfterTwoBlocks = (await node.call('getblockchaininfo')).warnings;
      await node.stop();
      seen.shutdownFiles = [existsSync(shutdownFile), existsSync(slowShutdownFile)];
      seen.startupLines = readFileSync(startupFile, 'utf8');
    } finally {
      await node.cleanup();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return seen;
}

test('-blocknotify, -startupnotify, -shutdownnotify and -alertnotify run as bitcoind runs them', async (t) => {
  const ours = await scenario(startTsbtcd);
  const warning = 'Warning: Found invalid chain more than 6 blocks longer than our best chain. This could be due to database corruption or consensus incompatibility with peers.';
  assert.equal(ours.blocknotify, true);
  assert.equal(ours.ignoredWritten, false);
  assert.deepEqual(ours.shutdownFiles, [true, true]);
  assert.equal(ours.startupLines, 'started\n');
  assert.deepEqual(ours.warningsBefore, []);
  assert.deepEqual(ours.warnings, [[warning], [warning], [warning]]);
  assert.deepEqual(ours.warningsAfterTwoBlocks, []);
  assert.ok(String(ours.alert).includes(warning.replace('Warning: ', '')), String(ours.alert));
  if ('missing' in reference) return t.skip(reference.missing);
  const theirs = await scenario(bitcoindStarter(reference.path));
  assert.deepEqual(ours, theirs);
});

/**
 * Core's feature_versionbits_warning idea: a version bit no deployment uses, set by 108 of
 * a period's 144 blocks (the test chains' threshold), locks in — named on the UpdateTip
 * lines, not yet a warning — and a period later is active: the warning of the RPCs and
 * -alertnotify's text.
 */
async function unknownRulesScenario(start: Starter): Promise<Record<string, unknown>> {
  const dir = tempDir();
  const alertFile = join(dir, 'alert');
  const seen: Record<string, unknown> = {};
  const node = await start([`-alertnotify=echo %s >> ${alertFile}`]);
  try {
    await node.call('generatetoaddress', [143, ADDRESS]);
    let prev = await node.call('getblockheader', [await node.call<string>('getbestblockhash')]);
    let tip = { hash: hexToHash(prev.hash), height: prev.height as number, time: prev.time as number };
    const submit = async (count: number, signalling: number): Promise<void> => {
      for (let i = 0; i < count; i++) {
        const block = buildBlock(tip, [], { version: 0x20000000 | (i < signalling ? 1 << 3 : 0) });
        assert.equal(await node.call('submitblock', [Buffer.from(serializeBlock(block)).toString('hex')]), null);
        tip = { hash: block.header.hash, height: tip.height + 1, time: tip.time + 1 };
      }
    };
    // Heights 144..286: 108 signal; the last block of the period decides.
    await submit(143, 108);
    seen.before = (await node.call('getblockchaininfo')).warnings;
    await submit(1, 0);
    seen.lockedIn = [(await node.call('getblockchaininfo')).warnings, / height=287 .* warning='Unknown new rules activated \(versionbit 3\)'\n/.test(node.log())];
    await submit(143, 0);
    seen.stillLockedIn = (await node.call('getblockchaininfo')).warnings;
    await submit(1, 0);
    const warning = 'Unknown new rules activated (versionbit 3)';
    seen.active = [(await node.call('getblockchaininfo')).warnings, (await node.call('getnetworkinfo')).warnings, (await node.call('getmininginfo')).warnings];
    await waitFor('the -alertnotify file', () => (existsSync(alertFile) ? true : undefined), 10_000);
    await submit(2, 0);
    await sleep(300);
    // Told once, though every later tip finds the rules active again.
    seen.alert = readFileSync(alertFile, 'utf8') === `${warning}\n`;
  } finally {
    await node.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
  return seen;
}

test('an unknown version bit locked in is named in the log; once active it is the node’s warning and -alertnotify runs once, as bitcoind', async (t) => {
  const ours = await unknownRulesScenario(startTsbtcd);
  const warning = 'Unknown new rules activated (versionbit 3)';
  assert.deepEqual(ours, { before: [], lockedIn: [[], true], stillLockedIn: [], active: [[warning], [warning], [warning]], alert: true });
  if ('missing' in reference) return t.skip(reference.missing);
  const theirs = await unknownRulesScenario(bitcoindStarter(reference.path));
  assert.deepEqual(ours, theirs);
});
