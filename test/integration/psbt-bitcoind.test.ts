/**
 * The PSBT RPC family sent to tsbtcd and to the reference bitcoind on one regtest chain
 * (bitcoind mines, tsbtcd takes the blocks): createpsbt/converttopsbt, utxoupdatepsbt with
 * and without descriptors, descriptorprocesspsbt (sighash types, bip32derivs, finalize),
 * combinepsbt, analyzepsbt and decodepsbt at each stage, finalizepsbt, joinpsbts (compared
 * decoded with inputs and outputs sorted: Core shuffles them), every refusal, and PSBTs
 * built field by field (valid and malformed, as BIP174/BIP371 test vectors are) — every
 * answer must be bitcoind's byte for byte.
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { test } from 'node:test';
import * as noble from '@noble/secp256k1';
import { referenceBitcoind } from '../../native-bench/reference-bitcoind.js';
import { ByteWriter, hash160, sha256, toHex, Transaction, type TxIn, type TxOut } from '../../src/primitives/index.js';
import { decodeBase64Psbt, emptyInput, encodePsbt, psbtFromTransaction, serializePsbt, type Psbt } from '../../src/psbt/index.js';
import {
  decodeBase58Check,
  encodeAddress,
  encodeBase64,
  encodeExtPrivKey,
  encodeExtPubKey,
  encodeSecret,
  extKeyFromSeed,
  neuterExtKey,
  OP,
  parseDescriptor,
  payToPubkeyHashScript,
  payToScriptHashOf,
  payToWitnessScriptHashOf,
  pushData,
} from '../../src/script/index.js';
import { rpcCall as call, withBareNodes, type Answer } from '../differential/compare-nodes.js';
import type { DiffRequest } from '../differential/request-catalogue.js';
import { secretFromSeed } from '../support/spends.js';
import { readVectorJson } from '../support/vectors.js';
import { TestWallet } from '../support/wallet.js';
import { mineToBoth, resultOf, sendToBoth } from './bare-node-chain.js';

const reference = referenceBitcoind();

const SECRETS = [1, 2, 3].map((seed) => secretFromSeed(9300 + seed));
const [A, B, C] = SECRETS.map((s) => noble.getPublicKey(s, true)) as [Uint8Array, Uint8Array, Uint8Array];
/** A key whose private key no descriptor holds: the script path's internal key. */
const D = noble.getPublicKey(secretFromSeed(9304), true);
const [WIF_A, WIF_B, WIF_C] = SECRETS.map((s) => encodeSecret(s, true, 'regtest')) as [string, string, string];
const VALUE = 10_000_000n;

const multisig = (m: number, keys: Uint8Array[]) => Uint8Array.of(OP.OP_1 + m - 1, ...keys.flatMap((k) => [...pushData(k)]), OP.OP_1 + keys.length - 1, OP.OP_CHECKMULTISIG);
const wpkh = (key: Uint8Array) => Uint8Array.of(OP.OP_0, 20, ...hash160(key));
const hexKeys = (keys: Uint8Array[]) => keys.map(toHex).join(',');

interface Funded {
  readonly name: string;
  readonly scriptPubKey: Uint8Array;
  /** A descriptor with the private keys that solve it (an object when ranged). */
  readonly desc: string | { desc: string; range: number[] };
  /** The same descriptor with public keys only. */
  readonly pubDesc: string | { desc: string; range: number[] };
}

/** A hash lock's secret. */
const PREIMAGE = new Uint8Array(32).fill(0x42);
const ROOT = extKeyFromSeed(new Uint8Array(32).fill(0x5e))!;
const TPRV = encodeExtPrivKey(ROOT, 'regtest');
const TPUB = encodeExtPubKey(neuterExtKey(ROOT), 'regtest');
const xonly = (key: Uint8Array) => toHex(key.subarray(1));

/** The scriptPubKey a descriptor has at `pos`, as tsbtcd's descriptor code expands it. */
function scriptOf(desc: string, pos = 0): Uint8Array {
  const parsed = parseDescriptor(desc, 'regtest');
  return parsed.descriptors[0]!.expand(pos, parsed.keys)![0]!;
}

