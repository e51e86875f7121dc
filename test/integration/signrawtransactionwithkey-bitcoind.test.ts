/**
 * signrawtransactionwithkey sent to tsbtcd and to the reference bitcoind on one regtest
 * chain (bitcoind mines, tsbtcd takes the blocks, both get the same pool transactions):
 * every answer — signed hex (RFC6979 with Core's low-R grinding, so equal bytes), the
 * `complete` flag, each input's error, and every refusal — must be bitcoind's byte for byte.
 * Inputs of every script type Core signs with bare keys: P2PKH (compressed and not), P2PK,
 * P2WPKH, P2SH-P2WPKH, bare, P2SH, P2WSH and P2SH-P2WSH multisig, P2WSH pk/pkh, a miniscript
 * P2WSH, pay-to-anchor; a taproot input it cannot sign; a coin only in the pool; every
 * sighash type; partial signing and signing on top of another signer's signatures.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as noble from '@noble/secp256k1';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { hash160, toHex, Transaction, type TxIn, type TxOut } from '../../src/primitives/index.js';
import { encodeSecret, OP, payToPubkeyHashScript, payToScriptHashOf, payToWitnessScriptHashOf, pushData } from '../../src/script/index.js';
import { rpcCall as call, withBareNodes } from '../differential/compare-nodes.js';
import type { DiffRequest } from '../differential/request-catalogue.js';
import { secretFromSeed } from '../support/spends.js';
import { TestWallet } from '../support/wallet.js';
import { mineToBoth, resultOf, sendToBoth } from './bare-node-chain.js';

const reference = referenceBitcoind();

const SECRETS = [1, 2, 3].map((seed) => secretFromSeed(9100 + seed));
const [A, B, C] = SECRETS.map((s) => noble.getPublicKey(s, true)) as [Uint8Array, Uint8Array, Uint8Array];
const C_FULL = noble.getPublicKey(SECRETS[2]!, false);
const [WIF_A, WIF_B, WIF_C] = SECRETS.map((s) => encodeSecret(s, true, 'regtest')) as [string, string, string];
const WIF_C_FULL = encodeSecret(SECRETS[2]!, false, 'regtest');
const EMPTY = new Uint8Array(0);
const VALUE = 10_000_000n;

const multisig = (m: number, keys: Uint8Array[]) => Uint8Array.of(OP.OP_1 + m - 1, ...keys.flatMap((k) => [...pushData(k)]), OP.OP_1 + keys.length - 1, OP.OP_CHECKMULTISIG);
const pk = (key: Uint8Array) => Uint8Array.of(...pushData(key), OP.OP_CHECKSIG);
const wpkh = (key: Uint8Array) => Uint8Array.of(OP.OP_0, 20, ...hash160(key));

/** What each funded output is, with the prevtxs entry that lets a signer solve it. */
interface Funded {
  readonly name: string;
  readonly scriptPubKey: Uint8Array;
  readonly redeemScript?: Uint8Array;
  readonly witnessScript?: Uint8Array;
}

function fundedOutputs(): Funded[] {
  const ms23 = multisig(2, [A, B, C]);
  const ms22 = multisig(2, [A, B]);
  const andV = Uint8Array.of(...pushData(A), OP.OP_CHECKSIGVERIFY, ...pushData(B), OP.OP_CHECKSIG);
  const pkh = payToPubkeyHashScript(hash160(A));
  return [
    { name: 'p2pkh', scriptPubKey: pkh },
    { name: 'p2pkh uncompressed', scriptPubKey: payToPubkeyHashScript(hash160(C_FULL)) },
    { name: 'p2pk', scriptPubKey: pk(B) },
    { name: 'p2wpkh', scriptPubKey: wpkh(A) },
    { name: 'p2sh-p2wpkh', scriptPubKey: payToScriptHashOf(wpkh(B)), redeemScript: wpkh(B) },
    { name: 'bare multisig', scriptPubKey: multisig(1, [A, B]) },
    { name: 'p2sh multisig', scriptPubKey: payToScriptHashOf(ms23), redeemScript: ms23 },
    { name: 'p2wsh multisig', scriptPubKey: payToWitnessScriptHashOf(ms22), witnessScript: ms22 },
    { name: 'p2sh-p2wsh multisig', scriptPubKey: payToScriptHashOf(payToWitnessScriptHashOf(ms23)), redeemScript: payToWitnessScriptHashOf(ms23), witnessScript: ms23 },
    { name: 'p2wsh pk', scriptPubKey: payToWitnessScriptHashOf(pk(C)), witnessScript: pk(C) },
    { name: 'p2wsh pkh', scriptPubKey: payToWitnessScriptHashOf(pkh), witnessScript: pkh },
    { name: 'p2wsh and_v', scriptPubKey: payToWitnessScriptHashOf(andV), witnessScript: andV },
    { name: 'p2wsh uncompressed pk', scriptPubKey: payToWitnessScriptHashOf(pk(C_FULL)), witnessScript: pk(C_FULL) },
    { name: 'anchor', scriptPubKey: Uint8Array.of(OP.OP_1, 2, 0x4e, 0x73) },
  ];
}

