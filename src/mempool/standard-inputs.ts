/**
 * Core's AreInputsStandard and IsWitnessStandard (policy/policy.cpp): rules on how the
 * coins a transaction spends are satisfied, checked once the spent outputs are known.
 */
import type { Transaction, TxOut } from '../primitives/index.js';
import {
  ANNEX_TAG,
  isPayToAnchor,
  isPayToScriptHash,
  MAX_SCRIPT_ELEMENT_SIZE,
  OP,
  readOp,
  scriptSigOpCount,
  solve,
  TAPROOT_LEAF_MASK,
  TAPROOT_LEAF_TAPSCRIPT,
  WITNESS_V0_SCRIPTHASH_SIZE,
  WITNESS_V1_TAPROOT_SIZE,
  witnessProgram,
} from '../script/index.js';
import {
  MAX_P2SH_SIGOPS,
  MAX_STANDARD_P2WSH_SCRIPT_SIZE,
  MAX_STANDARD_P2WSH_STACK_ITEM_SIZE,
  MAX_STANDARD_P2WSH_STACK_ITEMS,
  MAX_STANDARD_TAPSCRIPT_STACK_ITEM_SIZE,
} from './policy-limits.js';

/**
 * The stack a scriptSig leaves when evaluated without flags, for push-only scripts (the
 * only ones IsStandardTx lets through); null where Core's EvalScript would fail.
 */
function pushOnlyStack(scriptSig: Uint8Array): Uint8Array[] | null {
  const stack: Uint8Array[] = [];
  for (let pc = 0; pc < scriptSig.length; ) {
    const op = readOp(scriptSig, pc);
    if (!op) return null;
    if (op.data) {
      if (op.data.length > MAX_SCRIPT_ELEMENT_SIZE) return null;
      stack.push(op.data);
    } else if (op.opcode === OP.OP_1NEGATE) {
      stack.push(Uint8Array.of(0x81));
    } else if (op.opcode >= OP.OP_1 && op.opcode <= OP.OP_16) {
      stack.push(Uint8Array.of(op.opcode - (OP.OP_1 - 1)));
    } else {
      return null;
    }
    pc = op.end;
  }
  return stack;
}

/** The redeem script a P2SH spend reveals: the last element its scriptSig pushes. */
function redeemScript(scriptSig: Uint8Array): Uint8Array | null {
  const stack = pushOnlyStack(scriptSig);
  return stack && stack.length > 0 ? stack[stack.length - 1]! : null;
}

/** AreInputsStandard: no nonstandard or unknown-witness coins, P2SH redeem scripts within 15 sigops. */
export function areInputsStandard(tx: Transaction, spent: readonly TxOut[]): boolean {
  if (tx.isCoinbase()) return true;
  for (let i = 0; i < tx.inputs.length; i++) {
    const type = solve(spent[i]!.scriptPubKey).type;
    // Unknown witness versions are caught by script flags too; refusing early is cheaper.
    if (type === 'nonstandard' || type === 'witness_unknown') return false;
    if (type === 'scripthash') {
      const redeem = redeemScript(tx.inputs[i]!.scriptSig);
      if (!redeem) return false;
      if (scriptSigOpCount(redeem, true) > MAX_P2SH_SIGOPS) return false;
    }
  }
  return true;
}

/** IsWitnessStandard: witness only where a witness program is spent, within the P2WSH and tapscript size rules. */
export function isWitnessStandard(tx: Transaction, spent: readonly TxOut[]): boolean {
  if (tx.isCoinbase()) return true;
  for (let i = 0; i < tx.inputs.length; i++) {
    const input = tx.inputs[i]!;
    if (input.witness.length === 0) continue;
    let prevScript = spent[i]!.scriptPubKey;
    // Witness stuffing on a pay-to-anchor spend.
    if (isPayToAnchor(prevScript)) return false;
    let p2sh = false;
    if (isPayToScriptHash(prevScript)) {
      const redeem = redeemScript(input.scriptSig);
      if (!redeem) return false;
      prevScript = redeem;
      p2sh = true;
    }
    const program = witnessProgram(prevScript);
    if (!program) return false;
    if (program.version === 0 && program.program.length === WITNESS_V0_SCRIPTHASH_SIZE) {
      const stack = input.witness;
      if (stack[stack.length - 1]!.length > MAX_STANDARD_P2WSH_SCRIPT_SIZE) return false;
      if (stack.length - 1 > MAX_STANDARD_P2WSH_STACK_ITEMS) return false;
      for (let j = 0; j < stack.length - 1; j++) if (stack[j]!.length > MAX_STANDARD_P2WSH_STACK_ITEM_SIZE) return false;
    }
    if (program.version === 1 && program.program.length === WITNESS_V1_TAPROOT_SIZE && !p2sh) {
      let stack = input.witness;
      // Annexes have no meaning yet: nonstandard.
      if (stack.length >= 2 && stack[stack.length - 1]!.length > 0 && stack[stack.length - 1]![0] === ANNEX_TAG) return false;
      if (stack.length >= 2) {
        const controlBlock = stack[stack.length - 1]!;
        stack = stack.slice(0, -2);
        if (controlBlock.length === 0) return false;
        if ((controlBlock[0]! & TAPROOT_LEAF_MASK) === TAPROOT_LEAF_TAPSCRIPT) {
          for (const item of stack) if (item.length > MAX_STANDARD_TAPSCRIPT_STACK_ITEM_SIZE) return false;
        }
      } else if (stack.length === 0) {
        return false;
      }
    }
  }
  return true;
}