/** Descriptor-made outputs: taproot key and script paths, BIP32 keys with origins. */
function descriptorOutputs(): Funded[] {
  const ranged = (desc: string, pub: string) => ({ desc: { desc, range: [0, 3] }, pubDesc: { desc: pub, range: [0, 3] } });
  const trLeaves = (a: string, b: string, c: string) => `{pk(${a}),multi_a(2,${b},${c})}`;
  return [
    { name: 'tr key path', scriptPubKey: scriptOf(`tr(${WIF_A})`), desc: `tr(${WIF_A})`, pubDesc: `tr(${xonly(A)})` },
    { name: 'musig tr', scriptPubKey: scriptOf(`tr(musig(${toHex(A)},${toHex(C)}))`), desc: `tr(musig(${toHex(A)},${toHex(C)}))`, pubDesc: `tr(musig(${toHex(A)},${toHex(C)}))` },
    {
      name: 'musig tr leaves',
      scriptPubKey: scriptOf(`tr(${xonly(D)},{pk(musig([01020304/1h]${TPUB}/3,${TPUB}/4)/7),pk(${xonly(A)})})`),
      desc: `tr(${xonly(D)},{pk(musig([01020304/1h]${TPUB}/3,${TPUB}/4)/7),pk(${xonly(A)})})`,
      pubDesc: `tr(${xonly(D)},{pk(musig([01020304/1h]${TPUB}/3,${TPUB}/4)/7),pk(${xonly(A)})})`,
    },
    { name: 'rawtr', scriptPubKey: scriptOf(`rawtr(${WIF_B})`), desc: `rawtr(${WIF_B})`, pubDesc: `rawtr(${xonly(B)})` },
    { name: 'rawtr bip32', scriptPubKey: scriptOf(`rawtr([aabbccdd/86h]${TPRV}/9)`), desc: `rawtr([aabbccdd/86h]${TPRV}/9)`, pubDesc: `rawtr([aabbccdd/86h]${TPUB}/9)` },
    {
      name: 'tr key path with leaves',
      scriptPubKey: scriptOf(`tr(${WIF_C},${trLeaves(WIF_A, WIF_A, WIF_B)})`),
      desc: `tr(${WIF_C},${trLeaves(WIF_A, WIF_A, WIF_B)})`,
      pubDesc: `tr(${xonly(C)},${trLeaves(xonly(A), xonly(A), xonly(B))})`,
    },
    {
      name: 'tr script path',
      scriptPubKey: scriptOf(`tr(${xonly(D)},${trLeaves(WIF_B, WIF_A, WIF_B)})`),
      desc: `tr(${xonly(D)},${trLeaves(WIF_B, WIF_A, WIF_B)})`,
      pubDesc: `tr(${xonly(D)},${trLeaves(xonly(B), xonly(A), xonly(B))})`,
    },
    { name: 'bip32 wpkh', scriptPubKey: scriptOf(`wpkh(${TPRV}/0/*)`, 1), ...ranged(`wpkh(${TPRV}/0/*)`, `wpkh(${TPUB}/0/*)`) },
    { name: 'bip32 tr', scriptPubKey: scriptOf(`tr(${TPRV}/1/*)`, 2), ...ranged(`tr(${TPRV}/1/*)`, `tr(${TPUB}/1/*)`) },
    { name: 'origin pkh', scriptPubKey: payToPubkeyHashScript(hash160(B)), desc: `pkh([deadbeef/1h/2]${WIF_B})`, pubDesc: `pkh([deadbeef/1h/2]${toHex(B)})` },
    {
      name: 'miniscript wsh',
      scriptPubKey: scriptOf(`wsh(and_v(v:pk(${WIF_A}),or_d(pk(${WIF_B}),older(12))))`),
      desc: `wsh(and_v(v:pk(${WIF_A}),or_d(pk(${WIF_B}),older(12))))`,
      pubDesc: `wsh(and_v(v:pk(${toHex(A)}),or_d(pk(${toHex(B)}),older(12))))`,
    },
    { name: 'combo sh-wpkh', scriptPubKey: payToScriptHashOf(wpkh(C)), desc: `combo(${WIF_C})`, pubDesc: `combo(${toHex(C)})` },
    {
      name: 'multipath wpkh',
      scriptPubKey: scriptOf(`wpkh(${TPRV}/<5;6>/*)`, 1),
      ...ranged(`wpkh(${TPRV}/<5;6>/*)`, `wpkh(${TPUB}/<5;6>/*)`),
    },
    {
      name: 'hashlock wsh',
      scriptPubKey: scriptOf(`wsh(and_v(v:pk(${WIF_A}),sha256(${toHex(sha256(PREIMAGE))})))`),
      desc: `wsh(and_v(v:pk(${WIF_A}),sha256(${toHex(sha256(PREIMAGE))})))`,
      pubDesc: `wsh(and_v(v:pk(${toHex(A)}),sha256(${toHex(sha256(PREIMAGE))})))`,
    },
    {
      name: 'hashlock tr',
      scriptPubKey: scriptOf(`tr(${xonly(D)},and_v(v:pk(${WIF_B}),hash160(${toHex(hash160(PREIMAGE))})))`),
      desc: `tr(${xonly(D)},and_v(v:pk(${WIF_B}),hash160(${toHex(hash160(PREIMAGE))})))`,
      pubDesc: `tr(${xonly(D)},and_v(v:pk(${xonly(B)}),hash160(${toHex(hash160(PREIMAGE))})))`,
    },
    {
      name: 'bip32 sh-wsh multisig',
      scriptPubKey: scriptOf(`sh(wsh(multi(1,[01020304/48h]${TPRV}/2/*,${WIF_C})))`, 0),
      ...ranged(`sh(wsh(multi(1,[01020304/48h]${TPRV}/2/*,${WIF_C})))`, `sh(wsh(multi(1,[01020304/48h]${TPUB}/2/*,${toHex(C)})))`),
    },
  ];
}

