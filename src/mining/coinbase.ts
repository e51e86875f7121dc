/**
 * The coinbase transaction a block template starts with, as Core's BlockAssembler builds
 * it: the BIP34 height then OP_0 in the scriptSig, a non-final sequence with nLockTime
 * height − 1 (Core v30+ timelocks the coinbase), subsidy plus fees to the payout script.
 */
import { coinbaseHeightPrefix } from '../consensus/index.js';
import { NULL_OUTPOINT, Transaction, type TxOut } from '../primitives/index.js';
import { OP } from '../script/index.js';

export const MAX_SEQUENCE_NONFINAL = 0xfffffffe;

export function createCoinbase(height: number, payoutScript: Uint8Array, value: bigint, extraOutputs: readonly TxOut[] = []): Transaction {
  const prefix = coinbaseHeightPrefix(height);
  const scriptSig = new Uint8Array(prefix.length + 1);
  scriptSig.set(prefix, 0);
  scriptSig[prefix.length] = OP.OP_0;
  return new Transaction({
    version: 2,
    inputs: [{ prevout: NULL_OUTPOINT, scriptSig, sequence: MAX_SEQUENCE_NONFINAL, witness: [] }],
    outputs: [{ value, scriptPubKey: payoutScript }, ...extraOutputs],
    locktime: height - 1,
  });
}
