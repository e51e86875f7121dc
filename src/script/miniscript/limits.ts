/**
 * The resource limits a miniscript is checked against (Core's miniscript.h constants and
 * the policy limits they are built from).
 */
import { MAX_OPS_PER_SCRIPT, MAX_STACK_SIZE, TAPROOT_CONTROL_MAX_SIZE } from '../limits.js';
import type { MiniscriptContext } from './fragment.js';

export { MAX_OPS_PER_SCRIPT, MAX_STACK_SIZE };

/** Policy: a P2WSH witness script of at most 3600 bytes. */
export const MAX_STANDARD_P2WSH_SCRIPT_SIZE = 3600;
/** Policy: at most 100 witness stack items below a P2WSH witness script. */
export const MAX_STANDARD_P2WSH_STACK_ITEMS = 100;
/** BIP342's limit on CHECKSIGADD keys, from the 1000-element stack. */
export const MAX_PUBKEYS_PER_MULTI_A = 999;

const MAX_STANDARD_TX_WEIGHT = 400000;
const WITNESS_SCALE_FACTOR = 4;
/** A BIP340 signature with a sighash byte: the largest witness item a tapscript miniscript needs. */
const MAX_TAPMINISCRIPT_STACK_ELEM_SIZE = 65;

function compactSizeLength(n: number): number {
  return n < 253 ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

/** Version and locktime, one input without witness, one P2WSH output, counts and the segwit marker. */
const TX_BODY_LEEWAY_WEIGHT = (4 + 4 + 1 + (36 + 4 + 1) + 1 + (8 + 1 + 1 + 33)) * WITNESS_SCALE_FACTOR + 2;
const MAX_TAPSCRIPT_SAT_SIZE =
  compactSizeLength(MAX_STACK_SIZE) +
  (compactSizeLength(MAX_TAPMINISCRIPT_STACK_ELEM_SIZE) + MAX_TAPMINISCRIPT_STACK_ELEM_SIZE) * MAX_STACK_SIZE +
  compactSizeLength(TAPROOT_CONTROL_MAX_SIZE) +
  TAPROOT_CONTROL_MAX_SIZE;

/**
 * Core's MaxScriptSize: 3600 bytes in P2WSH; in Tapscript, what still leaves room for a
 * maximal witness and a small spending transaction within the standard weight.
 */
export function maxScriptSize(ctx: MiniscriptContext): number {
  if (ctx === 'p2wsh') return MAX_STANDARD_P2WSH_SCRIPT_SIZE;
  const maxSize = MAX_STANDARD_TX_WEIGHT - TX_BODY_LEEWAY_WEIGHT - MAX_TAPSCRIPT_SAT_SIZE;
  return maxSize - compactSizeLength(maxSize);
}
