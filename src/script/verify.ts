/**
 * Script verification of one input (Core's VerifyScript and VerifyWitnessProgram):
 * scriptSig then scriptPubKey on one stack, P2SH, segwit v0, taproot key and script
 * paths, and the rules that tie them together (malleation, cleanstack, unexpected witness).
 */
import { bytesEqual, ByteWriter, sha256, type Transaction, type TxOut } from '../primitives/index.js';
import { SigVersion, TransactionSignatureChecker, type SignatureChecker, type SignatureCheckOptions } from './checker.js';
import { ScriptError } from './errors.js';
import { VerifyFlags } from './flags.js';
import { evalP2wpkh, evalScript, newExecutionData, type ExecutionData } from './interpreter.js';
import {
  ANNEX_TAG,
  MAX_SCRIPT_ELEMENT_SIZE,
  MAX_STACK_SIZE,
  TAPROOT_CONTROL_BASE_SIZE,
  TAPROOT_CONTROL_MAX_SIZE,
  TAPROOT_CONTROL_NODE_SIZE,
  TAPROOT_LEAF_MASK,
  TAPROOT_LEAF_TAPSCRIPT,
  VALIDATION_WEIGHT_OFFSET,
  WITNESS_V0_KEYHASH_SIZE,
  WITNESS_V0_SCRIPTHASH_SIZE,
  WITNESS_V1_TAPROOT_SIZE,
} from './limits.js';
import { isOpSuccess, OP } from './opcodes.js';
import { isPayToScriptHash, isPushOnly, pushData, readOp, witnessProgram } from './parse.js';
import { castToBool } from './scriptnum.js';
import { PrecomputedTransactionData } from './sighash.js';
import { signatureBackend } from './secp256k1.js';
import { controlBlockMerkleRoot, tapleafHash, taptweakHash } from './tapleaf.js';

/** Core's CScript::IsPayToAnchor: OP_1 <0x4e73>, the keyless anchor output. */
function isPayToAnchor(version: number, program: Uint8Array): boolean {
  return version === 1 && program.length === 2 && program[0] === 0x4e && program[1] === 0x73;
}

function witnessSerializedSize(witness: readonly Uint8Array[]): number {
  const w = new ByteWriter(16);
  w.compactSize(witness.length);
  let size = w.length;
  for (const item of witness) size += compactSizeBytes(item.length) + item.length;
  return size;
}