function fundedOutputs(): Funded[] {
  const ms22 = multisig(2, [A, B]);
  const ms23 = multisig(2, [A, B, C]);
  return [
    { name: 'p2pkh', scriptPubKey: payToPubkeyHashScript(hash160(A)), desc: `pkh(${WIF_A})`, pubDesc: `pkh(${toHex(A)})` },
    { name: 'p2wpkh', scriptPubKey: wpkh(A), desc: `wpkh(${WIF_A})`, pubDesc: `wpkh(${toHex(A)})` },
    { name: 'p2sh-p2wpkh', scriptPubKey: payToScriptHashOf(wpkh(B)), desc: `sh(wpkh(${WIF_B}))`, pubDesc: `sh(wpkh(${toHex(B)}))` },
    { name: 'p2sh multisig', scriptPubKey: payToScriptHashOf(ms23), desc: `sh(multi(2,${WIF_A},${WIF_B},${WIF_C}))`, pubDesc: `sh(multi(2,${hexKeys([A, B, C])}))` },
    { name: 'p2wsh multisig', scriptPubKey: payToWitnessScriptHashOf(ms22), desc: `wsh(multi(2,${WIF_A},${WIF_B}))`, pubDesc: `wsh(multi(2,${hexKeys([A, B])}))` },
    {
      name: 'p2sh-p2wsh multisig',
      scriptPubKey: payToScriptHashOf(payToWitnessScriptHashOf(ms23)),
      desc: `sh(wsh(multi(2,${WIF_A},${WIF_B},${WIF_C})))`,
      pubDesc: `sh(wsh(multi(2,${hexKeys([A, B, C])})))`,
    },
  ];
}

/** A PSBT key-value pair: compact-size key, compact-size value. */
const pair = (key: Uint8Array, value: Uint8Array) => new ByteWriter(64).varBytes(key).varBytes(value).finish();
const cat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const b64 = (bytes: Uint8Array) => encodeBase64(bytes);

