/**
 * The script interpreter: Core's EvalScript, opcode for opcode, for the three script
 * contexts that execute (legacy/P2SH, witness v0, tapscript). Errors are returned as
 * Core's error names, never thrown; a script-number failure inside an opcode ends the
 * script with SCRIPTNUM (Core's catch-all; see errors.ts).
 */
import { bytesEqual, hash160, ripemd160, sha1, sha256, sha256d, EMPTY_BYTES } from '../primitives/index.js';
import { SigVersion, SEQUENCE_LOCKTIME_DISABLE_FLAG, type SignatureChecker } from './checker.js';
import { isValidSignatureEncoding, parseDerLax } from './der.js';
import { ScriptError } from './errors.js';
import { VerifyFlags } from './flags.js';
import {
  MAX_OPS_PER_SCRIPT,
  MAX_PUBKEYS_PER_MULTISIG,
  MAX_SCRIPT_ELEMENT_SIZE,
  MAX_SCRIPT_SIZE,
  MAX_STACK_SIZE,
  VALIDATION_WEIGHT_PER_SIGOP_PASSED,
} from './limits.js';
import { OP } from './opcodes.js';
import { isMinimalPush, pushData, readOp } from './parse.js';
import { castToBool, decodeScriptNum, encodeScriptNum, ScriptNumError } from './scriptnum.js';
import type { TaprootExecutionContext } from './sighash.js';

/** Per-script-execution state that signature hashes commit to (Core's ScriptExecutionData). */
export interface ExecutionData extends TaprootExecutionContext {
  /** Remaining BIP342 validation weight; only meaningful in tapscript. */
  validationWeightLeft: number;
}

export function newExecutionData(): ExecutionData {
  return { annexHash: undefined, validationWeightLeft: 0, codeseparatorPosition: 0xffffffff };
}

const VCH_FALSE = EMPTY_BYTES;
const VCH_TRUE = Uint8Array.of(1);
const HALF_ORDER = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

/** Thrown inside evaluation to end it with a specific error; caught at the top of evalScript. */
class ScriptFailure {
  constructor(readonly error: ScriptError) {}
}

function fail(error: ScriptError): never {
  throw new ScriptFailure(error);
}

function isDisabledOpcode(opcode: number): boolean {
  switch (opcode) {
    case OP.OP_CAT:
    case OP.OP_SUBSTR:
    case OP.OP_LEFT:
    case OP.OP_RIGHT:
    case OP.OP_INVERT:
    case OP.OP_AND:
    case OP.OP_OR:
    case OP.OP_XOR:
    case OP.OP_2MUL:
    case OP.OP_2DIV:
    case OP.OP_MUL:
    case OP.OP_DIV:
    case OP.OP_MOD:
    case OP.OP_LSHIFT:
    case OP.OP_RSHIFT:
      return true;
    default:
      return false;
  }
}

/** Core's FindAndDelete: removes every occurrence of `pattern` that starts at an opcode boundary. */
export function findAndDelete(script: Uint8Array, pattern: Uint8Array): { script: Uint8Array; found: number } {
  if (pattern.length === 0) return { script, found: 0 };
  let found = 0;
  const kept: number[] = [];
  let pc = 0;
  let copyFrom = 0;
  for (;;) {
    for (let i = copyFrom; i < pc; i++) kept.push(script[i]!);
    while (script.length - pc >= pattern.length && bytesEqual(script.subarray(pc, pc + pattern.length), pattern)) {
      pc += pattern.length;
      found++;
    }
    copyFrom = pc;
    if (pc >= script.length) break;
    const op = readOp(script, pc);
    if (!op) break;
    pc = op.end;
  }
  if (found === 0) return { script, found: 0 };
  for (let i = copyFrom; i < script.length; i++) kept.push(script[i]!);
  return { script: Uint8Array.from(kept), found };
}

/** Core's IsLowDERSignature, assuming strict DER was already checked. */
function isLowDerSignature(sig: Uint8Array): boolean {
  const parsed = parseDerLax(sig.subarray(0, sig.length - 1));
  if (!parsed) return false;
  let s = 0n;
  for (let i = 32; i < 64; i++) s = (s << 8n) | BigInt(parsed.bytes[i]!);
  return s <= HALF_ORDER;
}

