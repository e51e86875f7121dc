/**
 * The keys of the generated import-benchmark chain and the signing of its inputs: P2WPKH
 * (ECDSA over the BIP143 sighash) and P2TR key path (BIP340 Schnorr over the BIP341
 * sighash). Keys come from small seeds (test/support/spends.ts), so the planner on the main
 * thread and the signing workers derive the same ones without exchanging secrets.
 *
 * BIP340 signing is done here rather than with noble's schnorr.sign, which verifies every
 * signature it makes (a full verification, ~10× the signing cost). This is BIP340's Sign
 * with the key's even-y scalar and x-only key computed once per key; every signature is
 * verified anyway when the chain is imported with all scripts checked.
 */
import * as noble from '@noble/secp256k1';
import { concatBytes, taggedHash, Transaction, type TxIn, type TxOut } from '../src/primitives/index.js';
import {
  PrecomputedTransactionData,
  SIGHASH_ALL,
  SIGHASH_DEFAULT,
  taprootSignatureHash,
  witnessV0SignatureHash,
} from '../src/script/index.js';
import { derEncode, p2wpkhScriptCode, spendKey, type SpendKey } from '../test/support/spends.js';

/** Keys the chain pays to: even indexes P2WPKH, odd ones P2TR key path. */
export const KEY_COUNT = 16;

const N = noble.Point.CURVE().n;

const toBigInt = noble.etc.bytesToNumberBE;
const toBytes32 = noble.etc.numberToBytesBE;

export interface BenchKey extends SpendKey {
  /** P2TR: the signing scalar with BIP340's even-y negation applied, as bytes and as a number. */
  readonly evenSecret?: Uint8Array;
  readonly evenScalar?: bigint;
}

function benchKey(index: number): BenchKey {
  const key = spendKey(index % 2 === 0 ? 'p2wpkh' : 'p2tr', 10_000 + index);
  if (key.kind === 'p2wpkh') return key;
  let d = toBigInt(key.signingSecret);
  const p = noble.Point.BASE.multiply(d).toAffine();
  if (p.y & 1n) d = N - d;
  if (toBigInt(key.publicKey) !== p.x) throw new Error('taproot output key does not match its signing secret');
  return { ...key, evenSecret: toBytes32(d), evenScalar: d };
}

let keys: BenchKey[] | undefined;

export function benchKeys(): readonly BenchKey[] {
  keys ??= Array.from({ length: KEY_COUNT }, (_, i) => benchKey(i));
  return keys;
}

/** BIP340 Sign(sk, m) with a zero auxiliary random, for a key prepared by benchKey. */
export function schnorrSign(message: Uint8Array, key: BenchKey): Uint8Array {
  const d = key.evenScalar!;
  const t = key.evenSecret!.slice();
  const aux = taggedHash('BIP0340/aux', new Uint8Array(32));
  for (let i = 0; i < 32; i++) t[i] = t[i]! ^ aux[i]!;
  let k = toBigInt(taggedHash('BIP0340/nonce', t, key.publicKey, message)) % N;
  if (k === 0n) throw new Error('BIP340 nonce is zero');
  const r = noble.Point.BASE.multiply(k).toAffine();
  if (r.y & 1n) k = N - k;
  const rx = toBytes32(r.x);
  const e = toBigInt(taggedHash('BIP0340/challenge', rx, key.publicKey, message)) % N;
  return concatBytes(rx, toBytes32((k + e * d) % N));
}

/** One spent coin as the signer needs it: its amount and the index of the key it pays. */
export interface SpentCoin {
  value: bigint;
  key: number;
}

/** `tx` (unsigned) with a witness for every input. Signatures do not change the txid. */
export function signTransaction(tx: Transaction, spent: readonly SpentCoin[]): Transaction {
  const all = benchKeys();
  const spentOutputs: TxOut[] = spent.map((coin) => ({ value: coin.value, scriptPubKey: all[coin.key]!.scriptPubKey }));
  const txdata = new PrecomputedTransactionData(tx, spentOutputs);
  const inputs: TxIn[] = tx.inputs.map((input, i) => {
    const key = all[spent[i]!.key]!;
    if (key.kind === 'p2wpkh') {
      const digest = witnessV0SignatureHash(p2wpkhScriptCode(key.publicKey), tx, i, SIGHASH_ALL, spent[i]!.value, txdata);
      const compact = noble.sign(digest, key.signingSecret, { prehash: false, lowS: true });
      return { ...input, witness: [concatBytes(derEncode(compact), Uint8Array.of(SIGHASH_ALL)), key.publicKey] };
    }
    const digest = taprootSignatureHash(tx, i, SIGHASH_DEFAULT, txdata, { annexHash: undefined }, false);
    if (!digest) throw new Error('taproot sighash undefined for a key-path spend');
    return { ...input, witness: [schnorrSign(digest, key)] };
  });
  return new Transaction({ version: tx.version, inputs, outputs: tx.outputs, locktime: tx.locktime });
}