/** Malformed and unusual PSBTs built around one unsigned transaction, one field at a time. */
function handBuiltPsbts(tx: Transaction, spent: TxOut): string[] {
  const magic = Uint8Array.of(0x70, 0x73, 0x62, 0x74, 0xff);
  const unsignedTx = pair(Uint8Array.of(0), tx.toBytesNoWitness());
  const sep = Uint8Array.of(0);
  const outputsEmpty = cat(...tx.outputs.map(() => sep));
  const globalThen = (...fields: Uint8Array[]) => cat(magic, unsignedTx, ...fields, sep);
  const withInput = (...fields: Uint8Array[]) => b64(cat(globalThen(), ...fields, sep, outputsEmpty));
  const withOutput = (...fields: Uint8Array[]) => b64(cat(globalThen(), sep, ...fields, sep, ...tx.outputs.slice(1).map(() => sep)));
  const witnessUtxo = new ByteWriter(64).i64(spent.value).varBytes(spent.scriptPubKey).finish();
  const sig = Uint8Array.of(0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x01, 0x01);
  const x = A.subarray(1);
  const leaf = new Uint8Array(32).fill(7);
  const fp = Uint8Array.of(1, 2, 3, 4);
  const path = new ByteWriter(16).bytes(fp).u32(0x80000000).u32(1).finish();
  const u32 = (n: number) => new ByteWriter(4).u32(n).finish();
  const xpub = decodeBase58Check(TPUB, 78)!;
  const xpub2 = decodeBase58Check(encodeExtPubKey(neuterExtKey(extKeyFromSeed(new Uint8Array(32).fill(0x61))!), 'regtest'), 78)!;
  const t = (type: number, ...rest: Uint8Array[]) => cat(Uint8Array.of(type), ...rest);
  const out: string[] = [
    b64(magic),
    b64(cat(magic, sep)),
    b64(globalThen()),
    b64(cat(globalThen(), sep)),
    b64(cat(globalThen(), sep, outputsEmpty, Uint8Array.of(0))),
    b64(cat(magic, unsignedTx, unsignedTx, sep)),
    b64(cat(magic, pair(Uint8Array.of(0, 1), tx.toBytesNoWitness()), sep)),
    b64(cat(magic, pair(Uint8Array.of(0), cat(tx.toBytesNoWitness(), Uint8Array.of(0))), sep)),
    b64(globalThen(pair(Uint8Array.of(0xfb), u32(0)))),
    b64(globalThen(pair(Uint8Array.of(0xfb), u32(2)))),
    b64(globalThen(pair(Uint8Array.of(0xfb), u32(0)), pair(Uint8Array.of(0xfb), u32(0)))),
    b64(globalThen(pair(Uint8Array.of(0x70, 1), Uint8Array.of(5)))),
    b64(globalThen(pair(Uint8Array.of(0x70, 1), Uint8Array.of(5)), pair(Uint8Array.of(0x70, 1), Uint8Array.of(5)))),
    b64(globalThen(pair(cat(Uint8Array.of(0xfc, 3), Uint8Array.of(0x61, 0x62, 0x63), Uint8Array.of(9, 0xaa)), Uint8Array.of(1, 2)))),
    b64(globalThen(pair(Uint8Array.of(0x01, 1, 2), path))),
    b64(globalThen(pair(cat(Uint8Array.of(0x01), xpub), path))),
    b64(globalThen(pair(cat(Uint8Array.of(0x01), xpub), path), pair(cat(Uint8Array.of(0x01), xpub), fp))),
    b64(globalThen(pair(cat(Uint8Array.of(0x01), xpub2), path), pair(cat(Uint8Array.of(0x01), xpub), fp))),
    b64(globalThen(pair(cat(Uint8Array.of(0x01), xpub), Uint8Array.of(1, 2, 3)))),
    b64(globalThen(pair(cat(Uint8Array.of(0xfc, 1, 0x41), Uint8Array.of(0xfe, 0xff, 0xff, 0xff, 0x00)), Uint8Array.of(1)))),
    b64(globalThen(pair(cat(Uint8Array.of(0xfc, 1, 0x41), Uint8Array.of(0xfd, 0x01)), Uint8Array.of(1)))),
    b64(cat(magic, Uint8Array.of(0xfd, 1, 0))),
    b64(cat(magic, Uint8Array.of(0xfe, 0xff, 0xff, 0xff, 0x7f))),
    withInput(pair(t(1), witnessUtxo)),
    withInput(pair(t(1), witnessUtxo), pair(t(1), witnessUtxo)),
    withInput(pair(t(1, Uint8Array.of(0)), witnessUtxo)),
    withInput(pair(t(1), cat(witnessUtxo, Uint8Array.of(0)))),
    withInput(pair(t(2, A), cat(sig))),
    withInput(pair(t(2, A), Uint8Array.of(1, 2, 3))),
    withInput(pair(t(2, A), sig), pair(t(2, A), sig)),
    withInput(pair(t(2, A.subarray(1)), sig)),
    withInput(pair(t(2, Uint8Array.of(2), new Uint8Array(32).fill(0xff)), sig)),
    withInput(pair(t(3), u32(0x83))),
    withInput(pair(t(3), u32(7))),
    withInput(pair(t(3), Uint8Array.of(1))),
    withInput(pair(t(4), multisig(1, [A]))),
    withInput(pair(t(5), multisig(1, [A])), pair(t(5), multisig(1, [B]))),
    withInput(pair(t(6, A), path)),
    withInput(pair(t(6, A), Uint8Array.of(1, 2, 3))),
    withInput(pair(t(6, A), new Uint8Array(0))),
    withInput(pair(t(7), Uint8Array.of(0x51))),
    withInput(pair(t(8), cat(Uint8Array.of(2, 1, 0x51, 0)))),
    withInput(pair(t(7), Uint8Array.of(0x51)), pair(t(1), witnessUtxo)),
    withInput(pair(t(0x0a, new Uint8Array(20)), Uint8Array.of(1))),
    withInput(pair(t(0x0b, new Uint8Array(32)), Uint8Array.of(1))),
    withInput(pair(t(0x0c, new Uint8Array(20)), Uint8Array.of(1))),
    withInput(pair(t(0x0d, new Uint8Array(32)), Uint8Array.of(1))),
    withInput(pair(t(0x0b, new Uint8Array(31)), Uint8Array.of(1))),
    withInput(pair(t(0x13), new Uint8Array(64).fill(1))),
    withInput(pair(t(0x13), new Uint8Array(65).fill(1))),
    withInput(pair(t(0x13), new Uint8Array(63).fill(1))),
    withInput(pair(t(0x13), new Uint8Array(66).fill(1))),
    withInput(pair(t(0x14, x, leaf), new Uint8Array(64).fill(2))),
    withInput(pair(t(0x14, x), new Uint8Array(64).fill(2))),
    withInput(pair(t(0x14, x, leaf), new Uint8Array(10))),
    withInput(pair(t(0x15, Uint8Array.of(0xc0), x), cat(Uint8Array.of(0x51), Uint8Array.of(0xc0)))),
    withInput(pair(t(0x15, Uint8Array.of(0xc0), x, leaf), cat(Uint8Array.of(0x51), Uint8Array.of(0xc0))), pair(t(0x15, Uint8Array.of(0xc0), x), cat(Uint8Array.of(0x51), Uint8Array.of(0xc0)))),
    withInput(pair(t(0x15, Uint8Array.of(0xc0), x, Uint8Array.of(1)), Uint8Array.of(0x51, 0xc0))),
    withInput(pair(t(0x15, Uint8Array.of(0xc0), x), new Uint8Array(0))),
    withInput(pair(t(0x16, x), cat(Uint8Array.of(1), leaf, path))),
    withInput(pair(t(0x16, x), cat(Uint8Array.of(0), path))),
    withInput(pair(t(0x16, x), cat(Uint8Array.of(2), leaf))),
    withInput(pair(t(0x16, A), cat(Uint8Array.of(0), path))),
    withInput(pair(t(0x17), x)),
    withInput(pair(t(0x17), A)),
    withInput(pair(t(0x17), new Uint8Array(32))),
    withInput(pair(t(0x18), leaf)),
    withInput(pair(t(0x1a, A), cat(B, C))),
    withInput(pair(t(0x1a, A), cat(B, C.subarray(1)))),
    withInput(pair(t(0x1a, x), B)),
    withInput(pair(t(0x1b, B, A), new Uint8Array(66).fill(3))),
    withInput(pair(t(0x1b, B, A, leaf), new Uint8Array(66).fill(3))),
    withInput(pair(t(0x1b, B, A), new Uint8Array(65))),
    withInput(pair(t(0x1c, C, A), new Uint8Array(32).fill(4))),
    withInput(pair(t(0x1c, C, A, leaf), new Uint8Array(31).fill(4))),
    withInput(pair(t(0x1c, C, A.subarray(1)), new Uint8Array(32))),
    withInput(pair(cat(Uint8Array.of(0xfc, 1, 0x41, 5)), Uint8Array.of(1))),
    withInput(pair(Uint8Array.of(0x99, 1), Uint8Array.of(1)), pair(Uint8Array.of(0x42), new Uint8Array(0))),
    withInput(pair(t(0x0e), new Uint8Array(32))),
    withOutput(pair(t(0), multisig(1, [A]))),
    withOutput(pair(t(1), multisig(1, [A])), pair(t(2, B), path)),
    withOutput(pair(t(0, Uint8Array.of(1)), multisig(1, [A]))),
    withOutput(pair(t(5), x)),
    withOutput(pair(t(6), cat(Uint8Array.of(1, 0xc0, 1, 0x51, 1, 0xc0, 1, 0x52)))),
    withOutput(pair(t(6), cat(Uint8Array.of(0, 0xc0, 1, 0x51)))),
    withOutput(pair(t(6), cat(Uint8Array.of(1, 0xc0, 1, 0x51)))),
    withOutput(pair(t(6), cat(Uint8Array.of(0, 0xc1, 1, 0x51)))),
    withOutput(pair(t(6), cat(Uint8Array.of(200, 0xc0, 1, 0x51)))),
    withOutput(pair(t(6), new Uint8Array(0))),
    withOutput(pair(t(7, x), cat(Uint8Array.of(0), path))),
    withOutput(pair(t(8, A), cat(B, C))),
    withOutput(pair(Uint8Array.of(0x33), Uint8Array.of(1))),
    withOutput(pair(cat(Uint8Array.of(0xfc, 2, 0x41, 0x42, 7)), Uint8Array.of(9))),
  ];
  return out;
}

