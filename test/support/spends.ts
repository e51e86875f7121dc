/**
 * Self-signed segwit spends for tests and benchmarks: P2WPKH (ECDSA, BIP143 sighash) and
 * P2TR key-path (BIP340 Schnorr, BIP341 sighash) inputs, signed with @noble/secp256k1 over
 * the signature hashes of src/script, so verifying them exercises the whole input path.
 * Keys are derived from small integer seeds, so every run builds the same transactions.
 */
import * as noble from '@noble/secp256k1';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { concatBytes, hash160, sha256, Transaction, type TxIn, type TxOut } from '../../src/primitives/index.js';
import {
  payToPubkeyHashScript,
  PrecomputedTransactionData,
  SIGHASH_ALL,
  SIGHASH_DEFAULT,
  taprootOutput,
  taprootSignatureHash,
  witnessProgramScript,
  witnessV0SignatureHash,
} from '../../src/script/index.js';

// Synchronous ECDSA signing needs an HMAC-SHA256 (RFC 6979 nonces); verification does not.
noble.hashes.hmacSha256 = (key, message) => hmac(nobleSha256, key, message);

const CURVE_ORDER = noble.Point.CURVE().n;

export type SpendKind = 'p2wpkh' | 'p2tr';

export interface SpendKey {
  readonly kind: SpendKind;
  /** The key that signs: the plain secret for P2WPKH, the tweaked one for P2TR. */
  readonly signingSecret: Uint8Array;
  /** 33-byte compressed key (P2WPKH) or 32-byte x-only output key (P2TR). */
  readonly publicKey: Uint8Array;
  readonly scriptPubKey: Uint8Array;
}

function bigIntFrom(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return n;
}

function bytes32(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--, n >>= 8n) out[i] = Number(n & 0xffn);
  return out;
}

/** A valid secret key derived from a seed number. */
export function secretFromSeed(seed: number): Uint8Array {
  const label = new TextEncoder().encode(`tsbtcd test key ${seed}`);
  return bytes32((bigIntFrom(sha256(label)) % (CURVE_ORDER - 1n)) + 1n);
}

/** Strict DER (BIP66) encoding of a 64-byte r || s signature. */
export function derEncode(compact: Uint8Array): Uint8Array {
  const integer = (value: Uint8Array): Uint8Array => {
    let start = 0;
    while (start < value.length - 1 && value[start] === 0) start++;
    const body = value.subarray(start);
    const padded = body[0]! & 0x80 ? concatBytes(Uint8Array.of(0), body) : body;
    return concatBytes(Uint8Array.of(0x02, padded.length), padded);
  };
  const r = integer(compact.subarray(0, 32));
  const s = integer(compact.subarray(32, 64));
  return concatBytes(Uint8Array.of(0x30, r.length + s.length), r, s);
}

/** BIP143 scriptCode of a P2WPKH input: the P2PKH script of the key hash. */
export function p2wpkhScriptCode(publicKey: Uint8Array): Uint8Array {
  return payToPubkeyHashScript(hash160(publicKey));
}

/**
 * BIP341 key-path-only output (no script tree) for a secret, and the secret that signs
 * for its output key Q = P + t·G: d + t with d negated when P = d·G has odd y (P is the
 * even-y lift of its x). BIP340 signing negates the result itself when Q has odd y.
 */
export function taprootKeyPath(internalSecret: Uint8Array): { scriptPubKey: Uint8Array; outputKey: Uint8Array; tweakedSecret: Uint8Array } {
  let d = bigIntFrom(internalSecret);
  const p = noble.Point.BASE.multiply(d);
  if (p.toAffine().y & 1n) d = CURVE_ORDER - d;
  const output = taprootOutput(bytes32(p.toAffine().x), null);
  const tweakedSecret = bytes32((d + bigIntFrom(output.tweak)) % CURVE_ORDER);
  return { scriptPubKey: output.scriptPubKey, outputKey: output.outputKey, tweakedSecret };
}

