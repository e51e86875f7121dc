/**
 * -blocksdir (Core's feature_blocksdir.py idea): a directory that does not exist stops
 * start-up with bitcoind's message; an existing one holds <blocksdir>/regtest/blocks with
 * the blk files (and its own .lock), the coordinator and the HTTP front-ends read blocks
 * from there, and a restart with the same option finds the chain.
 */
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { assertSameStartupRefusals } from './bitcoind-process.js';
import { Daemon, tempDir } from './daemon-harness.js';

const reference = referenceBitcoind();
const ADDRESS = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';

test('-blocksdir: the blk files go there, every reader finds them, a restart keeps the chain', async () => {
  const blocksdir = tempDir();
  const node = await Daemon.start({ args: [`-blocksdir=${blocksdir}`] });
  try {
    const hashes = await node.call<string[]>('generatetoaddress', [10, ADDRESS]);
    assert.ok(existsSync(join(blocksdir, 'regtest', 'blocks', 'blk00000.dat')));
    assert.ok(existsSync(join(blocksdir, 'regtest', 'blocks', '.lock')));
    assert.equal(existsSync(join(node.netdir, 'blocks', 'blk00000.dat')), false);
    // getblock is a front-end's read of the block file.
    const block = await node.call('getblock', [hashes[9], 2]);
    assert.equal(block.height, 10);
    await node.stop();
    const again = await node.restart({ args: [`-blocksdir=${blocksdir}`] });
    try {
      assert.equal(await again.call('getbestblockhash'), hashes[9]);
      assert.equal((await again.call('getblock', [hashes[4], 0])).length > 0, true);
    } finally {
      await again.cleanup();
    }
  } finally {
    await node.cleanup();
    rmSync(blocksdir, { recursive: true, force: true });
  }
});

test('-blocksdir naming no directory stops start-up as bitcoind does', async (t) => {
  if ('missing' in reference) return t.skip(reference.missing);
  const parent = tempDir();
  try {
    await assertSameStartupRefusals(reference.path, [['-regtest', `-blocksdir=${join(parent, 'missing')}`]]);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});