/**
 * Core's CHECK_NONFATAL reports name Core's source line and issue tracker; tsbtcd's name its
 * own (as echo's internal bug does): the same code and the same first line is the same answer.
 */
function sameInternalBug(a: Answer, b: Answer): boolean {
  const [ra, rb] = [a, b].map((x) => JSON.parse(x.body.toString('utf8')) as { error: { code: number; message: string } | null });
  if (!ra!.error || !rb!.error || !rb!.error.message.startsWith('Internal bug detected: ')) return false;
  return a.status === b.status && ra!.error.code === rb!.error.code && ra!.error.message.split('\n')[0] === rb!.error.message.split('\n')[0];
}

/** decodepsbt's answer with inputs and outputs sorted, for joinpsbts (Core shuffles them). */
function sortedDecode(answer: Answer): string {
  const reply = JSON.parse(answer.body.toString('utf8')) as { result: any; error: unknown };
  if (!reply.result) return answer.body.toString('utf8');
  const r = reply.result;
  const ins = r.tx.vin.map((v: unknown, i: number) => JSON.stringify([v, r.inputs[i]])).sort();
  const outs = r.tx.vout.map((v: any, i: number) => JSON.stringify([{ ...v, n: 0 }, r.outputs[i]])).sort();
  return JSON.stringify({ ...r, tx: { ...r.tx, txid: '', hash: '', vin: [], vout: [] }, inputs: ins, outputs: outs });
}

