/**
 * verifymessage, signmessagewithprivkey, gettxspendingprevout and combinerawtransaction,
 * sent to tsbtcd and to the reference bitcoind on one regtest chain (bitcoind mines, tsbtcd
 * takes the blocks, both get the same pool transactions): every answer, valid or error,
 * positional or named, must be bitcoind's byte for byte.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as noble from '@noble/secp256k1';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { hash160, toHex, Transaction, type TxIn, type TxOut } from '../../src/primitives/index.js';
import {
  encodeAddress,
  encodeSecret,
  legacySignatureHash,
  OP,
  payToPubkeyHashScript,
  payToScriptHashOf,
  payToWitnessScriptHashOf,
  pushData,
  SIGHASH_ALL,
  witnessV0SignatureHash,
} from '../../src/script/index.js';
import { rpcCall as call, withBareNodes, type SendToEach } from '../differential/compare-nodes.js';
import type { DiffRequest } from '../differential/request-catalogue.js';
import { derEncode, secretFromSeed } from '../support/spends.js';
import { mineToBoth, resultOf, sendToBoth } from './bare-node-chain.js';
import { TestWallet, type WalletCoin } from '../support/wallet.js';

const reference = referenceBitcoind();

const SECRETS = [1, 2, 3].map((seed) => secretFromSeed(9000 + seed));
const PUBKEYS = SECRETS.map((s) => noble.getPublicKey(s, true));
const UNCOMPRESSED = noble.getPublicKey(SECRETS[2]!, false);
const p2pkhAddress = (pubkey: Uint8Array) => encodeAddress(payToPubkeyHashScript(hash160(pubkey)), 'regtest')!;

function messageRequests(): DiffRequest[] {
  const wifs = [encodeSecret(SECRETS[0]!, true, 'regtest'), encodeSecret(SECRETS[2]!, false, 'regtest')];
  const mainnetWif = encodeSecret(SECRETS[0]!, true, 'main');
  const messages = ['hello', '', 'ünïcødé ✓ 𝄞', 'x'.repeat(300), 'line\nbreak\u0000nul'];
  const requests: DiffRequest[] = [];
  for (const wif of wifs) for (const message of messages) requests.push(call('signmessagewithprivkey', [wif, message]));
  requests.push(
    call('signmessagewithprivkey', { privkey: wifs[0], message: 'named' }),
    call('signmessagewithprivkey', [mainnetWif, 'm']),
    call('signmessagewithprivkey', ['', 'm']),
    call('signmessagewithprivkey', ['notakey', 'm']),
    call('signmessagewithprivkey', [wifs[0]]),
    call('signmessagewithprivkey', [5, 'm']),
    call('signmessagewithprivkey', [wifs[0], 5]),
    call('signmessagewithprivkey', [wifs[0], 'm', 'extra']),
    call('help', ['signmessagewithprivkey']),
    call('help', ['verifymessage']),
  );
  return requests;
}

/** A signature by bitcoind itself, then that signature altered in every way verifymessage must judge. */
async function verifyRequests(each: SendToEach): Promise<DiffRequest[]> {
  const wif = encodeSecret(SECRETS[0]!, true, 'regtest');
  const uncompressedWif = encodeSecret(SECRETS[2]!, false, 'regtest');
  const address = p2pkhAddress(PUBKEYS[0]!);
  const uncompressedAddress = p2pkhAddress(UNCOMPRESSED);
  const signature = resultOf<string>(await each.bitcoind(call('signmessagewithprivkey', [wif, 'hello'])));
  const uncompressedSignature = resultOf<string>(await each.bitcoind(call('signmessagewithprivkey', [uncompressedWif, 'hello'])));
  assert.equal(resultOf(await each.bitcoind(call('verifymessage', [address, signature, 'hello']))), true);
  const bytes = Buffer.from(signature, 'base64');
  const withHeader = (header: number) => Buffer.concat([Buffer.of(header), bytes.subarray(1)]).toString('base64');
  const requests: DiffRequest[] = [
    call('verifymessage', [address, signature, 'hello']),
    call('verifymessage', [address, signature, 'hellO']),
    call('verifymessage', [uncompressedAddress, uncompressedSignature, 'hello']),
    call('verifymessage', [address, uncompressedSignature, 'hello']),
    call('verifymessage', [p2pkhAddress(PUBKEYS[1]!), signature, 'hello']),
    call('verifymessage', { address, signature, message: 'hello' }),
    call('verifymessage', { message: 'hello', signature, address }),
  ];
  for (const header of [0, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 255]) requests.push(call('verifymessage', [address, withHeader(header), 'hello']));
  const badSignatures = ['', 'AAAA', 'AB==', 'AAA=', 'AA==', 'A===', '====', 'AAA', 'AAAAA', ' AAAA', 'AA AA', 'AA-_', signature.slice(0, -4), `${signature}AAAA`, signature.replace(/=$/, ''), 'ÀÀÀÀ'];
  for (const bad of badSignatures) requests.push(call('verifymessage', [address, bad, 'hello']));
  const highR = Buffer.concat([Buffer.of(31), Buffer.alloc(32, 0xff), bytes.subarray(33)]).toString('base64');
  const zeroS = Buffer.concat([bytes.subarray(0, 33), Buffer.alloc(32)]).toString('base64');
  requests.push(call('verifymessage', [address, highR, 'hello']), call('verifymessage', [address, zeroS, 'hello']));
  const otherAddresses = [
    'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080',
    'bcrt1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqc8gma6',
    '2MzQwSSnBHWHqSAqtTVQ6v47XtaisrJa1Vc',
    'bcrt1pfeesnyr2tx',
    '1D1ZrZNe3JUo7ZycKEYQQiQAWd9y54F4XX',
    'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4',
    'notanaddress',
    '',
  ];
  for (const other of otherAddresses) requests.push(call('verifymessage', [other, signature, 'hello']), call('verifymessage', [other, 'not base64!', 'hello']));
  requests.push(
    call('verifymessage', [address, signature]),
    call('verifymessage', [address, 5, 'hello']),
    call('verifymessage', [address, signature, 5]),
    call('verifymessage', [5, signature, 'hello']),
    call('verifymessage', [address, signature, 'hello', 'extra']),
    call('verifymessage', { address, signature }),
  );
  return requests;
}

