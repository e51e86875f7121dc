/**
 * A script to a miniscript node tree (Core's miniscript::FromScript): the script is split
 * into opcodes with the -VERIFY opcodes decomposed, then read from its end with Core's
 * explicit work stack, so exactly the scripts Core recognises as miniscript are
 * recognised, with the same tree.
 */
import { OP } from '../opcodes.js';
import { isMinimalPush, readOp } from '../parse.js';
import { decodeScriptNum, ScriptNumError } from '../scriptnum.js';
import type { Fragment, MiniscriptContext, CombineStep, WrapStep } from './fragment.js';
import { MAX_PUBKEYS_PER_MULTI_A, maxScriptSize } from './limits.js';
import { Node } from './node.js';

/** What turns pushed key material into key indexes (Core's KeyParser::FromPKBytes/FromPKHBytes). */
export interface KeyInferrer {
  readonly ctx: MiniscriptContext;
  fromPKBytes(bytes: Uint8Array): number | null;
  fromPKHBytes(hash: Uint8Array): number | null;
  keyIdentity(key: number): string;
}

interface Opcode {
  readonly op: number;
  readonly data: Uint8Array;
}

const EMPTY = new Uint8Array(0);

function isPushdataOp(op: number): boolean {
  return op > OP.OP_0 && op <= OP.OP_PUSHDATA4;
}

const VERIFY_FORMS = new Map<number, number>([
  [OP.OP_CHECKSIGVERIFY, OP.OP_CHECKSIG],
  [OP.OP_CHECKMULTISIGVERIFY, OP.OP_CHECKMULTISIG],
  [OP.OP_EQUALVERIFY, OP.OP_EQUAL],
  [OP.OP_NUMEQUALVERIFY, OP.OP_NUMEQUAL],
]);

/** The opcodes a -VERIFY opcode stands for. */
const VERIFIABLE = new Set(VERIFY_FORMS.values());

/** Core's DecomposeScript: the opcodes in reverse order, or null for non-minimal pushes and X VERIFY pairs. */
export function decomposeScript(script: Uint8Array): Opcode[] | null {
  const out: Opcode[] = [];
  let pc = 0;
  while (pc < script.length) {
    const element = readOp(script, pc);
    if (!element) return null;
    let op = element.opcode;
    let data = element.data ?? EMPTY;
    pc = element.end;
    const base = VERIFY_FORMS.get(op);
    if (op >= OP.OP_1 && op <= OP.OP_16) {
      data = Uint8Array.of(op - (OP.OP_1 - 1));
    } else if (base !== undefined) {
      out.push({ op: base, data: EMPTY });
      op = OP.OP_VERIFY;
    } else if (isPushdataOp(op)) {
      if (!isMinimalPush(data, op)) return null;
    } else if (pc < script.length && VERIFIABLE.has(op) && script[pc] === OP.OP_VERIFY) {
      // A separate VERIFY where the -VERIFY opcode would do is not miniscript.
      return null;
    }
    out.push({ op, data });
  }
  return out.reverse();
}

/** Core's ParseScriptNumber: OP_0, OP_1..OP_16 or a minimal push of a minimal number of at most 4 bytes. */
export function parseScriptNumber(element: Opcode): number | null {
  if (element.op === OP.OP_0) return 0;
  if (element.data.length === 0) return null;
  if (isPushdataOp(element.op) && !isMinimalPush(element.data, element.op)) return null;
  try {
    return decodeScriptNum(element.data, true);
  } catch (err) {
    if (err instanceof ScriptNumError) return null;
    throw err;
  }
}

type Step =
  | 'SINGLE_BKV_EXPR'
  | 'BKV_EXPR'
  | 'W_EXPR'
  | WrapStep
  | 'MAYBE_AND_V'
  | CombineStep
  | 'THRESH_W'
  | 'THRESH_E'
  | 'ENDIF'
  | 'ENDIF_NOTIF'
  | 'ENDIF_ELSE';

