/**
 * The renderers that write JSON text directly (transaction-text.ts, blockText, and the
 * text forms of scripts, amounts and strings) against writeJson of the object builders
 * they stand in for, on real transactions of every kind: mainnet block 277,647 with its
 * spent coins (getblock 1–3), Core's tx_valid.json (odd scripts and witnesses) with coins
 * taken from their own outputs, and BIP341's taproot spends with the coins they spend.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Coin } from '../../src/consensus/index.js';
import { fromHex, parseBlock, parseTransaction, type Transaction } from '../../src/primitives/index.js';
import {
  amountJson,
  amountText,
  blockText,
  blockToJson,
  jsonString,
  rawTransactionJson,
  rawTransactionText,
  txText,
  txToJson,
  writeJson,
  type HeaderJsonFields,
} from '../../src/rpc/index.js';
import { readVectorJson, readVectorText } from '../support/vectors.js';

const block277647 = parseBlock(fromHex(readVectorText('block277647.hex').trim()));

interface PrevoutEntry {
  tx: number;
  value: number;
  scriptPubKey: string;
  height: number;
  coinbase: boolean;
}

function block277647Undo(): Coin[][] {
  const coins: Coin[][] = block277647.transactions.slice(1).map(() => []);
  for (const e of readVectorJson<PrevoutEntry[]>('block277647-prevouts.json')) {
    coins[e.tx - 1]!.push({ output: { value: BigInt(e.value), scriptPubKey: fromHex(e.scriptPubKey) }, height: e.height, coinbase: e.coinbase });
  }
  return coins;
}

const header: HeaderJsonFields = {
  header: block277647.header,
  height: 277647,
  chainWork: 0x1234567890abcdefn,
  medianTimePast: 1389390000,
  txCount: block277647.transactions.length,
  confirmations: 3,
  nextHash: new Uint8Array(32).fill(7),
  powLimit: (1n << 224n) - 1n,
};

test('getblock 1, 2 and 3 as text are writeJson of the block objects (block 277,647 with its spent coins)', () => {
  const undo = block277647Undo();
  for (const verbosity of [1, 2, 3] as const) {
    for (const options of [{ chain: 'main' as const, verbosity, undo }, { chain: 'main' as const, verbosity }]) {
      assert.equal(blockText(block277647, header, options), writeJson(blockToJson(block277647, header, options)), `verbosity ${verbosity}`);
    }
  }
});

/** tx_valid.json's transactions, each given coins cut from the outputs of the transactions in the file (every script kind there). */
function txValidCases(): { tx: Transaction; undo: Coin[] }[] {
  const rows = readVectorJson<unknown[][]>('tx_valid.json').filter((row) => Array.isArray(row[0]));
  const txs = rows.map((row) => parseTransaction(fromHex(row[1] as string)));
  const outputs = txs.flatMap((tx) => tx.outputs);
  let next = 0;
  return txs.map((tx) => ({
    tx,
    undo: tx.inputs.map((_, i) => ({ output: outputs[next++ % outputs.length]!, height: 100 + i, coinbase: i % 2 === 0 })),
  }));
}

test("transactions as text are writeJson of TxToUniv's objects (tx_valid.json, with and without coins, prevouts and hex)", () => {
  for (const { tx, undo } of txValidCases()) {
    for (const chain of ['main', 'regtest'] as const) {
      const variants = [{ chain }, { chain, includeHex: false }, { chain, undo }, { chain, undo, prevouts: true }, { chain, undo, prevouts: true, blockhash: '00ff' }];
      for (const options of variants) assert.equal(txText(tx, options), writeJson(txToJson(tx, options)), tx.txidHex);
    }
  }
});

test('taproot spends as text are writeJson of the objects (BIP341 key path spending, with the coins spent)', () => {
  const vectors = readVectorJson<{ keyPathSpending: { given: { rawUnsignedTx: string; utxosSpent: { scriptPubKey: string; amountSats: number }[] } }[] }>('bip341_wallet_vectors.json');
  for (const { given } of vectors.keyPathSpending) {
    const tx = parseTransaction(fromHex(given.rawUnsignedTx));
    const undo = given.utxosSpent.map((u) => ({ output: { value: BigInt(u.amountSats), scriptPubKey: fromHex(u.scriptPubKey) }, height: 5, coinbase: false }));
    const blocks = [undefined, { hash: 'ab'.repeat(32) }, { hash: 'cd'.repeat(32), index: { confirmations: 0 } }, { hash: 'ef'.repeat(32), index: { confirmations: 4, time: 1700000000 } }];
    for (const block of blocks) {
      for (const inActiveChain of [undefined, true, false]) {
        for (const coins of [undefined, undo]) {
          const options = { chain: 'main' as const, ...(block ? { block } : {}), ...(inActiveChain === undefined ? {} : { inActiveChain }), ...(coins ? { undo: coins } : {}) };
          assert.equal(rawTransactionText(tx, options), writeJson(rawTransactionJson(tx, options)));
        }
      }
    }
  }
});

test('amounts and strings as text are what writeJson prints', () => {
  for (const sats of [0n, 1n, -1n, 99_999_999n, 100_000_000n, -2_100_000_000_000_000n, 2_100_000_000_000_000n, 9_007_199_254_740_991n, 9_007_199_254_740_993n, -(2n ** 63n)]) {
    assert.equal(amountText(sats), writeJson(amountJson(sats)), String(sats));
  }
  for (const text of ['', 'plain', 'a"b', 'back\\slash', 'tab\t', 'nul\u0000', 'del\x7f', 'é', '\ud800 lone', '😀', 'OP_RETURN [error]']) {
    assert.equal(jsonString(text), writeJson(text), JSON.stringify(text));
  }
});