const derSig = (digest: Uint8Array, secret: Uint8Array) => Uint8Array.of(...derEncode(noble.sign(digest, secret, { prehash: false, lowS: true })), SIGHASH_ALL);
const EMPTY = new Uint8Array(0);
const body = (label: string, text: string): DiffRequest => ({ label, group: 'json-rpc', method: 'POST', path: '/', body: text, auth: true });
const scriptOf = (...items: Uint8Array[]) => Uint8Array.from(items.flatMap((item) => (item.length === 0 ? [OP.OP_0] : [...pushData(item)])));

/**
 * Outputs of the other script types combining reads (P2SH-P2WSH and P2SH-P2WPKH, P2PK, bare
 * multisig, P2WSH pk, and miniscript P2WSH: and_v, thresh and or_d with older of two keys), sent
 * to both nodes, and variants of one
 * spend of them: signed by A (and C), by B, unsigned, and with only the first input.
 */
async function otherScriptVariants(each: SendToEach, wallet: TestWallet, coin: WalletCoin, multisig: Uint8Array) {
  const [A, B, C] = PUBKEYS as [Uint8Array, Uint8Array, Uint8Array];
  const [a, b, c] = SECRETS as [Uint8Array, Uint8Array, Uint8Array];
  const nestedMultisig = payToWitnessScriptHashOf(multisig);
  const nestedKeyhash = Uint8Array.of(OP.OP_0, 20, ...hash160(C));
  const bareMultisig = Uint8Array.of(OP.OP_1, ...pushData(A), ...pushData(B), OP.OP_2, OP.OP_CHECKMULTISIG);
  const pkScript = Uint8Array.of(...pushData(A), OP.OP_CHECKSIG);
  const andScript = Uint8Array.of(...pushData(A), OP.OP_CHECKSIGVERIFY, ...pushData(B), OP.OP_CHECKSIG);
  // thresh(2,pk(A),s:pk(B)) and or_d(pk(A),and_v(v:pk(B),older(10))).
  const threshScript = Uint8Array.of(...pushData(A), OP.OP_CHECKSIG, OP.OP_SWAP, ...pushData(B), OP.OP_CHECKSIG, OP.OP_ADD, OP.OP_2, OP.OP_EQUAL);
  const olderScript = Uint8Array.of(...pushData(A), OP.OP_CHECKSIG, OP.OP_IFDUP, OP.OP_NOTIF, ...pushData(B), OP.OP_CHECKSIGVERIFY, OP.OP_10, OP.OP_CHECKSEQUENCEVERIFY, OP.OP_ENDIF);
  const scripts = [
    payToScriptHashOf(nestedMultisig),
    payToScriptHashOf(nestedKeyhash),
    pkScript,
    bareMultisig,
    payToWitnessScriptHashOf(pkScript),
    payToWitnessScriptHashOf(andScript),
    payToWitnessScriptHashOf(threshScript),
    payToWitnessScriptHashOf(olderScript),
  ];
  const value = 10_000_000n;
  const funding = wallet.spend([coin], [...scripts.map((to) => ({ value, to })), { value: coin.value - 80_010_000n, to: 'p2wpkh' as const }]);
  await sendToBoth(each, funding);
  const outs: TxOut[] = [{ value: 79_000_000n, scriptPubKey: payToPubkeyHashScript(hash160(A)) }];
  const inputs = scripts.map((_, vout): TxIn => ({ prevout: { txid: funding.txid, vout }, scriptSig: EMPTY, sequence: 0xfffffffd, witness: [] }));
  const unsigned = new Transaction({ version: 2, inputs, outputs: outs, locktime: 0 });
  const v0 = (i: number, script: Uint8Array, secret: Uint8Array) => derSig(witnessV0SignatureHash(script, unsigned, i, SIGHASH_ALL, value), secret);
  const legacy = (i: number, script: Uint8Array, secret: Uint8Array) => derSig(legacySignatureHash(script, unsigned, i, SIGHASH_ALL), secret);
  const build = (parts: { scriptSig?: Uint8Array; witness?: Uint8Array[] }[], count = parts.length) =>
    toHex(new Transaction({ version: 2, inputs: inputs.slice(0, count).map((input, i) => ({ ...input, ...parts[i] })), outputs: outs, locktime: 0 }).toBytes());
  const pushNested = pushData(nestedMultisig);
  const byA = [
    { scriptSig: pushNested, witness: [EMPTY, v0(0, multisig, a), EMPTY, multisig] },
    { scriptSig: pushData(nestedKeyhash), witness: [v0(1, payToPubkeyHashScript(hash160(C)), c), C] },
    { scriptSig: pushData(legacy(2, pkScript, a)) },
    { scriptSig: scriptOf(EMPTY, legacy(3, bareMultisig, a)) },
    { witness: [v0(4, pkScript, a), pkScript] },
    { witness: [EMPTY, v0(5, andScript, a), andScript] },
    { witness: [EMPTY, v0(6, threshScript, a), threshScript] },
    { witness: [v0(7, olderScript, a), olderScript] },
  ];
  const byB = [
    { scriptSig: pushNested, witness: [EMPTY, v0(0, multisig, b), multisig] },
    { scriptSig: pushData(nestedKeyhash) },
    {},
    { scriptSig: scriptOf(EMPTY, legacy(3, bareMultisig, b)) },
    { witness: [EMPTY, pkScript] },
    { witness: [v0(5, andScript, b), EMPTY, andScript] },
    { witness: [v0(6, threshScript, b), EMPTY, threshScript] },
    { witness: [v0(7, olderScript, b), EMPTY, olderScript] },
  ];
  return { byA: build(byA), byB: build(byB), bare: build([]), shorter: build(byB, 1) };
}

