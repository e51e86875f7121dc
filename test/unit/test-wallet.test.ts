/**
 * The daemon tests' wallet (test/support/wallet.ts) signs what the consensus interpreter
 * accepts: every output kind, spent alone and together, checked with src/script's
 * verifyInput under the standard flags; its fast BIP340 signer gives noble's bytes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as noble from '@noble/secp256k1';
import { Transaction, type Block, type TxOut } from '../../src/primitives/index.js';
import { ScriptError, STANDARD_SCRIPT_VERIFY_FLAGS, verifyInput } from '../../src/script/index.js';
import { secretFromSeed } from '../support/spends.js';
import { schnorrSign, TestWallet, WALLET_KINDS, type WalletCoin } from '../support/wallet.js';

test('the fast BIP340 signer gives the signatures noble makes', () => {
  for (let i = 0; i < 8; i++) {
    const secret = secretFromSeed(500 + i);
    const message = noble.etc.randomBytes(32);
    const aux = noble.etc.randomBytes(32);
    assert.deepEqual(schnorrSign(message, secret, aux), noble.schnorr.sign(message, secret, aux));
  }
});

/** A funding transaction paying the wallet one output of each kind, shown to it in a block at height 1. */
function funded(wallet: TestWallet): WalletCoin[] {
  const outputs: TxOut[] = WALLET_KINDS.flatMap((kind) => [0, 1].map(() => ({ value: 1_0000_0000n, scriptPubKey: wallet.scriptPubKey(kind) })));
  const input = { prevout: { txid: new Uint8Array(32).fill(7), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] };
  const funding = new Transaction({ version: 2, inputs: [input], outputs, locktime: 0 });
  wallet.processBlock({ transactions: [funding] } as unknown as Block, 1);
  return wallet.spendable(2);
}

function assertVerifies(tx: Transaction, spent: readonly WalletCoin[]): void {
  const spentOutputs = spent.map((c) => ({ value: c.value, scriptPubKey: c.scriptPubKey }));
  tx.inputs.forEach((_, i) => assert.equal(verifyInput(tx, i, spentOutputs, STANDARD_SCRIPT_VERIFY_FLAGS), ScriptError.OK, `input ${i} (${spent[i]!.kind})`));
}

test('wallet spends of every kind verify: P2WPKH, P2TR key path, one-leaf and two-leaf script paths', () => {
  const wallet = new TestWallet(3);
  const coins = funded(wallet);
  assert.equal(coins.length, 8);
  // Alone, so each witness shape is checked in isolation (the tree twice: both leaves).
  for (const coin of coins) {
    const tx = wallet.spend([coin], [{ value: coin.value - 1000n, to: 'p2wpkh' }]);
    assertVerifies(tx, [coin]);
    const witness = tx.inputs[0]!.witness;
    if (coin.kind === 'p2tr-leaf') assert.equal(witness[2]!.length, 33, 'a one-leaf tree has no merkle path');
    if (coin.kind === 'p2tr-tree') assert.equal(witness[2]!.length, 65, 'a two-leaf tree has one path element');
  }
  // The spends above left 8 new P2WPKH coins; spend them all together, then chain on the result.
  const next = wallet.spendable(3);
  assert.equal(next.length, 8);
  assert.ok(next.every((c) => c.height === null && c.kind === 'p2wpkh'));
  const total = next.reduce((a, c) => a + c.value, 0n);
  const merged = wallet.spend(next, [{ value: total - 5000n, to: 'p2tr-tree' }]);
  assertVerifies(merged, next);
  const [child] = wallet.spendable(3);
  assert.equal(child!.kind, 'p2tr-tree');
  assertVerifies(wallet.spend([child!], [{ value: child!.value - 1000n, to: 'p2tr-key' }]), [child!]);
});

test('a signature over the wrong amount fails: the wallet signs what the interpreter checks', () => {
  const wallet = new TestWallet(4);
  for (const coin of funded(wallet).filter((_, i) => i % 2 === 0)) {
    const tx = wallet.spend([coin], [{ value: coin.value - 1000n, to: 'p2wpkh' }]);
    const lying = [{ value: coin.value + 1n, scriptPubKey: coin.scriptPubKey }];
    assert.notEqual(verifyInput(tx, 0, lying, STANDARD_SCRIPT_VERIFY_FLAGS), ScriptError.OK, coin.kind);
  }
});

test('coinbase coins mature after 100 blocks', () => {
  const wallet = new TestWallet(5);
  const coinbase = new Transaction({
    version: 2,
    inputs: [{ prevout: { txid: new Uint8Array(32), vout: 0xffffffff }, scriptSig: Uint8Array.of(1, 10), sequence: 0xffffffff, witness: [] }],
    outputs: [{ value: 50_0000_0000n, scriptPubKey: wallet.scriptPubKey('p2tr-leaf') }],
    locktime: 0,
  });
  wallet.processBlock({ transactions: [coinbase] } as unknown as Block, 10);
  assert.equal(wallet.size, 1);
  assert.equal(wallet.spendable(109).length, 0);
  assert.equal(wallet.spendable(110).length, 1);
});