export function spendKey(kind: SpendKind, seed: number): SpendKey {
  const secret = secretFromSeed(seed);
  if (kind === 'p2wpkh') {
    const publicKey = noble.getPublicKey(secret, true);
    return { kind, signingSecret: secret, publicKey, scriptPubKey: witnessProgramScript(0, hash160(publicKey)) };
  }
  const { scriptPubKey, outputKey, tweakedSecret } = taprootKeyPath(secret);
  return { kind, signingSecret: tweakedSecret, publicKey: outputKey, scriptPubKey };
}

export interface SignedSpend {
  readonly tx: Transaction;
  /** The outputs the inputs spend, in input order. */
  readonly spentOutputs: readonly TxOut[];
}

/**
 * A transaction spending one output per key (amounts in satoshis), paying two P2WPKH
 * outputs, with every input signed (SIGHASH_ALL for P2WPKH, SIGHASH_DEFAULT for P2TR).
 * `label` makes the prevout txids distinct between transactions.
 */
export function signedSpend(keys: readonly SpendKey[], amounts: readonly bigint[], label: number): SignedSpend {
  if (keys.length !== amounts.length) throw new RangeError('one amount per key');
  const spentOutputs: TxOut[] = keys.map((key, i) => ({ value: amounts[i]!, scriptPubKey: key.scriptPubKey }));
  const total = amounts.reduce((a, b) => a + b, 0n);
  const fee = 1000n * BigInt(keys.length);
  if (total <= fee + 2n) throw new RangeError('amounts too small to pay the fee');
  const payTo = witnessProgramScript(0, hash160(noble.getPublicKey(secretFromSeed(label + 1_000_000), true)));
  const outputs: TxOut[] = [
    { value: (total - fee) / 2n, scriptPubKey: payTo },
    { value: total - fee - (total - fee) / 2n, scriptPubKey: payTo },
  ];
  const unsignedInputs: TxIn[] = keys.map((_, i) => ({
    prevout: { txid: sha256(new TextEncoder().encode(`prevout ${label}:${i}`)), vout: i },
    scriptSig: new Uint8Array(0),
    sequence: 0xfffffffd,
    witness: [],
  }));
  const unsigned = new Transaction({ version: 2, inputs: unsignedInputs, outputs, locktime: 0 });
  // Neither BIP143 nor BIP341 hashes commit to witnesses, so the unsigned transaction's hashes are the signed one's.
  const txdata = new PrecomputedTransactionData(unsigned, spentOutputs);
  const inputs: TxIn[] = unsignedInputs.map((input, i) => ({ ...input, witness: witnessFor(keys[i]!, unsigned, i, spentOutputs, txdata) }));
  return { tx: new Transaction({ version: 2, inputs, outputs, locktime: 0 }), spentOutputs };
}

function witnessFor(
  key: SpendKey,
  tx: Transaction,
  inputIndex: number,
  spentOutputs: readonly TxOut[],
  txdata: PrecomputedTransactionData,
): Uint8Array[] {
  if (key.kind === 'p2wpkh') {
    const scriptCode = p2wpkhScriptCode(key.publicKey);
    const digest = witnessV0SignatureHash(scriptCode, tx, inputIndex, SIGHASH_ALL, spentOutputs[inputIndex]!.value, txdata);
    const compact = noble.sign(digest, key.signingSecret, { prehash: false, lowS: true });
    return [concatBytes(derEncode(compact), Uint8Array.of(SIGHASH_ALL)), key.publicKey];
  }
  const digest = taprootSignatureHash(tx, inputIndex, SIGHASH_DEFAULT, txdata, { annexHash: undefined }, false);
  if (!digest) throw new Error('taproot sighash undefined for a SIGHASH_DEFAULT key-path spend');
  return [noble.schnorr.sign(digest, key.signingSecret, new Uint8Array(32))];
}
