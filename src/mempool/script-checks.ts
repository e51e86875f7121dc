/**
 * Core's PolicyScriptChecks: every input's script under the standard flags, on the
 * chainstate's checker (the worker pool, or inline for small batches). A failure reads
 * as Core v30+ words it: "mempool-script-verify-flag-failed (<script error>)" with the
 * failing input in the debug text.
 */
import type { ScriptChecker } from '../chain/index.js';
import { hashToHex, type Transaction, type TxOut } from '../primitives/index.js';
import { SCRIPT_ERROR_MESSAGES, STANDARD_SCRIPT_VERIFY_FLAGS } from '../script/index.js';
import { refuse, type AcceptFailure } from './prechecks.js';

/** The checker could not give a verdict (a broken worker pool): not a verdict on the transaction. */
export class ScriptCheckUnavailableError extends Error {
  override readonly name = 'ScriptCheckUnavailableError';
}

export async function policyScriptChecks(checker: ScriptChecker, tx: Transaction, spentOutputs: readonly TxOut[]): Promise<AcceptFailure | null> {
  const verdict = await checker.verify([{ tx, spentOutputs, flags: STANDARD_SCRIPT_VERIFY_FLAGS }]);
  if (verdict.ok) return null;
  if (!verdict.consensus) throw new ScriptCheckUnavailableError(verdict.detail);
  const input = tx.inputs[verdict.inputIndex]!;
  return refuse(
    `mempool-script-verify-flag-failed (${SCRIPT_ERROR_MESSAGES[verdict.error]})`,
    `input ${verdict.inputIndex} of ${tx.txidHex} (wtxid ${tx.wtxidHex}), spending ${hashToHex(input.prevout.txid)}:${input.prevout.vout}`,
  );
}