const WRAP_FRAGMENT: Partial<Record<Step, Fragment>> = { CHECK: 'c', DUP_IF: 'd', VERIFY: 'v', NON_ZERO: 'j', ZERO_NOTEQUAL: 'n' };
const REVERSED_BINARY: Partial<Record<Step, Fragment>> = { AND_V: 'and_v', AND_B: 'and_b', OR_B: 'or_b', OR_C: 'or_c', OR_D: 'or_d' };
const HASH_OPS: [number, number, Fragment][] = [
  [OP.OP_SHA256, 32, 'sha256'],
  [OP.OP_RIPEMD160, 20, 'ripemd160'],
  [OP.OP_HASH256, 32, 'hash256'],
  [OP.OP_HASH160, 20, 'hash160'],
];
/** Opcodes that cannot end a miniscript expression, so cannot end the left side of an and_v. */
const NOT_AND_V_END = new Set<number>([OP.OP_IF, OP.OP_ELSE, OP.OP_NOTIF, OP.OP_TOALTSTACK, OP.OP_SWAP]);

/** Core's DecodeScript over decomposed opcodes; null where Core finds no valid top-level miniscript. */
function decodeScript(ops: readonly Opcode[], inferrer: KeyInferrer): Node | null {
  const ctx = inferrer.ctx;
  const tapscript = ctx === 'tapscript';
  const make = (fragment: Fragment, subs: Node[] = [], keys: number[] = [], data?: Uint8Array, k = 0) => new Node(ctx, fragment, subs, keys, data, k);
  const toParse: [Step, number, number][] = [['BKV_EXPR', -1, -1]];
  const constructed: Node[] = [];
  let pos = 0;
  const end = ops.length;
  const at = (i: number): Opcode => ops[pos + i]!;
  const left = () => end - pos;
  const wrapLast = (fragment: Fragment) => {
    constructed[constructed.length - 1] = make(fragment, [constructed[constructed.length - 1]!]);
  };
  const buildBackReversed = (fragment: Fragment) => {
    const child = constructed.pop()!;
    constructed[constructed.length - 1] = make(fragment, [child, constructed[constructed.length - 1]!]);
  };

  while (toParse.length > 0) {
    if (constructed.length > 0 && !constructed[constructed.length - 1]!.isValid()) return null;
    const [step, n, k] = toParse.pop()!;
    switch (step) {
      case 'SINGLE_BKV_EXPR': {
        if (pos >= end) return null;
        const first = at(0);
        if (first.op === OP.OP_1) {
          pos++;
          constructed.push(make('1'));
          break;
        }
        if (first.op === OP.OP_0) {
          pos++;
          constructed.push(make('0'));
          break;
        }
        if (first.data.length === 33 || first.data.length === 32) {
          const key = inferrer.fromPKBytes(first.data);
          if (key === null) return null;
          pos++;
          constructed.push(make('pk_k', [], [key]));
          break;
        }
        if (left() >= 5 && first.op === OP.OP_VERIFY && at(1).op === OP.OP_EQUAL && at(3).op === OP.OP_HASH160 && at(4).op === OP.OP_DUP && at(2).data.length === 20) {
          const key = inferrer.fromPKHBytes(at(2).data);
          if (key === null) return null;
          pos += 5;
          constructed.push(make('pk_h', [], [key]));
          break;
        }
        const lock = first.op === OP.OP_CHECKSEQUENCEVERIFY ? 'older' : first.op === OP.OP_CHECKLOCKTIMEVERIFY ? 'after' : null;
        const lockValue = lock && left() >= 2 ? parseScriptNumber(at(1)) : null;
        if (lock && lockValue !== null) {
          pos += 2;
          if (lockValue < 1 || lockValue > 0x7fffffff) return null;
          constructed.push(make(lock, [], [], undefined, lockValue));
          break;
        }
        if (left() >= 7 && first.op === OP.OP_EQUAL && at(3).op === OP.OP_VERIFY && at(4).op === OP.OP_EQUAL && parseScriptNumber(at(5)) === 32 && at(6).op === OP.OP_SIZE) {
          const hash = HASH_OPS.find(([op, size]) => at(2).op === op && at(1).data.length === size);
          if (hash) {
            constructed.push(make(hash[2], [], [], at(1).data));
            pos += 7;
            break;
          }
        }
        if (left() >= 3 && first.op === OP.OP_CHECKMULTISIG) {
          if (tapscript) return null;
          const count = parseScriptNumber(at(1));
          if (count === null || left() < 3 + count) return null;
          if (count < 1 || count > 20) return null;
          const keys: number[] = [];
          for (let i = 0; i < count; i++) {
            if (at(2 + i).data.length !== 33) return null;
            const key = inferrer.fromPKBytes(at(2 + i).data);
            if (key === null) return null;
            keys.push(key);
          }
          const threshold = parseScriptNumber(at(2 + count));
          if (threshold === null || threshold < 1 || threshold > count) return null;
          pos += 3 + count;
          constructed.push(make('multi', [], keys.reverse(), undefined, threshold));
          break;
        }
        if (left() >= 4 && first.op === OP.OP_NUMEQUAL) {
          if (!tapscript) return null;
          const threshold = parseScriptNumber(at(1));
          if (threshold === null) return null;
          if (threshold < 1 || threshold > MAX_PUBKEYS_PER_MULTI_A) return null;
          if (left() < 2 + threshold * 2) return null;
          const keys: number[] = [];
          for (let p = 2; ; p += 2) {
            if (left() < p + 2) return null;
            if (at(p).op !== OP.OP_CHECKSIGADD && at(p).op !== OP.OP_CHECKSIG) return null;
            if (at(p + 1).data.length !== 32) return null;
            const key = inferrer.fromPKBytes(at(p + 1).data);
            if (key === null) return null;
            keys.push(key);
            if (keys.length > MAX_PUBKEYS_PER_MULTI_A) return null;
            if (at(p).op === OP.OP_CHECKSIG) break;
          }
          if (keys.length < threshold) return null;
          pos += 2 + keys.length * 2;
          constructed.push(make('multi_a', [], keys.reverse(), undefined, threshold));
          break;
        }
        // Wrappers commute with and_v (c:and_v(X,Y) is and_v(X,c:Y)), so one expression suffices.
        const wrapper = first.op === OP.OP_CHECKSIG ? 'CHECK' : first.op === OP.OP_VERIFY ? 'VERIFY' : first.op === OP.OP_0NOTEQUAL ? 'ZERO_NOTEQUAL' : null;
        if (wrapper) {
          pos++;
          toParse.push([wrapper, -1, -1], ['SINGLE_BKV_EXPR', -1, -1]);
          break;
        }
        const threshold = left() >= 3 && first.op === OP.OP_EQUAL ? parseScriptNumber(at(1)) : null;
        if (threshold !== null) {
          if (threshold < 1) return null;
          pos += 2;
          toParse.push(['THRESH_W', 0, threshold]);
          break;
        }
        if (first.op === OP.OP_ENDIF) {
          pos++;
          toParse.push(['ENDIF', -1, -1], ['BKV_EXPR', -1, -1]);
          break;
        }
        // and_b and or_b keep an and_v outside: or_b(and_v(X,Y),Z) is never valid, and_v(X,or_b(Y,Z)) may be.
        if (first.op === OP.OP_BOOLAND || first.op === OP.OP_BOOLOR) {
          pos++;
          toParse.push([first.op === OP.OP_BOOLAND ? 'AND_B' : 'OR_B', -1, -1], ['SINGLE_BKV_EXPR', -1, -1], ['W_EXPR', -1, -1]);
          break;
        }
        return null;
      }
      case 'BKV_EXPR':
        toParse.push(['MAYBE_AND_V', -1, -1], ['SINGLE_BKV_EXPR', -1, -1]);
        break;
      case 'W_EXPR':
        if (pos >= end) return null;
        if (at(0).op === OP.OP_FROMALTSTACK) {
          pos++;
          toParse.push(['ALT', -1, -1]);
        } else {
          toParse.push(['SWAP', -1, -1]);
        }
        toParse.push(['BKV_EXPR', -1, -1]);
        break;
      case 'MAYBE_AND_V':
        if (pos < end && !NOT_AND_V_END.has(at(0).op)) toParse.push(['AND_V', -1, -1], ['BKV_EXPR', -1, -1]);
        break;
      case 'SWAP':
      case 'ALT': {
        const expected = step === 'SWAP' ? OP.OP_SWAP : OP.OP_TOALTSTACK;
        if (pos >= end || at(0).op !== expected || constructed.length === 0) return null;
        pos++;
        wrapLast(step === 'SWAP' ? 's' : 'a');
        break;
      }
      case 'CHECK':
      case 'DUP_IF':
      case 'VERIFY':
      case 'NON_ZERO':
      case 'ZERO_NOTEQUAL':
        if (constructed.length === 0) return null;
        wrapLast(WRAP_FRAGMENT[step]!);
        break;
      case 'AND_V':
      case 'AND_B':
      case 'OR_B':
      case 'OR_C':
      case 'OR_D':
        if (constructed.length < 2) return null;
        buildBackReversed(REVERSED_BINARY[step]!);
        break;
      case 'ANDOR': {
        if (constructed.length < 3) return null;
        const x = constructed.pop()!;
        const z = constructed.pop()!;
        const y = constructed[constructed.length - 1]!;
        constructed[constructed.length - 1] = make('andor', [x, y, z]);
        break;
      }
      case 'THRESH_W':
        if (pos >= end) return null;
        if (at(0).op === OP.OP_ADD) {
          pos++;
          toParse.push(['THRESH_W', n + 1, k], ['W_EXPR', -1, -1]);
        } else {
          // Every child of thresh is d, so none is an and_v.
          toParse.push(['THRESH_E', n + 1, k], ['SINGLE_BKV_EXPR', -1, -1]);
        }
        break;
      case 'THRESH_E': {
        if (k < 1 || k > n || constructed.length < n) return null;
        const subs: Node[] = [];
        for (let i = 0; i < n; i++) subs.push(constructed.pop()!);
        constructed.push(make('thresh', subs, [], undefined, k));
        break;
      }
      case 'ENDIF':
        if (pos >= end) return null;
        if (at(0).op === OP.OP_ELSE) {
          pos++;
          toParse.push(['ENDIF_ELSE', -1, -1], ['BKV_EXPR', -1, -1]);
        } else if (at(0).op === OP.OP_IF) {
          if (left() >= 2 && at(1).op === OP.OP_DUP) {
            pos += 2;
            toParse.push(['DUP_IF', -1, -1]);
          } else if (left() >= 3 && at(1).op === OP.OP_0NOTEQUAL && at(2).op === OP.OP_SIZE) {
            pos += 3;
            toParse.push(['NON_ZERO', -1, -1]);
          } else {
            return null;
          }
        } else if (at(0).op === OP.OP_NOTIF) {
          pos++;
          toParse.push(['ENDIF_NOTIF', -1, -1]);
        } else {
          return null;
        }
        break;
      case 'ENDIF_NOTIF':
        if (pos >= end) return null;
        if (at(0).op === OP.OP_IFDUP) {
          pos++;
          toParse.push(['OR_D', -1, -1]);
        } else {
          toParse.push(['OR_C', -1, -1]);
        }
        toParse.push(['SINGLE_BKV_EXPR', -1, -1]);
        break;
      case 'ENDIF_ELSE':
        if (pos >= end) return null;
        if (at(0).op === OP.OP_IF) {
          pos++;
          buildBackReversed('or_i');
        } else if (at(0).op === OP.OP_NOTIF) {
          pos++;
          toParse.push(['ANDOR', -1, -1], ['SINGLE_BKV_EXPR', -1, -1]);
        } else {
          return null;
        }
        break;
    }
  }
  if (constructed.length !== 1) return null;
  if (pos !== end) return null;
  const node = constructed[0]!;
  node.duplicateKeyCheck((key) => inferrer.keyIdentity(key));
  return node.isValidTopLevel() ? node : null;
}

/** Core's miniscript::FromScript: the node, or null when the script is not valid miniscript in the context. */
export function miniscriptFromScript(script: Uint8Array, inferrer: KeyInferrer): Node | null {
  if (script.length > maxScriptSize(inferrer.ctx)) return null;
  const ops = decomposeScript(script);
  if (!ops) return null;
  return decodeScript(ops, inferrer);
}