test(
  'verifymessage, signmessagewithprivkey, gettxspendingprevout and combinerawtransaction answer byte for byte as bitcoind v31',
  { skip: 'path' in reference ? false : reference.missing, timeout: 600_000 },
  async () => {
    await withBareNodes((reference as { path: string }).path, async (send, each) => {
      const wallet = new TestWallet(77);
      await mineToBoth(each, wallet, 110);
      const [coinA, coinB] = wallet.spendable(111);
      const multisig = Uint8Array.of(OP.OP_2, ...pushData(PUBKEYS[0]!), ...pushData(PUBKEYS[1]!), OP.OP_2, OP.OP_CHECKMULTISIG);
      const funding = wallet.spend(
        [coinA!],
        [
          { value: 10_000_000n, to: payToWitnessScriptHashOf(multisig) },
          { value: 10_000_000n, to: payToScriptHashOf(multisig) },
          { value: 10_000_000n, to: payToPubkeyHashScript(hash160(PUBKEYS[2]!)) },
          { value: 10_000_000n, to: 'p2tr-key' },
          { value: coinA!.value - 40_010_000n, to: 'p2wpkh' },
        ],
      );
      await sendToBoth(each, funding);
      const spentCoinbase = toHex(Uint8Array.from(coinA!.outpoint.txid).reverse());
      const taprootSpend = wallet.spend([wallet.spendable(111).find((c) => c.outpoint.txid === funding.txid && c.outpoint.vout === 3)!], [{ value: 9_990_000n, to: 'p2wpkh' }]);
      await sendToBoth(each, taprootSpend);

      // Spends of the multisig and P2PKH outputs, one variant per signer.
      const outs: TxOut[] = [{ value: 29_000_000n, scriptPubKey: payToPubkeyHashScript(hash160(PUBKEYS[0]!)) }];
      const inputs = [0, 1, 2].map((vout): TxIn => ({ prevout: { txid: funding.txid, vout }, scriptSig: EMPTY, sequence: 0xfffffffd, witness: [] }));
      const unsigned = new Transaction({ version: 2, inputs, outputs: outs, locktime: 0 });
      const wsig = (secret: Uint8Array) => derSig(witnessV0SignatureHash(multisig, unsigned, 0, SIGHASH_ALL, 10_000_000n), secret);
      const lsig = (secret: Uint8Array) => derSig(legacySignatureHash(multisig, unsigned, 1, SIGHASH_ALL), secret);
      const pkhSig = derSig(legacySignatureHash(payToPubkeyHashScript(hash160(PUBKEYS[2]!)), unsigned, 2, SIGHASH_ALL), SECRETS[2]!);
      const variant = (w: Uint8Array[], scriptSig1: Uint8Array, scriptSig2: Uint8Array) =>
        toHex(
          new Transaction({
            version: 2,
            inputs: [
              { ...inputs[0]!, witness: w },
              { ...inputs[1]!, scriptSig: scriptSig1 },
              { ...inputs[2]!, scriptSig: scriptSig2 },
            ],
            outputs: outs,
            locktime: 0,
          }).toBytes(),
        );
      const [s0, s1] = [SECRETS[0]!, SECRETS[1]!];
      const signedByA = variant([EMPTY, wsig(s0), EMPTY, multisig], scriptOf(EMPTY, lsig(s0), EMPTY, multisig), scriptOf(pkhSig, PUBKEYS[2]!));
      const signedByB = variant([EMPTY, EMPTY, wsig(s1), multisig], scriptOf(EMPTY, EMPTY, lsig(s1), multisig), EMPTY);
      const onlyB = variant([EMPTY, wsig(s1), multisig], scriptOf(EMPTY, lsig(s1), multisig), scriptOf(Uint8Array.of(1, 2, 3)));
      const swapped = variant([EMPTY, wsig(s1), wsig(s0), multisig], scriptOf(EMPTY, lsig(s1), lsig(s0), multisig), EMPTY);
      const bare = toHex(unsigned.toBytes());
      const taprootHex = toHex(taprootSpend.toBytes());
      const taprootBare = toHex(new Transaction({ ...taprootSpend, inputs: taprootSpend.inputs.map((i) => ({ ...i, witness: [] })) }).toBytes());
      const missing = toHex(new Transaction({ version: 2, inputs: [{ ...inputs[0]!, prevout: { txid: new Uint8Array(32).fill(7), vout: 0 } }], outputs: outs, locktime: 0 }).toBytes());
      const txidOf = (tx: Transaction) => tx.txidHex;
      const more = await otherScriptVariants(each, wallet, coinB!, multisig);

      const REQUESTS: DiffRequest[] = [
        ...messageRequests(),
        ...(await verifyRequests(each)),
        call('help', ['gettxspendingprevout']),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: coinA!.outpoint.vout }]]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: coinA!.outpoint.vout }], { return_spending_tx: true }]),
        call('gettxspendingprevout', [[{ txid: txidOf(funding), vout: 3 }, { txid: txidOf(funding), vout: 0 }, { txid: txidOf(funding), vout: 9 }], { return_spending_tx: true, mempool_only: true }]),
        call('gettxspendingprevout', [[{ txid: txidOf(funding), vout: 3 }], { mempool_only: false }]),
        call('gettxspendingprevout', [[{ txid: txidOf(funding), vout: 3 }, { txid: txidOf(funding), vout: 1 }, { txid: txidOf(funding), vout: 0 }], { mempool_only: false }]),
        call('gettxspendingprevout', [[{ txid: txidOf(funding).toUpperCase(), vout: 3 }]]),
        call('gettxspendingprevout', [[{ vout: 3, txid: txidOf(funding) }, { vout: 2, txid: txidOf(funding).toUpperCase() }], { return_spending_tx: true }]),
        call('gettxspendingprevout', [[{ vout: 2, txid: txidOf(funding).toUpperCase() }], { mempool_only: false }]),
        call('gettxspendingprevout', { outputs: [{ txid: txidOf(funding), vout: 3 }], return_spending_tx: true }),
        call('gettxspendingprevout', { outputs: [{ txid: txidOf(funding), vout: 3 }], mempool_only: false }),
        call('gettxspendingprevout', { outputs: [{ txid: txidOf(funding), vout: 3 }], options: { return_spending_tx: true } }),
        call('gettxspendingprevout', [[]]),
        call('gettxspendingprevout', [[], { foo: 1 }]),
        call('gettxspendingprevout', [[{ txid: '00', vout: 0 }]]),
        call('gettxspendingprevout', [[{ txid: 'zz'.repeat(32), vout: 0 }]]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: -1 }]]),
        body('gettxspendingprevout vout -0', `{"id":1,"method":"gettxspendingprevout","params":[[{"txid":"${spentCoinbase}","vout":-0}]]}`),
        call('gettxspendingprevout', [[{ txid: spentCoinbase }]]),
        call('gettxspendingprevout', [[{ vout: 0 }]]),
        call('gettxspendingprevout', [[{ txid: null, vout: 0 }]]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: 0, x: 1 }]]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: '0' }]]),
        call('gettxspendingprevout', [[{ txid: 5, vout: 0 }]]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: 0.5 }]]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: 2147483648 }]]),
        call('gettxspendingprevout', [[5]]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: 0 }, 'x']]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: 0 }], { foo: true }]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: 0 }], { mempool_only: 1 }]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: 0 }], { mempool_only: null }]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: 0 }], { return_spending_tx: 'yes' }]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: 0 }], []]),
        call('gettxspendingprevout', [[{ txid: spentCoinbase, vout: 0 }], null]),
        call('gettxspendingprevout', [{}]),
        call('gettxspendingprevout', []),
        call('gettxspendingprevout', { outputs: [{ txid: spentCoinbase, vout: 0 }], bogus: 1 }),
        call('help', ['combinerawtransaction']),
        call('combinerawtransaction', [[signedByA, signedByB]]),
        call('combinerawtransaction', [[signedByB, signedByA]]),
        call('combinerawtransaction', [[bare, signedByA]]),
        call('combinerawtransaction', [[signedByA]]),
        call('combinerawtransaction', [[bare]]),
        call('combinerawtransaction', [[onlyB, signedByA]]),
        call('combinerawtransaction', [[swapped]]),
        call('combinerawtransaction', [[swapped, signedByA, signedByB]]),
        call('combinerawtransaction', [[bare, bare, onlyB]]),
        call('combinerawtransaction', [[taprootHex]]),
        call('combinerawtransaction', [[taprootBare, taprootHex]]),
        call('combinerawtransaction', { txs: [signedByB, signedByA] }),
        call('combinerawtransaction', [[more.byA, more.byB]]),
        call('combinerawtransaction', [[more.byB, more.byA]]),
        call('combinerawtransaction', [[more.bare, more.byB]]),
        call('combinerawtransaction', [[more.byB]]),
        call('combinerawtransaction', [[more.bare]]),
        call('combinerawtransaction', [[more.byA, more.shorter]]),
        call('combinerawtransaction', [[more.shorter, more.byA, more.byB]]),
        call('combinerawtransaction', [[missing]]),
        call('combinerawtransaction', [[signedByA, missing]]),
        call('combinerawtransaction', [[]]),
        call('combinerawtransaction', [['zz']]),
        call('combinerawtransaction', [[signedByA, '00']]),
        call('combinerawtransaction', [[signedByA, 5]]),
        call('combinerawtransaction', [signedByA]),
        call('combinerawtransaction', []),
      ];
      const different: string[] = [];
      for (const request of REQUESTS) {
        const [a, b] = await send(request);
        if (a.status !== b.status || !a.body.equals(b.body)) different.push(`${request.label.slice(0, 300)}\n  tsbtcd:   ${a.status} ${a.body}\n  bitcoind: ${b.status} ${b.body}`);
      }
      assert.deepEqual(different, [], `${different.length} of ${REQUESTS.length} differ:\n${different.join('\n')}`);
    });
  },
);