function compactSizeBytes(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

function executeWitnessScript(
  stackIn: readonly Uint8Array[],
  script: Uint8Array,
  flags: number,
  sigversion: SigVersion,
  checker: SignatureChecker,
  execdata: ExecutionData,
): ScriptError {
  const stack = stackIn.slice();
  if (sigversion === SigVersion.TAPSCRIPT) {
    // OP_SUCCESSx anywhere in the script overrides everything, even size limits.
    for (let pc = 0; pc < script.length; ) {
      const op = readOp(script, pc);
      if (!op) return ScriptError.BAD_OPCODE;
      if (isOpSuccess(op.opcode)) {
        return (flags & VerifyFlags.DISCOURAGE_OP_SUCCESS) !== 0 ? ScriptError.DISCOURAGE_OP_SUCCESS : ScriptError.OK;
      }
      pc = op.end;
    }
    if (stack.length > MAX_STACK_SIZE) return ScriptError.STACK_SIZE;
  }
  for (const item of stack) if (item.length > MAX_SCRIPT_ELEMENT_SIZE) return ScriptError.PUSH_SIZE;
  const error = evalScript(stack, script, flags, checker, sigversion, execdata);
  if (error !== ScriptError.OK) return error;
  // Witness scripts must leave exactly one true element.
  if (stack.length !== 1) return ScriptError.CLEANSTACK;
  if (!castToBool(stack[0]!)) return ScriptError.EVAL_FALSE;
  return ScriptError.OK;
}

function verifyWitnessProgram(
  witness: readonly Uint8Array[],
  version: number,
  program: Uint8Array,
  flags: number,
  checker: SignatureChecker,
  isP2sh: boolean,
): ScriptError {
  const execdata = newExecutionData();
  if (version === 0) {
    if (program.length === WITNESS_V0_SCRIPTHASH_SIZE) {
      if (witness.length === 0) return ScriptError.WITNESS_PROGRAM_WITNESS_EMPTY;
      const script = witness[witness.length - 1]!;
      if (!bytesEqual(sha256(script), program)) return ScriptError.WITNESS_PROGRAM_MISMATCH;
      return executeWitnessScript(witness.slice(0, -1), script, flags, SigVersion.WITNESS_V0, checker, execdata);
    }
    if (program.length === WITNESS_V0_KEYHASH_SIZE) {
      if (witness.length !== 2) return ScriptError.WITNESS_PROGRAM_MISMATCH;
      const script = new Uint8Array(25);
      script.set([OP.OP_DUP, OP.OP_HASH160, 20], 0);
      script.set(program, 3);
      script.set([OP.OP_EQUALVERIFY, OP.OP_CHECKSIG], 23);
      // ExecuteWitnessScript's size rule, then the script's only outcomes without the interpreter loop.
      for (const item of witness) if (item.length > MAX_SCRIPT_ELEMENT_SIZE) return ScriptError.PUSH_SIZE;
      return evalP2wpkh(witness[0]!, witness[1]!, program, script, flags, checker);
    }
    return ScriptError.WITNESS_PROGRAM_WRONG_LENGTH;
  }

  if (version === 1 && program.length === WITNESS_V1_TAPROOT_SIZE && !isP2sh) {
    if ((flags & VerifyFlags.TAPROOT) === 0) return ScriptError.OK;
    if (witness.length === 0) return ScriptError.WITNESS_PROGRAM_WITNESS_EMPTY;
    let stack = witness;
    const last = stack[stack.length - 1]!;
    if (stack.length >= 2 && last.length > 0 && last[0] === ANNEX_TAG) {
      execdata.annexHash = sha256(pushLengthPrefixed(last));
      stack = stack.slice(0, -1);
    }
    if (stack.length === 1) {
      return checker.checkSchnorrSignature(stack[0]!, program, SigVersion.TAPROOT, execdata);
    }
    const control = stack[stack.length - 1]!;
    const script = stack[stack.length - 2]!;
    if (
      control.length < TAPROOT_CONTROL_BASE_SIZE ||
      control.length > TAPROOT_CONTROL_MAX_SIZE ||
      (control.length - TAPROOT_CONTROL_BASE_SIZE) % TAPROOT_CONTROL_NODE_SIZE !== 0
    ) {
      return ScriptError.TAPROOT_WRONG_CONTROL_SIZE;
    }
    const leafVersion = control[0]! & TAPROOT_LEAF_MASK;
    execdata.tapleafHash = tapleafHash(leafVersion, script);
    const merkleRoot = controlBlockMerkleRoot(control, execdata.tapleafHash);
    const internalKey = control.subarray(1, TAPROOT_CONTROL_BASE_SIZE);
    if (!signatureBackend().checkTapTweak(internalKey, taptweakHash(internalKey, merkleRoot), program, control[0]! & 1)) {
      return ScriptError.WITNESS_PROGRAM_MISMATCH;
    }
    if (leafVersion === TAPROOT_LEAF_TAPSCRIPT) {
      execdata.validationWeightLeft = witnessSerializedSize(witness) + VALIDATION_WEIGHT_OFFSET;
      return executeWitnessScript(stack.slice(0, -2), script, flags, SigVersion.TAPSCRIPT, checker, execdata);
    }
    if ((flags & VerifyFlags.DISCOURAGE_UPGRADABLE_TAPROOT_VERSION) !== 0) return ScriptError.DISCOURAGE_UPGRADABLE_TAPROOT_VERSION;
    return ScriptError.OK;
  }

  if (!isP2sh && isPayToAnchor(version, program)) return ScriptError.OK;
  if ((flags & VerifyFlags.DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM) !== 0) return ScriptError.DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM;
  // Unknown versions and sizes stay anyone-can-spend for future soft forks.
  return ScriptError.OK;
}

/** CompactSize length followed by the bytes: how the annex is hashed. */
function pushLengthPrefixed(data: Uint8Array): Uint8Array {
  return new ByteWriter(data.length + 9).varBytes(data).finish();
}

/** Core's VerifyScript. */
export function verifyScript(
  scriptSig: Uint8Array,
  scriptPubKey: Uint8Array,
  witness: readonly Uint8Array[],
  flags: number,
  checker: SignatureChecker,
): ScriptError {
  if ((flags & VerifyFlags.SIGPUSHONLY) !== 0 && !isPushOnly(scriptSig)) return ScriptError.SIG_PUSHONLY;

  // scriptSig and scriptPubKey run in sequence on one stack, never concatenated (CVE-2010-5141).
  let stack: Uint8Array[] = [];
  let error = evalScript(stack, scriptSig, flags, checker, SigVersion.BASE);
  if (error !== ScriptError.OK) return error;
  const stackCopy = (flags & VerifyFlags.P2SH) !== 0 ? stack.slice() : [];
  error = evalScript(stack, scriptPubKey, flags, checker, SigVersion.BASE);
  if (error !== ScriptError.OK) return error;
  if (stack.length === 0 || !castToBool(stack[stack.length - 1]!)) return ScriptError.EVAL_FALSE;

  let hadWitness = false;
  if ((flags & VerifyFlags.WITNESS) !== 0) {
    const wp = witnessProgram(scriptPubKey);
    if (wp) {
      hadWitness = true;
      // Anything in scriptSig would reintroduce malleability.
      if (scriptSig.length !== 0) return ScriptError.WITNESS_MALLEATED;
      error = verifyWitnessProgram(witness, wp.version, wp.program, flags, checker, false);
      if (error !== ScriptError.OK) return error;
      stack = stack.slice(0, 1);
    }
  }

  if ((flags & VerifyFlags.P2SH) !== 0 && isPayToScriptHash(scriptPubKey)) {
    if (!isPushOnly(scriptSig)) return ScriptError.SIG_PUSHONLY;
    stack = stackCopy;
    const redeemScript = stack.pop()!;
    error = evalScript(stack, redeemScript, flags, checker, SigVersion.BASE);
    if (error !== ScriptError.OK) return error;
    if (stack.length === 0 || !castToBool(stack[stack.length - 1]!)) return ScriptError.EVAL_FALSE;

    if ((flags & VerifyFlags.WITNESS) !== 0) {
      const wp = witnessProgram(redeemScript);
      if (wp) {
        hadWitness = true;
        // The scriptSig must be exactly one push of the redeem script.
        if (!bytesEqual(scriptSig, pushData(redeemScript))) return ScriptError.WITNESS_MALLEATED_P2SH;
        error = verifyWitnessProgram(witness, wp.version, wp.program, flags, checker, true);
        if (error !== ScriptError.OK) return error;
        stack = stack.slice(0, 1);
      }
    }
  }

  // Only after P2SH and witness evaluation: their own stacks are legitimately not clean.
  if ((flags & VerifyFlags.CLEANSTACK) !== 0 && stack.length !== 1) return ScriptError.CLEANSTACK;

  if ((flags & VerifyFlags.WITNESS) !== 0 && !hadWitness && witness.length > 0) return ScriptError.WITNESS_UNEXPECTED;

  return ScriptError.OK;
}

/**
 * Verifies input `inputIndex` of `tx` against the outputs it spends (one per input, all of
 * them: taproot signatures commit to every spent amount and script). `signatures` brings the
 * signature cache and counters.
 */
export function verifyInput(
  tx: Transaction,
  inputIndex: number,
  spentOutputs: readonly TxOut[],
  flags: number,
  txdata: PrecomputedTransactionData = new PrecomputedTransactionData(tx, spentOutputs),
  signatures: SignatureCheckOptions = {},
): ScriptError {
  const input = tx.inputs[inputIndex];
  const spent = spentOutputs[inputIndex];
  if (!input || !spent) return ScriptError.UNKNOWN_ERROR;
  const checker = new TransactionSignatureChecker(tx, inputIndex, spent.value, txdata, signatures);
  return verifyScript(input.scriptSig, spent.scriptPubKey, input.witness, flags, checker);
}