function isDefinedHashtypeSignature(sig: Uint8Array): boolean {
  if (sig.length === 0) return false;
  const hashType = sig[sig.length - 1]! & ~0x80;
  return hashType >= 1 && hashType <= 3;
}

/** Core's CheckSignatureEncoding; an empty signature is always allowed (a compact invalid signature). */
function checkSignatureEncoding(sig: Uint8Array, flags: number): void {
  if (sig.length === 0) return;
  if ((flags & (VerifyFlags.DERSIG | VerifyFlags.LOW_S | VerifyFlags.STRICTENC)) !== 0 && !isValidSignatureEncoding(sig)) {
    fail(ScriptError.SIG_DER);
  }
  if ((flags & VerifyFlags.LOW_S) !== 0) {
    if (!isValidSignatureEncoding(sig)) fail(ScriptError.SIG_DER);
    if (!isLowDerSignature(sig)) fail(ScriptError.SIG_HIGH_S);
  }
  if ((flags & VerifyFlags.STRICTENC) !== 0 && !isDefinedHashtypeSignature(sig)) fail(ScriptError.SIG_HASHTYPE);
}

function isCompressedOrUncompressedPubKey(key: Uint8Array): boolean {
  if (key.length < 33) return false;
  if (key[0] === 0x04) return key.length === 65;
  if (key[0] === 0x02 || key[0] === 0x03) return key.length === 33;
  return false;
}

function isCompressedPubKey(key: Uint8Array): boolean {
  return key.length === 33 && (key[0] === 0x02 || key[0] === 0x03);
}

function checkPubKeyEncoding(key: Uint8Array, flags: number, sigversion: SigVersion): void {
  if ((flags & VerifyFlags.STRICTENC) !== 0 && !isCompressedOrUncompressedPubKey(key)) fail(ScriptError.PUBKEYTYPE);
  if ((flags & VerifyFlags.WITNESS_PUBKEYTYPE) !== 0 && sigversion === SigVersion.WITNESS_V0 && !isCompressedPubKey(key)) {
    fail(ScriptError.WITNESS_PUBKEYTYPE);
  }
}

function checksigPreTapscript(
  sig: Uint8Array,
  pubkey: Uint8Array,
  scriptCodeIn: Uint8Array,
  flags: number,
  checker: SignatureChecker,
  sigversion: SigVersion,
): boolean {
  let scriptCode = scriptCodeIn;
  if (sigversion === SigVersion.BASE) {
    // Pre-segwit signatures cannot sign themselves: remove them from the scriptCode.
    const deleted = findAndDelete(scriptCode, pushData(sig));
    if (deleted.found > 0 && (flags & VerifyFlags.CONST_SCRIPTCODE) !== 0) fail(ScriptError.SIG_FINDANDDELETE);
    scriptCode = deleted.script;
  }
  checkSignatureEncoding(sig, flags);
  checkPubKeyEncoding(pubkey, flags, sigversion);
  const success = checker.checkEcdsaSignature(sig, pubkey, scriptCode, sigversion);
  if (!success && (flags & VerifyFlags.NULLFAIL) !== 0 && sig.length > 0) fail(ScriptError.NULLFAIL);
  return success;
}

/** BIP342 signature checking; the order of these rules is consensus-critical. */
function checksigTapscript(
  sig: Uint8Array,
  pubkey: Uint8Array,
  execdata: ExecutionData,
  flags: number,
  checker: SignatureChecker,
): boolean {
  const success = sig.length > 0;
  if (success) {
    execdata.validationWeightLeft -= VALIDATION_WEIGHT_PER_SIGOP_PASSED;
    if (execdata.validationWeightLeft < 0) fail(ScriptError.TAPSCRIPT_VALIDATION_WEIGHT);
  }
  if (pubkey.length === 0) fail(ScriptError.TAPSCRIPT_EMPTY_PUBKEY);
  if (pubkey.length === 32) {
    if (success) {
      const error = checker.checkSchnorrSignature(sig, pubkey, SigVersion.TAPSCRIPT, execdata);
      if (error !== ScriptError.OK) fail(error);
    }
  } else if ((flags & VerifyFlags.DISCOURAGE_UPGRADABLE_PUBKEYTYPE) !== 0) {
    fail(ScriptError.DISCOURAGE_UPGRADABLE_PUBKEYTYPE);
  }
  return success;
}