test('the PSBT RPCs answer byte for byte as bitcoind v31', { skip: 'path' in reference ? false : reference.missing, timeout: 900_000 }, async () => {
  await withBareNodes((reference as { path: string }).path, async (send, each) => {
    const wallet = new TestWallet(93);
    await mineToBoth(each, wallet, 110);
    const [coin, other] = wallet.spendable(111);
    const funded = [...fundedOutputs(), ...descriptorOutputs()];
    const funding = wallet.spend([coin!], [...funded.map((f) => ({ value: VALUE, to: f.scriptPubKey })), { value: coin!.value - VALUE * BigInt(funded.length) - 20_000n, to: 'p2wpkh' as const }]);
    await sendToBoth(each, funding);
    await mineToBoth(each, wallet, 1);
    const pooled = wallet.spend([other!], [{ value: VALUE, to: wpkh(A) }, { value: VALUE, to: scriptOf(`tr(${WIF_A})`) }, { value: other!.value - 2n * VALUE - 10_000n, to: 'p2wpkh' }]);
    await sendToBoth(each, pooled);

    const txid = funding.txidHex;
    const requests: DiffRequest[] = [];
    const both = async (method: string, params: unknown[]) => {
      const request = call(method, params);
      requests.push(request);
      return resultOf<any>(await each.bitcoind(request));
    };
    for (const method of ['createpsbt', 'decodepsbt', 'converttopsbt', 'combinepsbt', 'finalizepsbt', 'joinpsbts', 'analyzepsbt', 'utxoupdatepsbt', 'descriptorprocesspsbt']) {
      requests.push(call('help', [method]));
    }

    const inputs = funded.map((_, vout) => ({ txid, vout }));
    // Outputs the descriptors know too, so the updaters fill their scripts, trees and key origins.
    const ownAddress = (name: string) => encodeAddress(funded.find((f) => f.name === name)!.scriptPubKey, 'regtest')!;
    const outputs = [
      { bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080: 0.3 },
      { data: '00ff' },
      { [ownAddress('p2sh-p2wsh multisig')]: 0.01 },
      { [ownAddress('tr key path with leaves')]: 0.01 },
      { [ownAddress('bip32 tr')]: 0.01 },
      { [ownAddress('bip32 sh-wsh multisig')]: 0.01 },
      { [ownAddress('origin pkh')]: 0.01 },
    ];
    const created = await both('createpsbt', [[...inputs, { txid: pooled.txidHex, vout: 0 }], outputs]);
    for (const stage of [created]) {
      await both('decodepsbt', [stage]);
      await both('analyzepsbt', [stage]);
    }
    const updated = await both('utxoupdatepsbt', [created]);
    await both('decodepsbt', [updated]);
    await both('analyzepsbt', [updated]);
    const described = await both('utxoupdatepsbt', [created, funded.map((f) => f.pubDesc)]);
    await both('decodepsbt', [described]);
    await both('analyzepsbt', [described]);
    await both('finalizepsbt', [described]);

    // Each signer alone, then combined, finalized and extracted.
    const only = (keep: string) => funded.flatMap((f) => (typeof f.desc === 'string' && !f.desc.startsWith('tr(') ? [f.desc.replaceAll(keep === 'A' ? WIF_B : WIF_A, toHex(keep === 'A' ? B : A)).replaceAll(WIF_C, toHex(C))] : []));
    const byA = (await both('descriptorprocesspsbt', [described, only('A'), null, true, false])).psbt;
    const byB = (await both('descriptorprocesspsbt', [described, only('B'), null, false, false])).psbt;
    for (const stage of [byA, byB]) {
      await both('decodepsbt', [stage]);
      await both('analyzepsbt', [stage]);
      await both('finalizepsbt', [stage, false]);
    }
    const combined = await both('combinepsbt', [[byA, byB]]);
    await both('decodepsbt', [combined]);
    await both('analyzepsbt', [combined]);
    const finalized = await both('finalizepsbt', [combined, false]);
    await both('decodepsbt', [finalized.psbt]);
    await both('analyzepsbt', [finalized.psbt]);
    await both('finalizepsbt', [combined]);
    await both('combinepsbt', [[byA, byB, created]]);

    // descriptorprocesspsbt over every option.
    for (const sighash of [null, 'DEFAULT', 'ALL', 'NONE', 'SINGLE', 'ALL|ANYONECANPAY', 'NONE|ANYONECANPAY', 'SINGLE|ANYONECANPAY', 'bogus']) {
      for (const finalize of [true, false]) {
        const answer = await each.bitcoind(call('descriptorprocesspsbt', [created, funded.map((f) => f.desc), sighash, true, finalize]));
        requests.push(call('descriptorprocesspsbt', [created, funded.map((f) => f.desc), sighash, true, finalize]));
        const reply = JSON.parse(answer.body.toString('utf8')) as { result?: { psbt: string } };
        if (reply.result) {
          await both('decodepsbt', [reply.result.psbt]);
          await both('analyzepsbt', [reply.result.psbt]);
          await both('finalizepsbt', [reply.result.psbt]);
        }
      }
    }
    // Taproot signing needs every spent output: segwit inputs only, and legacy ones with their previous transaction.
    const legacy = new Set(['p2pkh', 'p2sh multisig', 'origin pkh']);
    const hashlocks = new Set(['hashlock wsh', 'hashlock tr']);
    const musig = new Set(['musig tr', 'musig tr leaves']);
    const segwitOnly = await both('createpsbt', [inputs.filter((_, i) => !legacy.has(funded[i]!.name) && !hashlocks.has(funded[i]!.name) && !musig.has(funded[i]!.name)), outputs]);
    // MuSig2 outputs without participant keys: the participants and their origins are recorded, nothing is signed
    // (with a participant's key Core makes a pubnonce from fresh randomness, which no second node can repeat).
    const musigOnly = await both('createpsbt', [inputs.filter((_, i) => musig.has(funded[i]!.name)), [{ [ownAddress('musig tr')]: 0.01 }]]);
    for (const descriptors of [funded.map((f) => f.pubDesc)]) {
      const processed = await both('descriptorprocesspsbt', [musigOnly, descriptors, null, true, false]);
      await both('decodepsbt', [processed.psbt]);
      await both('analyzepsbt', [processed.psbt]);
    }
    await both('decodepsbt', [await both('utxoupdatepsbt', [musigOnly, funded.map((f) => f.pubDesc)])]);
    const hashlocked = await both('createpsbt', [inputs.filter((_, i) => hashlocks.has(funded[i]!.name)), [{ data: '00' }]]);
    const withPrevTx = psbtFromTransaction(new Transaction({ version: 2, inputs: inputs.flatMap((_, vout) => (legacy.has(funded[vout]!.name) ? [{ prevout: { txid: funding.txid, vout }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }] : [])), outputs: [{ value: 1_000_000n, scriptPubKey: wpkh(C) }], locktime: 0 }));
    withPrevTx.inputs.forEach((input) => (input.nonWitnessUtxo = funding));
    const legacyPsbt = encodePsbt(withPrevTx);
    await both('analyzepsbt', [legacyPsbt]);
    for (const psbt of [segwitOnly, legacyPsbt]) {
      const full = await both('descriptorprocesspsbt', [psbt, funded.map((f) => f.desc)]);
      assert.equal(full.complete, true, JSON.stringify(await both('analyzepsbt', [full.psbt])));
      const accepted = await both('testmempoolaccept', [[full.hex], 0]);
      assert.equal(accepted[0].allowed, true, JSON.stringify(accepted));
      for (const finalize of [true, false]) {
        const signed = (await both('descriptorprocesspsbt', [psbt, funded.map((f) => f.desc), null, true, finalize])).psbt;
        await both('decodepsbt', [signed]);
        await both('analyzepsbt', [signed]);
        await both('finalizepsbt', [signed]);
        await both('finalizepsbt', [signed, false]);
      }
      for (const sighash of ['DEFAULT', 'ALL', 'NONE|ANYONECANPAY', 'SINGLE']) {
        const signed = (await both('descriptorprocesspsbt', [psbt, funded.map((f) => f.desc), sighash, false, false])).psbt;
        await both('decodepsbt', [signed]);
        await both('analyzepsbt', [signed]);
        await both('finalizepsbt', [signed]);
      }
    }
    // A taproot-only PSBT spending a pool coin: its previous transaction comes from the mempool and is dropped again unless ANYONECANPAY.
    const pooledTaproot = await both('createpsbt', [[{ txid: pooled.txidHex, vout: 1 }], [{ data: '01' }]]);
    await both('decodepsbt', [await both('utxoupdatepsbt', [pooledTaproot])]);
    for (const sighash of [null, 'ALL|ANYONECANPAY', 'NONE|ANYONECANPAY', 'ALL']) {
      const processed = await both('descriptorprocesspsbt', [pooledTaproot, [`tr(${WIF_A})`], sighash, true, false]);
      await both('decodepsbt', [processed.psbt]);
      requests.push(call('utxoupdatepsbt', [processed.psbt]));
      await both('analyzepsbt', [processed.psbt]);
    }
    // Hash locks finalize once the preimages are in the PSBT.
    const unrevealed = decodeBase64Psbt((await both('descriptorprocesspsbt', [hashlocked, funded.map((f) => f.desc), null, true, false])).psbt) as Psbt;
    for (const input of unrevealed.inputs) {
      const spk = input.witnessUtxo?.scriptPubKey;
      if (spk && toHex(spk) === toHex(funded.find((f) => f.name === 'hashlock wsh')!.scriptPubKey)) input.sha256Preimages.set(toHex(sha256(PREIMAGE)), PREIMAGE);
      if (spk && toHex(spk) === toHex(funded.find((f) => f.name === 'hashlock tr')!.scriptPubKey)) input.hash160Preimages.set(toHex(hash160(PREIMAGE)), PREIMAGE);
    }
    const revealed = encodePsbt(unrevealed);
    await both('decodepsbt', [revealed]);
    await both('analyzepsbt', [revealed]);
    await both('finalizepsbt', [revealed, false]);
    const extracted = await both('finalizepsbt', [revealed]);
    assert.equal(extracted.complete, true, 'hash locks finalize with their preimages');
    await both('testmempoolaccept', [[extracted.hex], 0]);
    const joinRequests = [call('joinpsbts', [[segwitOnly, legacyPsbt]])];
    const decodedFull = await both('decodepsbt', [(await both('descriptorprocesspsbt', [segwitOnly, funded.map((f) => f.desc), null, true, false])).psbt]);
    const fields = new Set(decodedFull.inputs.flatMap((input: object) => Object.keys(input)));
    for (const field of ['partial_signatures', 'taproot_key_path_sig', 'taproot_script_path_sigs', 'taproot_scripts', 'taproot_bip32_derivs', 'bip32_derivs', 'witness_script', 'redeem_script']) {
      assert.ok(fields.has(field), `signed inputs carry ${field}`);
    }
    await both('descriptorprocesspsbt', [created, funded.map((f) => f.desc), 'ALL', false]);
    await both('descriptorprocesspsbt', [created, [funded[0]!.desc, { desc: funded[1]!.desc }, { desc: funded[2]!.desc, range: 5 }]]);
    const mismatched = (await both('descriptorprocesspsbt', [created, funded.map((f) => f.desc), 'NONE', true, false])).psbt;
    requests.push(call('descriptorprocesspsbt', [mismatched, funded.map((f) => f.desc), 'ALL']));

    // Conversions.
    const rawHex = resultOf<string>(await each.bitcoind(call('createrawtransaction', [inputs, outputs])));
    await both('converttopsbt', [rawHex]);
    await both('converttopsbt', [rawHex, false, true]);
    await both('converttopsbt', [rawHex, false, false]);
    const signedHex = toHex(funding.toBytes());
    requests.push(call('converttopsbt', [signedHex]), call('converttopsbt', [signedHex, true]), call('converttopsbt', [signedHex, true, true]), call('converttopsbt', ['zz']), call('converttopsbt', [signedHex, 'x']));

    // joinpsbts: compared decoded, sorted.
    const second = await both('createpsbt', [[{ txid: pooled.txidHex, vout: 2 }], [{ data: '01' }], 7, false, 3]);
    joinRequests.push(call('joinpsbts', [[described, second]]), call('joinpsbts', [[byA, second, created]]));
    for (const request of joinRequests) {
      const [a, b] = await send(request);
      const [ja, jb] = [JSON.parse(a.body.toString('utf8')), JSON.parse(b.body.toString('utf8'))];
      assert.equal(a.status, b.status);
      if (ja.result && jb.result) {
        const [da, db] = await Promise.all([each.tsbtcd(call('decodepsbt', [ja.result])), each.bitcoind(call('decodepsbt', [jb.result]))]);
        assert.equal(sortedDecode(da), sortedDecode(db), `joinpsbts ${request.label}`);
      } else {
        assert.equal(a.body.toString(), b.body.toString());
      }
    }

    // Refusals.
    const spent = { value: VALUE, scriptPubKey: funded[1]!.scriptPubKey };
    const tx = new Transaction({ version: 2, inputs: [{ prevout: { txid: funding.txid, vout: 1 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] } as TxIn], outputs: [{ value: 1000n, scriptPubKey: wpkh(B) }, { value: 2000n, scriptPubKey: wpkh(C) }], locktime: 0 });
    // Core's rpc_psbt.json vectors (a subset), then PSBTs built field by field.
    const core = readVectorJson<{ invalid: string[]; valid: string[]; signer: { privkeys: string[] }[] }>('rpc-psbt-subset.json');
    for (const v of core.valid) {
      requests.push(call('finalizepsbt', [v]), call('finalizepsbt', [v, false]), call('combinepsbt', [[v, v]]), call('utxoupdatepsbt', [v]));
      requests.push(call('descriptorprocesspsbt', [v, core.signer[0]!.privkeys.map((k) => `pk(${k})`), null, true, false]));
      requests.push(call('descriptorprocesspsbt', [v, core.signer[0]!.privkeys.map((k) => `pk(${k})`)]));
    }
    const vectors = [...core.invalid, ...core.valid, ...handBuiltPsbts(tx, spent)];
    for (const v of vectors) {
      requests.push(call('decodepsbt', [v]), call('analyzepsbt', [v]));
    }
    // Hand-built PSBTs over the same transaction combined with a plain one: which maps merge.
    const plainTx = psbtFromTransaction(tx);
    for (const v of handBuiltPsbts(tx, spent)) {
      if (typeof decodeBase64Psbt(v) === 'string') continue;
      requests.push(call('combinepsbt', [[encodePsbt(plainTx), v, v]]), call('combinepsbt', [[v, encodePsbt(plainTx)]]), call('joinpsbts', [[v, v]]));
      requests.push(call('finalizepsbt', [v]), call('finalizepsbt', [v, false]), call('utxoupdatepsbt', [v]), call('descriptorprocesspsbt', [v, [`wpkh(${WIF_A})`], null, true, false]));
    }
    const plain = psbtFromTransaction(tx);
    plain.inputs[0] = { ...emptyInput(), witnessUtxo: spent };
    const plainB64 = encodePsbt(plain);
    requests.push(
      call('decodepsbt', ['']),
      call('decodepsbt', ['not base64!']),
      call('decodepsbt', ['cHNidP8=']),
      call('decodepsbt', [b64(serializePsbt(plain)).slice(0, -4)]),
      call('decodepsbt', [5]),
      call('decodepsbt', []),
      call('combinepsbt', [[]]),
      call('combinepsbt', [[plainB64, created]]),
      call('combinepsbt', [[plainB64, 'zz']]),
      call('combinepsbt', [plainB64]),
      call('joinpsbts', [[plainB64]]),
      call('joinpsbts', [[plainB64, plainB64]]),
      call('joinpsbts', [[plainB64, 'x']]),
      call('finalizepsbt', ['x']),
      call('finalizepsbt', [plainB64, 'yes']),
      call('analyzepsbt', ['x']),
      call('utxoupdatepsbt', ['x']),
      call('utxoupdatepsbt', [plainB64, ['bogus']]),
      call('utxoupdatepsbt', [plainB64, [{ range: 5 }]]),
      call('utxoupdatepsbt', [plainB64, [5]]),
      call('utxoupdatepsbt', ['x', ['bogus']]),
      call('descriptorprocesspsbt', [plainB64]),
      call('descriptorprocesspsbt', [plainB64, [{ desc: `wpkh(${TPUB}/0/*)`, range: -1 }]]),
      call('descriptorprocesspsbt', [plainB64, [{ desc: `wpkh(${TPUB}/0/*)`, range: [5, 2] }]]),
      call('descriptorprocesspsbt', [plainB64, [{ desc: `wpkh(${TPUB}/0/*)`, range: [0, 10_000_001] }]]),
      call('descriptorprocesspsbt', [plainB64, [`wpkh(${TPUB}/0h/*)`]]),
      call('descriptorprocesspsbt', [plainB64, [`wpkh(${toHex(A)})#00000000`]]),
      call('descriptorprocesspsbt', [plainB64, [`wpkh(${toHex(A)})`], 'ALL', 'yes']),
      call('descriptorprocesspsbt', ['x', [`wpkh(${toHex(A)})`]]),
      call('descriptorprocesspsbt', ['x', ['bogus']]),
      call('utxoupdatepsbt', [plainB64, [{ desc: `wpkh(${TPUB}/<0;1>/*)`, range: 2 }]]),
      call('descriptorprocesspsbt', [plainB64, [], 'bogus']),
      call('createpsbt', [[], []]),
      call('createpsbt', [[{ txid, vout: -1 }], outputs]),
      call('createpsbt', [inputs, outputs, 0, true, 4]),
      call('createpsbt', [inputs, { data: 'zz' }]),
    );

    const different: string[] = [];
    let internalBugs = 0;
    for (const request of requests) {
      const [a, b] = await send(request);
      if (a.status === b.status && a.body.equals(b.body)) continue;
      if (sameInternalBug(a, b)) {
        internalBugs++;
        continue;
      }
      const [ta, tb] = [a.body.toString(), b.body.toString()];
      let at = 0;
      while (at < ta.length && ta[at] === tb[at]) at++;
      const from = Math.max(0, at - 150);
      if (process.env.PSBT_DIFF_DUMP) appendFileSync(process.env.PSBT_DIFF_DUMP, `${JSON.stringify(request.body ?? request.label)}\n`);
      different.push(`${request.label.slice(0, 200)}\n  tsbtcd:   ${a.status} …${ta.slice(from, from + 500)}\n  bitcoind: ${b.status} …${tb.slice(from, from + 500)}`);
    }
    console.log(`${requests.length - different.length - internalBugs} of ${requests.length} requests byte-identical, ${internalBugs} internal-bug reports alike (code and first line)`);
    assert.deepEqual(different, [], `${different.length} of ${requests.length} differ:\n${different.join('\n')}`);
  });
});
