/**
 * Core's GenerateCoinbaseCommitment: once segwit is active every template commits to the
 * witness merkle root in a coinbase output, and the coinbase carries the 32-byte reserved
 * value as its witness.
 */
import {
  blockWitnessMerkleRoot,
  Transaction,
  WITNESS_COMMITMENT_HEADER,
  witnessCommitment,
  type Block,
} from '../primitives/index.js';

const RESERVED_VALUE = new Uint8Array(32);

/** The transactions of `block` with the commitment added to its coinbase. */
export function addWitnessCommitment(block: Block): Transaction[] {
  const { root } = blockWitnessMerkleRoot(block);
  const script = new Uint8Array(38);
  script.set(WITNESS_COMMITMENT_HEADER, 0);
  script.set(witnessCommitment(root, RESERVED_VALUE), 6);
  const coinbase = block.transactions[0]!;
  const withCommitment = new Transaction({
    version: coinbase.version,
    locktime: coinbase.locktime,
    inputs: coinbase.inputs.map((input, i) => (i === 0 ? { ...input, witness: [RESERVED_VALUE] } : input)),
    outputs: [...coinbase.outputs, { value: 0n, scriptPubKey: script }],
  });
  return [withCommitment, ...block.transactions.slice(1)];
}
