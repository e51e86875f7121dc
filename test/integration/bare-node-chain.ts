/**
 * One regtest chain on the bare node pair of compare-nodes.ts (withBareNodes): bitcoind
 * mines, tsbtcd takes each block through submitblock, and both get the same pool
 * transactions, so requests sent to both can be compared byte for byte.
 */
import assert from 'node:assert/strict';
import { fromHex, parseBlock, toHex, type Transaction } from '../../src/primitives/index.js';
import { rpcCall as call, type Answer, type SendToEach } from '../differential/compare-nodes.js';
import type { TestWallet } from '../support/wallet.js';

/** A JSON-RPC answer's result; fails on an error. */
export function resultOf<T>(answer: Answer): T {
  const reply = JSON.parse(answer.body.toString('utf8')) as { result: T; error: unknown };
  assert.equal(reply.error, null, answer.body.toString('utf8'));
  return reply.result;
}

/** bitcoind mines `count` blocks to the wallet; tsbtcd takes each through submitblock. */
export async function mineToBoth(each: SendToEach, wallet: TestWallet, count: number): Promise<void> {
  const hashes = resultOf<string[]>(await each.bitcoind(call('generatetoaddress', [count, wallet.address('p2wpkh')])));
  for (const hash of hashes) {
    const hex = resultOf<string>(await each.bitcoind(call('getblock', [hash, 0])));
    assert.equal(resultOf(await each.tsbtcd(call('submitblock', [hex]))), null);
    wallet.processBlock(parseBlock(fromHex(hex)), resultOf<{ height: number }>(await each.bitcoind(call('getblockheader', [hash]))).height);
  }
}

export async function sendToBoth(each: SendToEach, tx: Transaction): Promise<void> {
  const hex = toHex(tx.toBytes());
  assert.equal(resultOf(await each.bitcoind(call('sendrawtransaction', [hex]))), tx.txidHex);
  assert.equal(resultOf(await each.tsbtcd(call('sendrawtransaction', [hex]))), tx.txidHex);
}
