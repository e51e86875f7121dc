/**
 * Mutations for tests: single-point changes of real transactions, for tests that must show
 * a verifier rejects exactly the input that was tampered with, and seeded byte mutation
 * for the fuzz suites.
 */
import { Transaction, type TxIn } from '../../src/primitives/index.js';
import { readOp } from '../../src/script/index.js';

/** A copy of `tx` with input `inputIndex` changed by `change`. */
export function withInput(tx: Transaction, inputIndex: number, change: (input: TxIn) => TxIn): Transaction {
  if (inputIndex < 0 || inputIndex >= tx.inputs.length) throw new RangeError(`no input ${inputIndex}`);
  const inputs = tx.inputs.map((input, i) => (i === inputIndex ? change(input) : input));
  return new Transaction({ version: tx.version, inputs, outputs: tx.outputs, locktime: tx.locktime });
}

/**
 * Flips one byte in the middle of r of a DER signature (0x30 len 0x02 rlen r...), so the
 * encoding stays valid DER and only the signature's value is wrong.
 */
export function flipSignatureByte(derSignature: Uint8Array): Uint8Array {
  if (derSignature[0] !== 0x30 || derSignature[2] !== 0x02) throw new Error('not a DER signature');
  const rLength = derSignature[3]!;
  const out = derSignature.slice();
  const middle = 4 + (rLength >> 1);
  out[middle] = out[middle]! ^ 0x01;
  return out;
}

/** A scriptSig whose first push (the signature, in P2PK and P2PKH spends) has one byte flipped. */
export function flipScriptSigSignature(scriptSig: Uint8Array): Uint8Array {
  const op = readOp(scriptSig, 0);
  if (!op?.data || op.data.length < 9) throw new Error('scriptSig does not start with a signature push');
  const out = scriptSig.slice();
  out.set(flipSignatureByte(op.data), op.end - op.data.length);
  return out;
}

/**
 * Seeded byte-level mutation for fuzz tests: one to four edits (overwrite, bit flip,
 * insertion, deletion, truncation, and with `compactSize` an inserted 3-byte CompactSize
 * prefix that claims a large count).
 */
export function mutate(bytes: Uint8Array, random: () => number, options: { compactSize?: boolean } = {}): Uint8Array {
  const out = Array.from(bytes);
  const edits = 1 + (random() % 4);
  for (let e = 0; e < edits; e++) {
    const kind = random() % (options.compactSize ? 6 : 5);
    const at = out.length ? random() % out.length : 0;
    if (kind === 0 && out.length) out[at] = random() & 0xff;
    else if (kind === 1 && out.length) out[at]! ^= 1 << (random() % 8);
    else if (kind === 2) out.splice(at, 0, random() & 0xff);
    else if (kind === 3 && out.length) out.splice(at, 1 + (random() % 8));
    else if (kind === 5) out.splice(at, 0, 0xfd, random() & 0xff, random() & 0xff);
    else out.length = at;
  }
  return Uint8Array.from(out);
}