/**
 * What evalScript gives for a P2WPKH spend, without interpreting the script: Core runs
 * `DUP HASH160 <program> EQUALVERIFY CHECKSIG` on the two witness items, and on that
 * script only three things can happen, checked here in the interpreter's order with its
 * own helpers: the key hash differs (EQUALVERIFY), CHECKSIG fails an encoding rule or
 * NULLFAIL, or CHECKSIG pushes its result (true: OK; false: the one element left is false,
 * EVAL_FALSE). `scriptCode` is that script, which the signature hash commits to. The
 * witness items' size limit is the caller's check, as in ExecuteWitnessScript.
 */
export function evalP2wpkh(sig: Uint8Array, pubkey: Uint8Array, program: Uint8Array, scriptCode: Uint8Array, flags: number, checker: SignatureChecker): ScriptError {
  if (!bytesEqual(hash160(pubkey), program)) return ScriptError.EQUALVERIFY;
  try {
    return checksigPreTapscript(sig, pubkey, scriptCode, flags, checker, SigVersion.WITNESS_V0) ? ScriptError.OK : ScriptError.EVAL_FALSE;
  } catch (err) {
    if (err instanceof ScriptFailure) return err.error;
    throw err;
  }
}

/**
 * Evaluates `script` on `stack` (mutated in place). Returns OK or the error the script
 * ends with. `execdata` carries tapscript state in and codeseparator positions out.
 */
export function evalScript(
  stack: Uint8Array[],
  script: Uint8Array,
  flags: number,
  checker: SignatureChecker,
  sigversion: SigVersion,
  execdata: ExecutionData = newExecutionData(),
): ScriptError {
  try {
    run(stack, script, flags, checker, sigversion, execdata);
    return ScriptError.OK;
  } catch (err) {
    if (err instanceof ScriptFailure) return err.error;
    if (err instanceof ScriptNumError) return ScriptError.SCRIPTNUM;
    throw err;
  }
}

