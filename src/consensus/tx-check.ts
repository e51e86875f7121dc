/**
 * Context-free transaction checks (Core's CheckTransaction): what a transaction must
 * satisfy before any script runs or any coin is looked up.
 */
import { isNullOutPoint, toHex, type Transaction, type TxIn } from '../primitives/index.js';
import { MAX_MONEY, moneyRange } from './amounts.js';
import { MAX_BLOCK_WEIGHT, WITNESS_SCALE_FACTOR } from './limits.js';

/** Core's reject reasons, as they appear in RPC results and rejection messages. */
export type TxCheckFailure =
  | 'bad-txns-vin-empty'
  | 'bad-txns-vout-empty'
  | 'bad-txns-oversize'
  | 'bad-txns-vout-negative'
  | 'bad-txns-vout-toolarge'
  | 'bad-txns-txouttotal-toolarge'
  | 'bad-txns-inputs-duplicate'
  | 'bad-cb-length'
  | 'bad-txns-prevout-null';

/** Returns null when the transaction passes, else Core's reject reason. */
export function checkTransaction(tx: Transaction): TxCheckFailure | null {
  if (tx.inputs.length === 0) return 'bad-txns-vin-empty';
  if (tx.outputs.length === 0) return 'bad-txns-vout-empty';
  // Witness excluded: it has not been checked for malleability yet.
  if (tx.baseSize * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT) return 'bad-txns-oversize';
  let total = 0n;
  for (const out of tx.outputs) {
    if (out.value < 0n) return 'bad-txns-vout-negative';
    if (out.value > MAX_MONEY) return 'bad-txns-vout-toolarge';
    total += out.value;
    if (!moneyRange(total)) return 'bad-txns-txouttotal-toolarge';
  }
  // Duplicate inputs (CVE-2018-17144) would otherwise inflate the supply.
  if (hasDuplicateInputs(tx.inputs)) return 'bad-txns-inputs-duplicate';
  if (tx.isCoinbase()) {
    const length = tx.inputs[0]!.scriptSig.length;
    if (length < 2 || length > 100) return 'bad-cb-length';
  } else {
    for (const input of tx.inputs) if (isNullOutPoint(input.prevout)) return 'bad-txns-prevout-null';
  }
  return null;
}

/** Below this many inputs, pairs are compared directly: no keys to build, and most transactions have one or two inputs. */
const PAIRWISE_INPUT_LIMIT = 16;

function samePrevout(a: TxIn, b: TxIn): boolean {
  if (a.prevout.vout !== b.prevout.vout) return false;
  const x = a.prevout.txid;
  const y = b.prevout.txid;
  for (let i = 0; i < 32; i++) if (x[i] !== y[i]) return false;
  return true;
}

function hasDuplicateInputs(inputs: readonly TxIn[]): boolean {
  const n = inputs.length;
  if (n <= PAIRWISE_INPUT_LIMIT) {
    for (let i = 1; i < n; i++) for (let j = 0; j < i; j++) if (samePrevout(inputs[i]!, inputs[j]!)) return true;
    return false;
  }
  const seen = new Set<string>();
  for (const input of inputs) {
    const key = toHex(input.prevout.txid) + ':' + input.prevout.vout;
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}
