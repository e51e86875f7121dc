/**
 * -loadblock by real daemons, tsbtcd beside the reference Bitcoin Core v31.0, through the
 * harness `make bench-import` times (native-bench/loadblock-import.ts) on a small chain of
 * its generator: 100 coinbase-only blocks, then a few blocks of signed P2WPKH (ECDSA) and
 * P2TR key-path (Schnorr) spends. Every script is checked (-assumevalid=0). Both daemons
 * must end on the file's tip with the same UTXO set (gettxoutsetinfo hash_serialized_3,
 * txouts and amount) and log the same script-checking decision. Without a reference
 * bitcoind (BITCOIND, or ../shared/bin beside the checkout) the comparison is skipped with
 * one line saying why; tsbtcd's import still runs.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { generateChain, type ChainMeta } from '../../native-bench/import-chain.js';
import { loadblockImport, type LoadblockImportResult } from '../../native-bench/loadblock-import.js';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { tempDir } from './daemon-harness.js';

/** About 300 transactions (315 inputs) in blocks of 100 after the 100 blocks that mature the first coinbase. */
const SMALL_CHAIN = { transactions: 300, txPerBlock: 100, assumeValidTail: false };
const PAR = 2;

const reference = referenceBitcoind();
const dir = tempDir();
const file = join(dir, 'chain.blk');
let meta: ChainMeta;
let tsbtcd: LoadblockImportResult | undefined;

before(async () => {
  meta = await generateChain(file, SMALL_CHAIN, PAR);
});

after(() => rmSync(dir, { recursive: true, force: true }));

test('tsbtcd imports a chain of signed P2WPKH and P2TR spends with -loadblock, checking every script', async () => {
  assert.ok(meta.inputs >= 300 && meta.txBlocks >= 3, `the generated chain has ${meta.inputs} inputs in ${meta.txBlocks} blocks`);
  const result = await loadblockImport({ daemon: 'tsbtcd', file, tipHeight: meta.blocks, assumeValid: null, par: PAR, timeoutMs: 120_000 });
  assert.equal(result.tipHeight, meta.blocks);
  assert.equal(result.tipHash, meta.lastHash);
  assert.match(result.utxo.hash, /^[0-9a-f]{64}$/);
  // One decision for the whole chain, worded as Core v31 words it.
  assert.deepEqual(result.scriptChecks, [{ height: 1, checked: true, reason: 'assumevalid=0 (always verify)' }]);
  tsbtcd = result;
});

test(
  'bitcoind v31.0 imports the same file with -loadblock to the same tip and the same UTXO set',
  { skip: 'missing' in reference ? reference.missing : false },
  async () => {
    assert.ok('path' in reference);
    assert.ok(tsbtcd, 'the tsbtcd import (the test above) did not complete');
    const core = await loadblockImport({ daemon: 'bitcoind', executable: reference.path, file, tipHeight: meta.blocks, assumeValid: null, par: PAR, timeoutMs: 120_000 });
    assert.equal(core.tipHeight, tsbtcd.tipHeight);
    assert.equal(core.tipHash, tsbtcd.tipHash);
    assert.deepEqual(core.utxo, tsbtcd.utxo);
    assert.deepEqual(core.scriptChecks, tsbtcd.scriptChecks);
  },
);
