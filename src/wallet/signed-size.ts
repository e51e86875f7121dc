/**
 * The size a transaction will have once the wallet signs it (Core's
 * CalculateMaximumSignedInputSize and CalculateMaximumSignedTxSize with the dummy signature
 * creator a wallet that can grind R uses): ECDSA signatures of 71 bytes with their hash type,
 * Schnorr signatures of 64, compressed keys. Covers the outputs a wallet's own descriptors
 * pay to (pkh, sh(wpkh), wpkh, tr key path); -1 for anything else, as Core returns when it
 * cannot solve.
 */
import { WITNESS_SCALE_FACTOR, type Transaction } from '../primitives/index.js';

/** DummySignatureCreator(32, 32): a DER signature with 32-byte R and S, plus the hash type. */
const ECDSA_DUMMY = 71;
const SCHNORR_DUMMY = 64;
const PUBKEY = 33;

interface DummySpend {
  /** scriptSig bytes (without its length prefix). */
  readonly scriptSig: number;
  /** Witness item sizes (empty: no witness). */
  readonly witness: readonly number[];
}

function dummySpendOf(scriptPubKey: Uint8Array): DummySpend | null {
  const s = scriptPubKey;
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9) return { scriptSig: 1 + ECDSA_DUMMY + 1 + PUBKEY, witness: [] };
  // Our P2SH outputs are P2SH-P2WPKH: the scriptSig pushes the 22-byte program.
  if (s.length === 23 && s[0] === 0xa9) return { scriptSig: 1 + 22, witness: [ECDSA_DUMMY, PUBKEY] };
  if (s.length === 22 && s[0] === 0x00 && s[1] === 0x14) return { scriptSig: 0, witness: [ECDSA_DUMMY, PUBKEY] };
  if (s.length === 34 && s[0] === 0x51 && s[1] === 0x20) return { scriptSig: 0, witness: [SCHNORR_DUMMY] };
  return null;
}

const compactSize = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9);

function witnessBytes(items: readonly number[]): number {
  return compactSize(items.length) + items.reduce((sum, n) => sum + compactSize(n) + n, 0);
}

/** Core's CalculateMaximumSignedInputSize: the vsize of the signed input spending an output with this script, -1 when the wallet cannot solve it. */
export function maximumSignedInputSize(scriptPubKey: Uint8Array): number {
  const spend = dummySpendOf(scriptPubKey);
  if (!spend) return -1;
  const base = 32 + 4 + compactSize(spend.scriptSig) + spend.scriptSig + 4;
  const witness = spend.witness.length > 0 ? witnessBytes(spend.witness) : 0;
  return Math.ceil((base * WITNESS_SCALE_FACTOR + witness) / WITNESS_SCALE_FACTOR);
}

/** Core's CalculateMaximumSignedTxSize: the signed transaction's weight and vsize, given the scripts its inputs spend; null when one cannot be solved. */
export function maximumSignedTxSize(tx: Transaction, spentScripts: readonly Uint8Array[]): { weight: number; vsize: number } | null {
  let base = 4 + compactSize(tx.inputs.length) + compactSize(tx.outputs.length) + 4;
  for (const out of tx.outputs) base += 8 + compactSize(out.scriptPubKey.length) + out.scriptPubKey.length;
  let witness = 0;
  let anyWitness = false;
  for (const script of spentScripts) {
    const spend = dummySpendOf(script);
    if (!spend) return null;
    base += 32 + 4 + compactSize(spend.scriptSig) + spend.scriptSig + 4;
    if (spend.witness.length > 0) anyWitness = true;
    witness += spend.witness.length > 0 ? witnessBytes(spend.witness) : 1;
  }
  // The marker and flag, and an empty stack per input, only when some input has a witness.
  const weight = base * WITNESS_SCALE_FACTOR + (anyWitness ? 2 + witness : 0);
  return { weight, vsize: Math.ceil(weight / WITNESS_SCALE_FACTOR) };
}
