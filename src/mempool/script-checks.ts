/**
 * Core's PolicyScriptChecks and ConsensusScriptChecks: every input's script under the
 * standard flags, then again under the chain tip's consensus flags, on the chainstate's
 * checker (the worker pool, or inline for small batches). The first pass stores the valid
 * signatures in the signature cache, so the second costs no curve operation; the second
 * stores the whole transaction in the script-execution cache under the flags its block
 * will most likely be checked with, so the block connects without checking it again.
 * A failure reads as Core v30+ words it: "mempool-script-verify-flag-failed (<script
 * error>)" with the failing input in the debug text.
 */
import type { ScriptChecker, ScriptCheckVerdict } from '../chain/index.js';
import { hashToHex, type Transaction, type TxOut } from '../primitives/index.js';
import { SCRIPT_ERROR_MESSAGES, STANDARD_SCRIPT_VERIFY_FLAGS } from '../script/index.js';
import { refuse, type AcceptFailure } from './prechecks.js';

/** The checker could not give a verdict (a broken worker pool): not a verdict on the transaction. */
export class ScriptCheckUnavailableError extends Error {
  override readonly name = 'ScriptCheckUnavailableError';
}

function failure(verdict: ScriptCheckVerdict, tx: Transaction): AcceptFailure | null {
  if (verdict.ok) return null;
  if (!verdict.consensus) throw new ScriptCheckUnavailableError(verdict.detail);
  const input = tx.inputs[verdict.inputIndex]!;
  return refuse(
    `mempool-script-verify-flag-failed (${SCRIPT_ERROR_MESSAGES[verdict.error]})`,
    `input ${verdict.inputIndex} of ${tx.txidHex} (wtxid ${tx.wtxidHex}), spending ${hashToHex(input.prevout.txid)}:${input.prevout.vout}`,
  );
}

/** PolicyScriptChecks: the standard flags; valid signatures go into the signature cache. */
export async function policyScriptChecks(checker: ScriptChecker, tx: Transaction, spentOutputs: readonly TxOut[]): Promise<AcceptFailure | null> {
  const verdict = await checker.verify([{ tx, spentOutputs, flags: STANDARD_SCRIPT_VERIFY_FLAGS }], { storeSignatures: true, storeScriptExecution: false });
  return failure(verdict, tx);
}

/**
 * ConsensusScriptChecks: the tip's block flags (`tipFlags`), storing the transaction in the
 * script-execution cache. Failing here after passing the standard flags is a bug in the
 * flags (Core logs "BUG! PLEASE REPORT THIS!"), and the transaction is refused.
 */
export async function consensusScriptChecks(
  checker: ScriptChecker,
  tx: Transaction,
  spentOutputs: readonly TxOut[],
  tipFlags: number,
  log: (message: string) => void,
): Promise<AcceptFailure | null> {
  const verdict = await checker.verify([{ tx, spentOutputs, flags: tipFlags }], { storeSignatures: true, storeScriptExecution: true });
  const refused = failure(verdict, tx);
  if (refused) log(`BUG! PLEASE REPORT THIS! CheckInputScripts failed against latest-block but not STANDARD flags ${tx.txidHex}, ${refused.reason}`);
  return refused;
}