test('signrawtransactionwithkey answers byte for byte as bitcoind v31', { skip: 'path' in reference ? false : reference.missing, timeout: 600_000 }, async () => {
  await withBareNodes((reference as { path: string }).path, async (send, each) => {
    const wallet = new TestWallet(91);
    await mineToBoth(each, wallet, 110);
    const [coin, other] = wallet.spendable(111);
    const funded = fundedOutputs();
    const funding = wallet.spend(
      [coin!],
      [...funded.map((f) => ({ value: VALUE, to: f.scriptPubKey })), { value: VALUE, to: 'p2tr-key' as const }, { value: coin!.value - VALUE * BigInt(funded.length + 1) - 20_000n, to: 'p2wpkh' as const }],
    );
    await sendToBoth(each, funding);
    await mineToBoth(each, wallet, 1);
    // A coin only in the pool: an unconfirmed P2WPKH output to A.
    const pooled = wallet.spend([other!], [{ value: VALUE, to: wpkh(A) }, { value: other!.value - VALUE - 10_000n, to: 'p2wpkh' }]);
    await sendToBoth(each, pooled);

    const txid = funding.txidHex;
    const taprootVout = funded.length;
    const input = (vout: number, from = funding.txid): TxIn => ({ prevout: { txid: from, vout }, scriptSig: EMPTY, sequence: 0xfffffffd, witness: [] });
    const outputs = (n: number): TxOut[] => Array.from({ length: n }, (_, i) => ({ value: 1_000_000n + BigInt(i), scriptPubKey: payToPubkeyHashScript(hash160(A)) }));
    const hexOf = (inputs: TxIn[], outs = outputs(2)) => toHex(new Transaction({ version: 2, inputs, outputs: outs, locktime: 0 }).toBytes());
    const prevtx = (f: Funded, vout: number, amount: number | string | undefined = 0.1) => ({
      txid,
      vout,
      scriptPubKey: toHex(f.scriptPubKey),
      ...(f.redeemScript ? { redeemScript: toHex(f.redeemScript) } : {}),
      ...(f.witnessScript ? { witnessScript: toHex(f.witnessScript) } : {}),
      ...(amount !== undefined ? { amount } : {}),
    });
    const everyInput = funded.map((_, vout) => input(vout));
    const all = hexOf([...everyInput, input(taprootVout), input(0, pooled.txid)]);
    const prevtxs = funded.map((f, vout) => prevtx(f, vout));
    const keys = [WIF_A, WIF_B, WIF_C, WIF_C_FULL];

    const requests: DiffRequest[] = [
      call('help', ['signrawtransactionwithkey']),
      call('signrawtransactionwithkey', [all, keys, prevtxs]),
      call('signrawtransactionwithkey', [all, keys]),
      call('signrawtransactionwithkey', [all, [WIF_A], prevtxs]),
      call('signrawtransactionwithkey', [all, [WIF_B], prevtxs]),
      call('signrawtransactionwithkey', [all, [], prevtxs]),
      call('signrawtransactionwithkey', [all, [], []]),
      call('signrawtransactionwithkey', [all, keys, null, 'ALL']),
      call('signrawtransactionwithkey', { hexstring: all, privkeys: keys, prevtxs }),
      call('signrawtransactionwithkey', { hexstring: all, privkeys: [WIF_A], sighashtype: 'NONE' }),
    ];
    for (const sighash of ['DEFAULT', 'ALL', 'NONE', 'SINGLE', 'ALL|ANYONECANPAY', 'NONE|ANYONECANPAY', 'SINGLE|ANYONECANPAY', 'all', '', 'ALL|', 'ANYONECANPAY']) {
      requests.push(call('signrawtransactionwithkey', [hexOf(everyInput.slice(0, 5)), keys, prevtxs.slice(0, 5), sighash]));
    }
    requests.push(call('signrawtransactionwithkey', [hexOf(everyInput.slice(0, 5)), keys, prevtxs.slice(0, 5), 5]));

    // Partly signed by A, then B signs on top: the signatures already there are kept.
    const byA = resultOf<{ hex: string }>(await each.bitcoind(call('signrawtransactionwithkey', [all, [WIF_A], prevtxs]))).hex;
    requests.push(call('signrawtransactionwithkey', [byA, [WIF_B], prevtxs]), call('signrawtransactionwithkey', [byA, [WIF_C], prevtxs]), call('signrawtransactionwithkey', [byA, [], prevtxs]));
    const complete = resultOf<{ hex: string; complete: boolean }>(await each.bitcoind(call('signrawtransactionwithkey', [byA, [WIF_B, WIF_C], prevtxs])));
    requests.push(call('signrawtransactionwithkey', [complete.hex, [], []]), call('testmempoolaccept', [[complete.hex]]));

    // prevtxs for outputs not in the UTXO set, and every way an entry can be wrong.
    const unknown = new Uint8Array(32).fill(0x42);
    const unknownHex = toHex(Uint8Array.from(unknown).reverse());
    const spendUnknown = hexOf([input(0, unknown)]);
    const wpkhEntry = { txid: unknownHex, vout: 0, scriptPubKey: toHex(wpkh(A)) };
    const p2shEntry = { txid: unknownHex, vout: 0, scriptPubKey: toHex(payToScriptHashOf(multisig(1, [A]))) };
    for (const entry of [
      { ...wpkhEntry, amount: 0.5 },
      wpkhEntry,
      { ...wpkhEntry, amount: '0.5' },
      { ...wpkhEntry, amount: -1 },
      { ...wpkhEntry, amount: 'x' },
      { ...wpkhEntry, amount: 21_000_001 },
      { txid: unknownHex, vout: 0, scriptPubKey: toHex(payToPubkeyHashScript(hash160(A))) },
      p2shEntry,
      { ...p2shEntry, redeemScript: toHex(multisig(1, [A])) },
      { ...p2shEntry, redeemScript: toHex(multisig(1, [B])) },
      { ...p2shEntry, witnessScript: toHex(multisig(1, [A])) },
      { ...p2shEntry, redeemScript: toHex(multisig(1, [A])), witnessScript: toHex(multisig(1, [B])) },
      { ...p2shEntry, redeemScript: 'zz' },
      { ...p2shEntry, redeemScript: '' },
      { txid: unknownHex, vout: 0, scriptPubKey: toHex(payToWitnessScriptHashOf(pk(A))), witnessScript: toHex(pk(B)), amount: 1 },
      { txid: unknownHex, vout: 0, scriptPubKey: toHex(payToWitnessScriptHashOf(pk(A))), redeemScript: toHex(pk(A)), amount: 1 },
      { txid: unknownHex, vout: -1, scriptPubKey: '51' },
      { txid: unknownHex, vout: 1.5, scriptPubKey: '51' },
      { txid: unknownHex, vout: '0', scriptPubKey: '51' },
      { txid: unknownHex, scriptPubKey: '51' },
      { vout: 0, scriptPubKey: '51' },
      { txid: unknownHex, vout: 0 },
      { txid: '00', vout: 0, scriptPubKey: '51' },
      { txid: 'zz'.repeat(32), vout: 0, scriptPubKey: '51' },
      { txid: unknownHex, vout: 0, scriptPubKey: 'zz' },
      { txid: unknownHex, vout: 0, scriptPubKey: '' },
      { txid: 5, vout: 0, scriptPubKey: '51' },
      { txid, vout: 3, scriptPubKey: toHex(wpkh(B)), amount: 0.1 },
      { txid, vout: 3, scriptPubKey: toHex(wpkh(A)), amount: 0.2 },
    ]) {
      requests.push(call('signrawtransactionwithkey', [spendUnknown, [WIF_A], [entry]]));
    }
    requests.push(
      call('signrawtransactionwithkey', [spendUnknown, [WIF_A], ['x']]),
      call('signrawtransactionwithkey', [spendUnknown, [WIF_A], {}]),
      call('signrawtransactionwithkey', [spendUnknown, [WIF_A]]),
      call('signrawtransactionwithkey', [spendUnknown, [WIF_A], [{ ...wpkhEntry, amount: 0.5 }, { ...wpkhEntry, amount: 0.7 }]]),
      call('signrawtransactionwithkey', [hexOf([input(3), input(3)]), [WIF_A], []]),
      call('signrawtransactionwithkey', [hexOf([input(99)]), [WIF_A], []]),
      call('signrawtransactionwithkey', [all, ['notakey']]),
      call('signrawtransactionwithkey', [all, [encodeSecret(SECRETS[0]!, true, 'main')]]),
      call('signrawtransactionwithkey', [all, [5]]),
      call('signrawtransactionwithkey', [all, WIF_A]),
      call('signrawtransactionwithkey', [all]),
      call('signrawtransactionwithkey', [`${all}00`, keys]),
      call('signrawtransactionwithkey', ['zz', keys]),
      call('signrawtransactionwithkey', ['', keys]),
      call('signrawtransactionwithkey', [5, keys]),
      call('signrawtransactionwithkey', [hexOf([], outputs(1)), keys]),
      call('signrawtransactionwithkey', []),
      call('signrawtransactionwithkey', [all, keys, prevtxs, 'ALL', 'extra']),
    );

    const different: string[] = [];
    for (const request of requests) {
      const [a, b] = await send(request);
      if (a.status !== b.status || !a.body.equals(b.body)) different.push(`${request.label.slice(0, 200)}\n  tsbtcd:   ${a.status} ${a.body}\n  bitcoind: ${b.status} ${b.body}`);
    }
    assert.deepEqual(different, [], `${different.length} of ${requests.length} differ:\n${different.join('\n')}`);
    assert.equal(complete.complete, false, 'the taproot input stays unsigned');
  });
});