function run(
  stack: Uint8Array[],
  script: Uint8Array,
  flags: number,
  checker: SignatureChecker,
  sigversion: SigVersion,
  execdata: ExecutionData,
): void {
  const legacyOrV0 = sigversion === SigVersion.BASE || sigversion === SigVersion.WITNESS_V0;
  if (legacyOrV0 && script.length > MAX_SCRIPT_SIZE) fail(ScriptError.SCRIPT_SIZE);
  const requireMinimal = (flags & VerifyFlags.MINIMALDATA) !== 0;
  const altstack: Uint8Array[] = [];
  // Core's ConditionStack: how many entries, and where the first false one is.
  let conditionDepth = 0;
  let firstFalse = -1;
  let opCount = 0;
  let beginCodeHash = 0;
  let opcodePosition = 0;
  execdata.codeseparatorPosition = 0xffffffff;

  const top = (i: number): Uint8Array => stack[stack.length + i]!;
  const need = (n: number): void => {
    if (stack.length < n) fail(ScriptError.INVALID_STACK_OPERATION);
  };
  const num = (bytes: Uint8Array, maxSize = 4): number => decodeScriptNum(bytes, requireMinimal, maxSize);

  let pc = 0;
  for (; pc < script.length; opcodePosition++) {
    const executing = firstFalse < 0;
    const op = readOp(script, pc);
    if (!op) fail(ScriptError.BAD_OPCODE);
    pc = op.end;
    const opcode = op.opcode;
    if (op.data && op.data.length > MAX_SCRIPT_ELEMENT_SIZE) fail(ScriptError.PUSH_SIZE);

    // OP_RESERVED and pushes do not count towards the opcode limit.
    if (legacyOrV0 && opcode > OP.OP_16 && ++opCount > MAX_OPS_PER_SCRIPT) fail(ScriptError.OP_COUNT);
    // Disabled opcodes fail even in unexecuted branches (CVE-2010-5137).
    if (isDisabledOpcode(opcode)) fail(ScriptError.DISABLED_OPCODE);
    if (opcode === OP.OP_CODESEPARATOR && sigversion === SigVersion.BASE && (flags & VerifyFlags.CONST_SCRIPTCODE) !== 0) {
      fail(ScriptError.OP_CODESEPARATOR);
    }

    if (executing && opcode <= OP.OP_PUSHDATA4) {
      if (requireMinimal && !isMinimalPush(op.data!, opcode)) fail(ScriptError.MINIMALDATA);
      stack.push(op.data!);
    } else if (executing || (opcode >= OP.OP_IF && opcode <= OP.OP_ENDIF)) {
      switch (opcode) {
        case OP.OP_1NEGATE:
        case OP.OP_1:
        case OP.OP_2:
        case OP.OP_3:
        case OP.OP_4:
        case OP.OP_5:
        case OP.OP_6:
        case OP.OP_7:
        case OP.OP_8:
        case OP.OP_9:
        case OP.OP_10:
        case OP.OP_11:
        case OP.OP_12:
        case OP.OP_13:
        case OP.OP_14:
        case OP.OP_15:
        case OP.OP_16:
          stack.push(encodeScriptNum(opcode - (OP.OP_1 - 1)));
          break;

        case OP.OP_NOP:
          break;

        case OP.OP_CHECKLOCKTIMEVERIFY: {
          if ((flags & VerifyFlags.CHECKLOCKTIMEVERIFY) === 0) break; // NOP2 before BIP65
          need(1);
          // Five bytes: lock times are uint32, beyond CScriptNum's usual four.
          const lockTime = num(top(-1), 5);
          if (lockTime < 0) fail(ScriptError.NEGATIVE_LOCKTIME);
          if (!checker.checkLockTime(lockTime)) fail(ScriptError.UNSATISFIED_LOCKTIME);
          break;
        }

        case OP.OP_CHECKSEQUENCEVERIFY: {
          if ((flags & VerifyFlags.CHECKSEQUENCEVERIFY) === 0) break; // NOP3 before BIP112
          need(1);
          const sequence = num(top(-1), 5);
          if (sequence < 0) fail(ScriptError.NEGATIVE_LOCKTIME);
          // The disable flag keeps the opcode a NOP, for future soft forks.
          if ((sequence & SEQUENCE_LOCKTIME_DISABLE_FLAG) !== 0) break;
          if (!checker.checkSequence(sequence)) fail(ScriptError.UNSATISFIED_LOCKTIME);
          break;
        }

        case OP.OP_NOP1:
        case OP.OP_NOP4:
        case OP.OP_NOP5:
        case OP.OP_NOP6:
        case OP.OP_NOP7:
        case OP.OP_NOP8:
        case OP.OP_NOP9:
        case OP.OP_NOP10:
          if ((flags & VerifyFlags.DISCOURAGE_UPGRADABLE_NOPS) !== 0) fail(ScriptError.DISCOURAGE_UPGRADABLE_NOPS);
          break;

        case OP.OP_IF:
        case OP.OP_NOTIF: {
          let value = false;
          if (executing) {
            // Core once reported UNBALANCED_CONDITIONAL here; script_tests.json (Core master,
            // 2026-07) expects INVALID_STACK_OPERATION. Either way the script fails.
            if (stack.length < 1) fail(ScriptError.INVALID_STACK_OPERATION);
            const vch = top(-1);
            if (sigversion === SigVersion.TAPSCRIPT) {
              // BIP342 makes minimal IF arguments consensus.
              if (vch.length > 1 || (vch.length === 1 && vch[0] !== 1)) fail(ScriptError.TAPSCRIPT_MINIMALIF);
            }
            if (sigversion === SigVersion.WITNESS_V0 && (flags & VerifyFlags.MINIMALIF) !== 0) {
              if (vch.length > 1 || (vch.length === 1 && vch[0] !== 1)) fail(ScriptError.MINIMALIF);
            }
            value = castToBool(vch);
            if (opcode === OP.OP_NOTIF) value = !value;
            stack.pop();
          }
          if (!value && firstFalse < 0) firstFalse = conditionDepth;
          conditionDepth++;
          break;
        }

        case OP.OP_ELSE:
          if (conditionDepth === 0) fail(ScriptError.UNBALANCED_CONDITIONAL);
          // Toggle the top entry: it becomes false if all were true, true if it was the first false.
          if (firstFalse < 0) firstFalse = conditionDepth - 1;
          else if (firstFalse === conditionDepth - 1) firstFalse = -1;
          break;

        case OP.OP_ENDIF:
          if (conditionDepth === 0) fail(ScriptError.UNBALANCED_CONDITIONAL);
          conditionDepth--;
          if (firstFalse === conditionDepth) firstFalse = -1;
          break;

        case OP.OP_VERIFY:
          need(1);
          if (!castToBool(top(-1))) fail(ScriptError.VERIFY);
          stack.pop();
          break;

        case OP.OP_RETURN:
          fail(ScriptError.OP_RETURN);

        case OP.OP_TOALTSTACK:
          need(1);
          altstack.push(stack.pop()!);
          break;

        case OP.OP_FROMALTSTACK:
          if (altstack.length < 1) fail(ScriptError.INVALID_ALTSTACK_OPERATION);
          stack.push(altstack.pop()!);
          break;

        case OP.OP_2DROP:
          need(2);
          stack.pop();
          stack.pop();
          break;

        case OP.OP_2DUP: {
          need(2);
          const a = top(-2);
          const b = top(-1);
          stack.push(a, b);
          break;
        }

        case OP.OP_3DUP: {
          need(3);
          const a = top(-3);
          const b = top(-2);
          const c = top(-1);
          stack.push(a, b, c);
          break;
        }

        case OP.OP_2OVER: {
          need(4);
          const a = top(-4);
          const b = top(-3);
          stack.push(a, b);
          break;
        }

        case OP.OP_2ROT: {
          need(6);
          const moved = stack.splice(stack.length - 6, 2);
          stack.push(moved[0]!, moved[1]!);
          break;
        }

        case OP.OP_2SWAP: {
          need(4);
          const n = stack.length;
          [stack[n - 4], stack[n - 2]] = [stack[n - 2]!, stack[n - 4]!];
          [stack[n - 3], stack[n - 1]] = [stack[n - 1]!, stack[n - 3]!];
          break;
        }

        case OP.OP_IFDUP:
          need(1);
          if (castToBool(top(-1))) stack.push(top(-1));
          break;

        case OP.OP_DEPTH:
          stack.push(encodeScriptNum(stack.length));
          break;

        case OP.OP_DROP:
          need(1);
          stack.pop();
          break;

        case OP.OP_DUP:
          need(1);
          stack.push(top(-1));
          break;

        case OP.OP_NIP:
          need(2);
          stack.splice(stack.length - 2, 1);
          break;

        case OP.OP_OVER:
          need(2);
          stack.push(top(-2));
          break;

        case OP.OP_PICK:
        case OP.OP_ROLL: {
          need(2);
          const n = num(top(-1));
          stack.pop();
          if (n < 0 || n >= stack.length) fail(ScriptError.INVALID_STACK_OPERATION);
          const value = top(-n - 1);
          if (opcode === OP.OP_ROLL) stack.splice(stack.length - n - 1, 1);
          stack.push(value);
          break;
        }

        case OP.OP_ROT: {
          need(3);
          const n = stack.length;
          [stack[n - 3], stack[n - 2]] = [stack[n - 2]!, stack[n - 3]!];
          [stack[n - 2], stack[n - 1]] = [stack[n - 1]!, stack[n - 2]!];
          break;
        }

        case OP.OP_SWAP: {
          need(2);
          const n = stack.length;
          [stack[n - 2], stack[n - 1]] = [stack[n - 1]!, stack[n - 2]!];
          break;
        }

        case OP.OP_TUCK:
          need(2);
          stack.splice(stack.length - 2, 0, top(-1));
          break;

        case OP.OP_SIZE:
          need(1);
          stack.push(encodeScriptNum(top(-1).length));
          break;

        case OP.OP_EQUAL:
        case OP.OP_EQUALVERIFY: {
          need(2);
          const equal = bytesEqual(top(-2), top(-1));
          stack.pop();
          stack.pop();
          stack.push(equal ? VCH_TRUE : VCH_FALSE);
          if (opcode === OP.OP_EQUALVERIFY) {
            if (!equal) fail(ScriptError.EQUALVERIFY);
            stack.pop();
          }
          break;
        }

        case OP.OP_1ADD:
        case OP.OP_1SUB:
        case OP.OP_NEGATE:
        case OP.OP_ABS:
        case OP.OP_NOT:
        case OP.OP_0NOTEQUAL: {
          need(1);
          let bn = num(top(-1));
          switch (opcode) {
            case OP.OP_1ADD:
              bn += 1;
              break;
            case OP.OP_1SUB:
              bn -= 1;
              break;
            case OP.OP_NEGATE:
              bn = -bn;
              break;
            case OP.OP_ABS:
              if (bn < 0) bn = -bn;
              break;
            case OP.OP_NOT:
              bn = bn === 0 ? 1 : 0;
              break;
            case OP.OP_0NOTEQUAL:
              bn = bn !== 0 ? 1 : 0;
              break;
          }
          stack.pop();
          stack.push(encodeScriptNum(bn));
          break;
        }

        case OP.OP_ADD:
        case OP.OP_SUB:
        case OP.OP_BOOLAND:
        case OP.OP_BOOLOR:
        case OP.OP_NUMEQUAL:
        case OP.OP_NUMEQUALVERIFY:
        case OP.OP_NUMNOTEQUAL:
        case OP.OP_LESSTHAN:
        case OP.OP_GREATERTHAN:
        case OP.OP_LESSTHANOREQUAL:
        case OP.OP_GREATERTHANOREQUAL:
        case OP.OP_MIN:
        case OP.OP_MAX: {
          need(2);
          const a = num(top(-2));
          const b = num(top(-1));
          let bn: number;
          switch (opcode) {
            case OP.OP_ADD:
              bn = a + b;
              break;
            case OP.OP_SUB:
              bn = a - b;
              break;
            case OP.OP_BOOLAND:
              bn = a !== 0 && b !== 0 ? 1 : 0;
              break;
            case OP.OP_BOOLOR:
              bn = a !== 0 || b !== 0 ? 1 : 0;
              break;
            case OP.OP_NUMEQUAL:
            case OP.OP_NUMEQUALVERIFY:
              bn = a === b ? 1 : 0;
              break;
            case OP.OP_NUMNOTEQUAL:
              bn = a !== b ? 1 : 0;
              break;
            case OP.OP_LESSTHAN:
              bn = a < b ? 1 : 0;
              break;
            case OP.OP_GREATERTHAN:
              bn = a > b ? 1 : 0;
              break;
            case OP.OP_LESSTHANOREQUAL:
              bn = a <= b ? 1 : 0;
              break;
            case OP.OP_GREATERTHANOREQUAL:
              bn = a >= b ? 1 : 0;
              break;
            case OP.OP_MIN:
              bn = a < b ? a : b;
              break;
            default:
              bn = a > b ? a : b;
              break;
          }
          stack.pop();
          stack.pop();
          stack.push(encodeScriptNum(bn));
          if (opcode === OP.OP_NUMEQUALVERIFY) {
            if (!castToBool(top(-1))) fail(ScriptError.NUMEQUALVERIFY);
            stack.pop();
          }
          break;
        }

        case OP.OP_WITHIN: {
          need(3);
          const x = num(top(-3));
          const min = num(top(-2));
          const max = num(top(-1));
          stack.pop();
          stack.pop();
          stack.pop();
          stack.push(min <= x && x < max ? VCH_TRUE : VCH_FALSE);
          break;
        }

        case OP.OP_RIPEMD160:
        case OP.OP_SHA1:
        case OP.OP_SHA256:
        case OP.OP_HASH160:
        case OP.OP_HASH256: {
          need(1);
          const data = stack.pop()!;
          const digest =
            opcode === OP.OP_RIPEMD160
              ? ripemd160(data)
              : opcode === OP.OP_SHA1
                ? sha1(data)
                : opcode === OP.OP_SHA256
                  ? sha256(data)
                  : opcode === OP.OP_HASH160
                    ? hash160(data)
                    : sha256d(data);
          stack.push(digest);
          break;
        }

        case OP.OP_CODESEPARATOR:
          // Signatures commit to the script after the last executed separator.
          beginCodeHash = pc;
          execdata.codeseparatorPosition = opcodePosition;
          break;

        case OP.OP_CHECKSIG:
        case OP.OP_CHECKSIGVERIFY: {
          need(2);
          const sig = top(-2);
          const pubkey = top(-1);
          const success =
            sigversion === SigVersion.TAPSCRIPT
              ? checksigTapscript(sig, pubkey, execdata, flags, checker)
              : checksigPreTapscript(sig, pubkey, script.subarray(beginCodeHash), flags, checker, sigversion);
          stack.pop();
          stack.pop();
          stack.push(success ? VCH_TRUE : VCH_FALSE);
          if (opcode === OP.OP_CHECKSIGVERIFY) {
            if (!success) fail(ScriptError.CHECKSIGVERIFY);
            stack.pop();
          }
          break;
        }

        case OP.OP_CHECKSIGADD: {
          if (sigversion === SigVersion.BASE || sigversion === SigVersion.WITNESS_V0) fail(ScriptError.BAD_OPCODE);
          need(3);
          const sig = top(-3);
          const n = num(top(-2));
          const pubkey = top(-1);
          const success = checksigTapscript(sig, pubkey, execdata, flags, checker);
          stack.pop();
          stack.pop();
          stack.pop();
          stack.push(encodeScriptNum(n + (success ? 1 : 0)));
          break;
        }

        case OP.OP_CHECKMULTISIG:
        case OP.OP_CHECKMULTISIGVERIFY: {
          if (sigversion === SigVersion.TAPSCRIPT) fail(ScriptError.TAPSCRIPT_CHECKMULTISIG);
          let i = 1;
          need(i);
          let keysCount = num(top(-i));
          if (keysCount < 0 || keysCount > MAX_PUBKEYS_PER_MULTISIG) fail(ScriptError.PUBKEY_COUNT);
          opCount += keysCount;
          if (opCount > MAX_OPS_PER_SCRIPT) fail(ScriptError.OP_COUNT);
          let ikey = ++i;
          // ikey2: position of the last non-signature item, for NULLFAIL's cleanup check.
          let ikey2 = keysCount + 2;
          i += keysCount;
          need(i);
          let sigsCount = num(top(-i));
          if (sigsCount < 0 || sigsCount > keysCount) fail(ScriptError.SIG_COUNT);
          let isig = ++i;
          i += sigsCount;
          need(i);

          let scriptCode = script.subarray(beginCodeHash);
          for (let k = 0; k < sigsCount; k++) {
            if (sigversion === SigVersion.BASE) {
              const deleted = findAndDelete(scriptCode, pushData(top(-isig - k)));
              if (deleted.found > 0 && (flags & VerifyFlags.CONST_SCRIPTCODE) !== 0) fail(ScriptError.SIG_FINDANDDELETE);
              scriptCode = deleted.script;
            }
          }

          let success = true;
          while (success && sigsCount > 0) {
            const sig = top(-isig);
            const pubkey = top(-ikey);
            // Encoding is checked pair by pair, which makes evaluation order observable (as in Core).
            checkSignatureEncoding(sig, flags);
            checkPubKeyEncoding(pubkey, flags, sigversion);
            if (checker.checkEcdsaSignature(sig, pubkey, scriptCode, sigversion)) {
              isig++;
              sigsCount--;
            }
            ikey++;
            keysCount--;
            // More signatures left than keys: too many have failed.
            if (sigsCount > keysCount) success = false;
          }

          while (i-- > 1) {
            if (!success && (flags & VerifyFlags.NULLFAIL) !== 0 && ikey2 === 0 && top(-1).length > 0) {
              fail(ScriptError.NULLFAIL);
            }
            if (ikey2 > 0) ikey2--;
            stack.pop();
          }
          // The historical off-by-one: one extra, unchecked argument is consumed.
          need(1);
          if ((flags & VerifyFlags.NULLDUMMY) !== 0 && top(-1).length > 0) fail(ScriptError.SIG_NULLDUMMY);
          stack.pop();
          stack.push(success ? VCH_TRUE : VCH_FALSE);
          if (opcode === OP.OP_CHECKMULTISIGVERIFY) {
            if (!success) fail(ScriptError.CHECKMULTISIGVERIFY);
            stack.pop();
          }
          break;
        }

        default:
          fail(ScriptError.BAD_OPCODE);
      }
    }

    if (stack.length + altstack.length > MAX_STACK_SIZE) fail(ScriptError.STACK_SIZE);
  }

  if (conditionDepth !== 0) fail(ScriptError.UNBALANCED_CONDITIONAL);
}
