/**
 * Core's IsStandardTx and dust rules (policy/policy.cpp, v31): what a transaction must
 * look like on its own, before any coin is looked up, to be relayed and mined by default.
 * Returns Core's reject reason, or null when the transaction is standard.
 */
import type { Transaction, TxOut } from '../primitives/index.js';
import { isPushOnly, isUnspendable, solve, witnessProgram } from '../script/index.js';
import { feeForSize } from './fee-rate.js';
import { MAX_DUST_OUTPUTS_PER_TX, MAX_STANDARD_SCRIPTSIG_SIZE, MAX_STANDARD_TX_WEIGHT, TX_MAX_STANDARD_VERSION } from './policy-limits.js';
import type { MempoolPolicyOptions } from './policy-options.js';

function compactSizeLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

/**
 * GetDustThreshold: what spending the output would cost at the dust relay rate. The
 * spend is sized as a P2WPKH input for witness programs, a P2PKH input otherwise.
 */
export function dustThreshold(output: TxOut, dustRelayFee: bigint): bigint {
  if (isUnspendable(output.scriptPubKey)) return 0n;
  const script = output.scriptPubKey;
  let size = 8 + compactSizeLength(script.length) + script.length;
  size += witnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return feeForSize(dustRelayFee, size);
}

export function isDust(output: TxOut, dustRelayFee: bigint): boolean {
  return output.value < dustThreshold(output, dustRelayFee);
}

/** GetDust: the indexes of the dust outputs. */
export function dustOutputs(tx: Transaction, dustRelayFee: bigint): number[] {
  const found: number[] = [];
  tx.outputs.forEach((output, i) => {
    if (isDust(output, dustRelayFee)) found.push(i);
  });
  return found;
}

/** Core's IsStandard for one scriptPubKey: a known template, bare multisig at most x-of-3. */
function standardOutputType(script: Uint8Array): ReturnType<typeof solve> | null {
  const solution = solve(script);
  if (solution.type === 'nonstandard') return null;
  if (solution.type === 'multisig') {
    const n = solution.pubkeys.length;
    if (n < 1 || n > 3 || solution.required < 1 || solution.required > n) return null;
  }
  return solution;
}

export function isStandardTx(tx: Transaction, policy: MempoolPolicyOptions): string | null {
  if (tx.version > TX_MAX_STANDARD_VERSION || tx.version < 1) return 'version';
  // Signature hashing is O(inputs × size): the weight bound keeps that in check.
  if (tx.weight > MAX_STANDARD_TX_WEIGHT) return 'tx-size';
  for (const input of tx.inputs) {
    if (input.scriptSig.length > MAX_STANDARD_SCRIPTSIG_SIZE) return 'scriptsig-size';
    if (!isPushOnly(input.scriptSig)) return 'scriptsig-not-pushonly';
  }
  // v30+: OP_RETURN outputs share one budget of -datacarriersize bytes of scriptPubKey.
  let dataCarrierLeft = policy.maxDataCarrierBytes;
  for (const output of tx.outputs) {
    const solution = standardOutputType(output.scriptPubKey);
    if (!solution) return 'scriptpubkey';
    if (solution.type === 'nulldata') {
      if (output.scriptPubKey.length > dataCarrierLeft) return 'datacarrier';
      dataCarrierLeft -= output.scriptPubKey.length;
    } else if (solution.type === 'multisig' && !policy.permitBareMultisig) {
      return 'bare-multisig';
    }
  }
  if (dustOutputs(tx, policy.dustRelayFee).length > MAX_DUST_OUTPUTS_PER_TX) return 'dust';
  return null;
}
