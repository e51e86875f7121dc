/**
 * BIP325 signet block solutions (Core's signet.cpp). A signet block carries, inside its
 * witness commitment output, a scriptSig and witness that must satisfy the network's
 * challenge script in a virtual transaction committing to the block (header fields and a
 * merkle root computed with the solution removed).
 */
import {
  bytesEqual,
  ByteReader,
  ByteWriter,
  computeMerkleRoot,
  concatBytes,
  NULL_OUTPOINT,
  Transaction,
  witnessCommitmentIndex,
  type Block,
  type TxOut,
} from '../primitives/index.js';
import {
  OP,
  PrecomputedTransactionData,
  pushData,
  readOp,
  ScriptError,
  TransactionSignatureChecker,
  verifyScript,
  VerifyFlags,
} from '../script/index.js';
import type { ChainParams } from './params.js';

/** The four bytes that mark the signet solution push inside the commitment output. */
export const SIGNET_HEADER = Uint8Array.of(0xec, 0xc7, 0xda, 0xa2);

/** Flags the challenge is verified with (no taproot: the challenge is a legacy or v0 script). */
const SIGNET_SCRIPT_FLAGS = VerifyFlags.P2SH | VerifyFlags.WITNESS | VerifyFlags.DERSIG | VerifyFlags.NULLDUMMY;

/**
 * Core's FetchAndClearCommitmentSection: finds the first push that starts with the
 * signet header and carries more, cuts the solution out of it, and rebuilds the script
 * with minimal pushes (as CScript << does). Parsing stops at the first malformed op,
 * dropping the rest, exactly as Core's loop does.
 */
function fetchAndClearCommitmentSection(script: Uint8Array): { script: Uint8Array; solution: Uint8Array } | undefined {
  const parts: Uint8Array[] = [];
  let solution: Uint8Array | undefined;
  for (let pc = 0; pc < script.length; ) {
    const op = readOp(script, pc);
    if (!op) break;
    pc = op.end;
    let data = op.data;
    if (data && data.length > 0) {
      if (!solution && data.length > SIGNET_HEADER.length && bytesEqual(data.subarray(0, SIGNET_HEADER.length), SIGNET_HEADER)) {
        solution = data.subarray(SIGNET_HEADER.length);
        data = data.subarray(0, SIGNET_HEADER.length);
      }
      parts.push(pushData(data));
    } else {
      parts.push(Uint8Array.of(op.opcode));
    }
  }
  return solution ? { script: concatBytes(...parts), solution } : undefined;
}

/** The solution's scriptSig and witness stack, or undefined when it does not parse exactly. */
function parseSolution(solution: Uint8Array): { scriptSig: Uint8Array; witness: Uint8Array[] } | undefined {
  try {
    const reader = new ByteReader(solution);
    const scriptSig = reader.varBytes();
    const count = reader.compactSize();
    const witness: Uint8Array[] = [];
    for (let i = 0; i < count; i++) witness.push(reader.varBytes());
    if (reader.remaining !== 0) return undefined;
    return { scriptSig, witness };
  } catch {
    return undefined;
  }
}

export interface SignetTxs {
  /** The virtual transaction whose output is the challenge. */
  readonly toSpend: Transaction;
  /** The virtual transaction that spends it with the block's solution. */
  readonly toSign: Transaction;
}

/**
 * Core's SignetTxs::Create: the two virtual transactions for `block`, or undefined when
 * the block has no witness commitment or a malformed solution. A commitment without a
 * solution yields an empty one (so a challenge of OP_TRUE needs none).
 */
export function signetTxs(block: Block, challenge: Uint8Array): SignetTxs | undefined {
  const coinbase = block.transactions[0];
  if (!coinbase) return undefined;
  const commitment = witnessCommitmentIndex(block);
  if (commitment < 0) return undefined;

  let scriptSig: Uint8Array = new Uint8Array(0);
  let witness: Uint8Array[] = [];
  let outputs: readonly TxOut[] = coinbase.outputs;
  const section = fetchAndClearCommitmentSection(coinbase.outputs[commitment]!.scriptPubKey);
  if (section) {
    const parsed = parseSolution(section.solution);
    if (!parsed) return undefined;
    ({ scriptSig, witness } = parsed);
    outputs = coinbase.outputs.map((out, i) => (i === commitment ? { value: out.value, scriptPubKey: section.script } : out));
  }
  const modifiedCoinbase = new Transaction({ version: coinbase.version, inputs: coinbase.inputs, outputs, locktime: coinbase.locktime });
  const merkleRoot = computeMerkleRoot([modifiedCoinbase.txid, ...block.transactions.slice(1).map((tx) => tx.txid)]).root;

  const header = block.header;
  const blockData = new ByteWriter(72).i32(header.version).bytes(header.prevHash).bytes(merkleRoot).u32(header.time).finish();
  const toSpend = new Transaction({
    version: 0,
    inputs: [{ prevout: NULL_OUTPOINT, scriptSig: concatBytes(Uint8Array.of(OP.OP_0), pushData(blockData)), sequence: 0, witness: [] }],
    outputs: [{ value: 0n, scriptPubKey: challenge }],
    locktime: 0,
  });
  const toSign = new Transaction({
    version: 0,
    inputs: [{ prevout: { txid: toSpend.txid, vout: 0 }, scriptSig, sequence: 0, witness }],
    outputs: [{ value: 0n, scriptPubKey: Uint8Array.of(OP.OP_RETURN) }],
    locktime: 0,
  });
  return { toSpend, toSign };
}

/**
 * Core's CheckSignetBlockSolution: the genesis block needs no solution; any other block's
 * solution must satisfy the challenge.
 */
export function checkSignetBlockSolution(block: Block, params: ChainParams): boolean {
  if (bytesEqual(block.header.hash, params.genesisHash)) return true;
  const challenge = params.signetChallenge ?? new Uint8Array(0);
  const txs = signetTxs(block, challenge);
  if (!txs) return false;
  const spent = txs.toSpend.outputs[0]!;
  const input = txs.toSign.inputs[0]!;
  const checker = new TransactionSignatureChecker(txs.toSign, 0, spent.value, new PrecomputedTransactionData(txs.toSign, [spent]));
  return verifyScript(input.scriptSig, spent.scriptPubKey, input.witness, SIGNET_SCRIPT_FLAGS, checker) === ScriptError.OK;
}
