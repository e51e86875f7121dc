/**
 * Core's signature and script-execution caches in real regtest daemons, read through their
 * -debug=bench lines: a block of 1,000 transactions that all went through
 * sendrawtransaction connects with 0 signature verifications (every transaction answered
 * by the script-execution cache); the same block on a node that never saw them verifies
 * every signature; a cached signature never vouches for another message; and with
 * -maxsigcachesize=0 both caches hold 4 entries and the same block still connects.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fromHex, parseBlock, toHex, Transaction } from '../../src/primitives/index.js';
import { TestWallet, type WalletCoin } from '../support/wallet.js';
import { Daemon } from './daemon-harness.js';

const SPENDS = 1_000;
const ARGS = ['-debug=bench', '-par=2', '-rpcfrontends=1'];
const wallet = new TestWallet(77);

let hot: Daemon;
const daemons: Daemon[] = [];
/** Raw blocks of the hot node's chain above genesis, in order. */
const blocks: string[] = [];
let spends: Transaction[] = [];

interface ScriptWork {
  cachedTransactions: number;
  transactions: number;
  signaturesVerified: number;
  signatureCacheHits: number;
  verifyMs: number;
}

/** The last block's "- Verify" and "- Script checks" bench lines in a daemon's debug.log. */
function lastScriptWork(d: Daemon): ScriptWork {
  const log = d.debugLog();
  const verify = [...log.matchAll(/- Verify (\d+) txins: ([\d.]+)ms/g)].pop();
  const work = [...log.matchAll(/- Script checks: (\d+) of (\d+) transactions from the script execution cache, (\d+) signatures verified, (\d+) from the signature cache/g)].pop();
  assert.ok(verify && work, 'the bench lines are in debug.log');
  return {
    cachedTransactions: Number(work[1]),
    transactions: Number(work[2]),
    signaturesVerified: Number(work[3]),
    signatureCacheHits: Number(work[4]),
    verifyMs: Number(verify[2]),
  };
}

async function start(args: string[]): Promise<Daemon> {
  const d = await Daemon.start({ args });
  daemons.push(d);
  return d;
}

async function mineOnHot(n: number): Promise<void> {
  const hashes = await hot.call<string[]>('generatetoaddress', [n, wallet.address('p2wpkh')]);
  for (const hash of hashes) {
    const raw = await hot.call<string>('getblock', [hash, 0]);
    const height = (await hot.call<{ height: number }>('getblockheader', [hash])).height;
    wallet.processBlock(parseBlock(fromHex(raw)), height);
    blocks.push(raw);
  }
}

async function submitAll(d: Daemon, raws: readonly string[]): Promise<void> {
  for (const raw of raws) assert.equal(await d.call('submitblock', [raw]), null);
}

before(async () => {
  hot = await start(ARGS);
  await mineOnHot(101);
  // One coinbase fans out into SPENDS outputs of both kinds, then each is spent alone.
  const coinbase = wallet.spendable(102).find((c) => c.coinbase)!;
  const each = (coinbase.value - 200_000n) / BigInt(SPENDS);
  const fanOut = wallet.spend([coinbase], Array.from({ length: SPENDS }, (_, i) => ({ value: each, to: i % 2 === 0 ? ('p2wpkh' as const) : ('p2tr-key' as const) })));
  await hot.call('sendrawtransaction', [toHex(fanOut.toBytes())]);
  await mineOnHot(1);
  const outputs = wallet.spendable(104).filter((c: WalletCoin) => !c.coinbase);
  assert.equal(outputs.length, SPENDS);
  spends = outputs.map((coin) => wallet.spend([coin], [{ value: coin.value - 2_000n, to: 'p2wpkh' }]));
});

after(async () => {
  await Promise.all(daemons.map((d) => d.cleanup()));
});

test('a cached signature does not vouch for another message', async () => {
  const tx = spends[0]!;
  const [accepted] = await hot.call<{ allowed: boolean }[]>('testmempoolaccept', [[toHex(tx.toBytes())]]);
  assert.equal(accepted!.allowed, true);
  // The same inputs and witnesses with one satoshi more fee: every signature commits to other outputs now.
  const output = tx.outputs[0]!;
  const forged = new Transaction({ version: tx.version, inputs: tx.inputs, outputs: [{ ...output, value: output.value - 1n }], locktime: tx.locktime });
  const [refused] = await hot.call<{ allowed: boolean; 'reject-reason': string }[]>('testmempoolaccept', [[toHex(forged.toBytes())]]);
  assert.equal(refused!.allowed, false);
  assert.match(refused!['reject-reason'], /^mempool-script-verify-flag-failed \(/);
});

test('a block of transactions from the mempool connects with 0 signature verifications; a cold node verifies them all', async (t) => {
  for (const tx of spends) await hot.call('sendrawtransaction', [toHex(tx.toBytes())]);
  assert.equal((await hot.call<{ size: number }>('getmempoolinfo')).size, SPENDS);
  await mineOnHot(1);
  const tip = await hot.call<{ nTx: number }>('getblock', [await hot.call('getbestblockhash'), 1]);
  assert.equal(tip.nTx, SPENDS + 1, 'every pool transaction is in the block');
  const warm = lastScriptWork(hot);
  assert.deepEqual(
    { cached: warm.cachedTransactions, transactions: warm.transactions, verified: warm.signaturesVerified },
    { cached: SPENDS, transactions: SPENDS, verified: 0 },
  );

  const cold = await start(ARGS);
  await submitAll(cold, blocks);
  assert.equal(await cold.call('getbestblockhash'), await hot.call('getbestblockhash'));
  const coldWork = lastScriptWork(cold);
  assert.deepEqual(
    { cached: coldWork.cachedTransactions, verified: coldWork.signaturesVerified, hits: coldWork.signatureCacheHits },
    { cached: 0, verified: SPENDS, hits: 0 },
  );
  t.diagnostic(`Verify ${SPENDS} txins: ${warm.verifyMs} ms from the caches, ${coldWork.verifyMs} ms cold (${(coldWork.verifyMs / Math.max(warm.verifyMs, 0.01)).toFixed(1)}×)`);
});

test('-maxsigcachesize=0 leaves 4 entries in each cache and the same transactions still confirm', async () => {
  const tiny = await start([...ARGS, '-maxsigcachesize=0']);
  const log = tiny.debugLog();
  assert.match(log, /Using 0 MiB out of 0 MiB requested for signature cache, able to store 4 elements/);
  assert.match(log, /Using 0 MiB out of 0 MiB requested for script execution cache, able to store 4 elements/);
  await submitAll(tiny, blocks.slice(0, -1));
  for (const tx of spends) await tiny.call('sendrawtransaction', [toHex(tx.toBytes())]);
  await tiny.call('generatetoaddress', [1, wallet.address('p2wpkh')]);
  const tip = await tiny.call<{ nTx: number }>('getblock', [await tiny.call('getbestblockhash'), 1]);
  assert.equal(tip.nTx, SPENDS + 1);
  assert.equal((await tiny.call<{ size: number }>('getmempoolinfo')).size, 0);
  const work = lastScriptWork(tiny);
  assert.ok(work.cachedTransactions <= 4, `at most 4 transactions from a 4-entry cache, got ${work.cachedTransactions}`);
  assert.ok(work.signaturesVerified >= SPENDS - 8, `nearly every signature verified again, got ${work.signaturesVerified}`);
});
