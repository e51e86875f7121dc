/**
 * Miniscript text to a node tree: a port of Core's miniscript::internal::Parse, with its
 * explicit work stack and its running script-size estimate (a text whose script would
 * exceed the context's limit stops parsing early, as in Core, and that decides which
 * error the descriptor parser reports).
 */
import { fromHex } from '../../primitives/index.js';
import { constant, Cursor, expr, func, isHexText, parseInt64 } from '../parsing.js';
import { pushInt } from '../scriptnum.js';
import type { Fragment, MiniscriptContext, CombineStep, WrapStep } from './fragment.js';
import { MAX_PUBKEYS_PER_MULTI_A, maxScriptSize } from './limits.js';
import { Node } from './node.js';
import { has, mst } from './type.js';

/** Core's MAX_PUBKEYS_PER_MULTISIG. */
const MAX_PUBKEYS_PER_MULTISIG = 20;

/** What reads key expressions for the parser (Core's KeyParser::FromString): a key index, or null. */
export interface KeyReader {
  readonly ctx: MiniscriptContext;
  fromString(text: string): number | null;
  /** What Core's KeyCompare treats as the same key. */
  keyIdentity(key: number): string;
}

type Step =
  | 'WRAPPED_EXPR'
  | 'EXPR'
  | WrapStep
  | 'WRAP_U'
  | 'WRAP_T'
  | 'AND_N'
  | CombineStep
  | 'OR_I'
  | 'THRESH'
  | 'COMMA'
  | 'CLOSE_BRACKET';

/** Core's FindNextChar: the index of `m` before any ')', or -1. */
function findNextChar(text: string, m: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === m) return i;
    if (text[i] === ')') break;
  }
  return -1;
}

/** Bytes a number push adds beyond one (Core's `(n > 16) + (n > 0x7f) + ...`). */
function extraNumberBytes(n: number): number {
  return (n > 16 ? 1 : 0) + (n > 0x7f ? 1 : 0) + (n > 0x7fff ? 1 : 0) + (n > 0x7fffff ? 1 : 0);
}

const WRAPPER_STEPS: Record<string, [Step, number]> = {
  a: ['ALT', 2],
  s: ['SWAP', 1],
  c: ['CHECK', 1],
  d: ['DUP_IF', 3],
  j: ['NON_ZERO', 4],
  n: ['ZERO_NOTEQUAL', 1],
  u: ['WRAP_U', 4],
  t: ['WRAP_T', 1],
};

const WRAP_FRAGMENT: Partial<Record<Step, Fragment>> = { ALT: 'a', SWAP: 's', CHECK: 'c', DUP_IF: 'd', NON_ZERO: 'j', ZERO_NOTEQUAL: 'n', VERIFY: 'v' };
const BINARY_FRAGMENT: Partial<Record<Step, Fragment>> = { AND_B: 'and_b', AND_V: 'and_v', OR_B: 'or_b', OR_C: 'or_c', OR_D: 'or_d', OR_I: 'or_i' };

const BINARY_OPENERS: [string, Step, number][] = [
  ['and_n(', 'AND_N', 5],
  ['and_b(', 'AND_B', 2],
  ['and_v(', 'AND_V', 1],
  ['or_b(', 'OR_B', 2],
  ['or_c(', 'OR_C', 3],
  ['or_d(', 'OR_D', 4],
  ['or_i(', 'OR_I', 4],
];

const HASH_FRAGMENTS: [Fragment, number, number][] = [
  ['sha256', 32, 38],
  ['ripemd160', 20, 26],
  ['hash256', 32, 38],
  ['hash160', 20, 26],
];

/**
 * Core's miniscript::FromString: the node, or null when the text is not miniscript (the
 * reader records why when a key was at fault). Validity and sanity are the caller's to check.
 */
export function miniscriptFromString(text: string, reader: KeyReader): Node | null {
  const ctx = reader.ctx;
  const tapscript = ctx === 'tapscript';
  const input = new Cursor(text);
  // A lower bound on the script size of what was parsed so far: every leaf "borrows" one
  // byte that its combinator counts.
  let scriptSize = 1;
  const maxSize = maxScriptSize(ctx);
  const toParse: [Step, number, number][] = [['WRAPPED_EXPR', -1, -1]];
  const constructed: Node[] = [];
  const make = (fragment: Fragment, subs: Node[] = [], keys: number[] = [], data?: Uint8Array, k = 0) => new Node(ctx, fragment, subs, keys, data, k);

  const parseKey = (name: string): number | null => {
    const inner = new Cursor(expr(input));
    if (!func(name, inner)) return null;
    return reader.fromString(inner.text);
  };
  const parseHex = (name: string, size: number): Uint8Array | null => {
    const inner = new Cursor(expr(input));
    if (!func(name, inner)) return null;
    if (!isHexText(inner.text)) return null;
    const bytes = fromHex(inner.text);
    return bytes.length === size ? bytes : null;
  };
  const parseLock = (name: string): number | null => {
    const inner = new Cursor(expr(input));
    if (!func(name, inner)) return null;
    const num = parseInt64(inner.text);
    return num === null || num < 1 || num >= 0x80000000 ? null : num;
  };
  const parseMulti = (isMultiA: boolean): boolean => {
    const maxKeys = isMultiA ? MAX_PUBKEYS_PER_MULTI_A : MAX_PUBKEYS_PER_MULTISIG;
    if (tapscript !== isMultiA) return false;
    let nextComma = findNextChar(input.text, ',');
    if (nextComma < 1) return false;
    const k = parseInt64(input.text.slice(0, nextComma));
    if (k === null) return false;
    input.text = input.text.slice(nextComma + 1);
    const keys: number[] = [];
    while (nextComma !== -1) {
      nextComma = findNextChar(input.text, ',');
      const keyLength = nextComma === -1 ? findNextChar(input.text, ')') : nextComma;
      if (keyLength < 1) return false;
      const key = reader.fromString(input.text.slice(0, keyLength));
      if (key === null) return false;
      keys.push(key);
      input.text = input.text.slice(keyLength + 1);
    }
    if (keys.length < 1 || keys.length > maxKeys) return false;
    if (k < 1 || k > keys.length) return false;
    if (isMultiA) {
      scriptSize += (1 + 32 + 1) * keys.length + pushInt(k).length;
      constructed.push(make('multi_a', [], keys, undefined, k));
    } else {
      scriptSize += 2 + (keys.length > 16 ? 1 : 0) + (k > 16 ? 1 : 0) + 34 * keys.length;
      constructed.push(make('multi', [], keys, undefined, k));
    }
    return true;
  };
  const buildBack = (fragment: Fragment) => {
    const child = constructed.pop()!;
    constructed[constructed.length - 1] = make(fragment, [constructed[constructed.length - 1]!, child]);
  };

  while (toParse.length > 0) {
    if (scriptSize > maxSize) return null;
    const [step, n, k] = toParse.pop()!;
    switch (step) {
      case 'WRAPPED_EXPR': {
        const s = input.text;
        let colon = -1;
        for (let i = 1; i < s.length; i++) {
          if (s[i] === ':') {
            colon = i;
            break;
          }
          if (s[i]! < 'a' || s[i]! > 'z') break;
        }
        let lastWasV = false;
        for (let j = 0; colon !== -1 && j < colon; j++) {
          if (scriptSize > maxSize) return null;
          const c = s[j]!;
          if (c === 'v') {
            // "vv" is never valid, and would not grow the size estimate.
            if (lastWasV) return null;
            toParse.push(['VERIFY', -1, -1]);
          } else if (c === 'l') {
            scriptSize += 4;
            constructed.push(make('0'));
            toParse.push(['OR_I', -1, -1]);
          } else {
            const wrapper = WRAPPER_STEPS[c];
            if (!wrapper) return null;
            scriptSize += wrapper[1];
            toParse.push([wrapper[0], -1, -1]);
          }
          lastWasV = c === 'v';
        }
        toParse.push(['EXPR', -1, -1]);
        if (colon !== -1) input.text = s.slice(colon + 1);
        break;
      }
      case 'EXPR': {
        if (constant('0', input)) {
          constructed.push(make('0'));
        } else if (constant('1', input)) {
          constructed.push(make('1'));
        } else if (constant('pk(', input, false)) {
          const key = parseKey('pk');
          if (key === null) return null;
          constructed.push(make('c', [make('pk_k', [], [key])]));
          scriptSize += tapscript ? 33 : 34;
        } else if (constant('pkh(', input, false)) {
          const key = parseKey('pkh');
          if (key === null) return null;
          constructed.push(make('c', [make('pk_h', [], [key])]));
          scriptSize += 24;
        } else if (constant('pk_k(', input, false)) {
          const key = parseKey('pk_k');
          if (key === null) return null;
          constructed.push(make('pk_k', [], [key]));
          scriptSize += tapscript ? 32 : 33;
        } else if (constant('pk_h(', input, false)) {
          const key = parseKey('pk_h');
          if (key === null) return null;
          constructed.push(make('pk_h', [], [key]));
          scriptSize += 23;
        } else {
          const hash = HASH_FRAGMENTS.find(([name]) => constant(`${name}(`, input, false));
          if (hash) {
            const [name, size, cost] = hash;
            const data = parseHex(name, size);
            if (!data) return null;
            constructed.push(make(name, [], [], data));
            scriptSize += cost;
            break;
          }
          const lock = (['after', 'older'] as const).find((name) => constant(`${name}(`, input, false));
          if (lock) {
            const num = parseLock(lock);
            if (num === null) return null;
            constructed.push(make(lock, [], [], undefined, num));
            scriptSize += 1 + extraNumberBytes(num);
          } else if (constant('multi(', input)) {
            if (!parseMulti(false)) return null;
          } else if (constant('multi_a(', input)) {
            if (!parseMulti(true)) return null;
          } else if (constant('thresh(', input)) {
            const nextComma = findNextChar(input.text, ',');
            if (nextComma < 1) return null;
            const threshold = parseInt64(input.text.slice(0, nextComma));
            if (threshold === null || threshold < 1) return null;
            input.text = input.text.slice(nextComma + 1);
            // n = 1: the first child is read before THRESH is reached.
            toParse.push(['THRESH', 1, threshold], ['WRAPPED_EXPR', -1, -1]);
            scriptSize += 2 + extraNumberBytes(threshold);
          } else if (constant('andor(', input)) {
            toParse.push(
              ['ANDOR', -1, -1],
              ['CLOSE_BRACKET', -1, -1],
              ['WRAPPED_EXPR', -1, -1],
              ['COMMA', -1, -1],
              ['WRAPPED_EXPR', -1, -1],
              ['COMMA', -1, -1],
              ['WRAPPED_EXPR', -1, -1],
            );
            scriptSize += 5;
          } else {
            const opener = BINARY_OPENERS.find(([prefix]) => constant(prefix, input));
            if (!opener) return null;
            toParse.push([opener[1], -1, -1]);
            scriptSize += opener[2];
            toParse.push(['CLOSE_BRACKET', -1, -1], ['WRAPPED_EXPR', -1, -1], ['COMMA', -1, -1], ['WRAPPED_EXPR', -1, -1]);
          }
        }
        break;
      }
      case 'ALT':
      case 'SWAP':
      case 'CHECK':
      case 'DUP_IF':
      case 'NON_ZERO':
      case 'ZERO_NOTEQUAL':
      case 'VERIFY': {
        const last = constructed[constructed.length - 1]!;
        if (step === 'VERIFY' && has(last.type, mst('x'))) scriptSize += 1;
        constructed[constructed.length - 1] = make(WRAP_FRAGMENT[step]!, [last]);
        break;
      }
      case 'WRAP_U':
        constructed[constructed.length - 1] = make('or_i', [constructed[constructed.length - 1]!, make('0')]);
        break;
      case 'WRAP_T':
        constructed[constructed.length - 1] = make('and_v', [constructed[constructed.length - 1]!, make('1')]);
        break;
      case 'AND_B':
      case 'AND_V':
      case 'OR_B':
      case 'OR_C':
      case 'OR_D':
      case 'OR_I':
        buildBack(BINARY_FRAGMENT[step]!);
        break;
      case 'AND_N': {
        const mid = constructed.pop()!;
        constructed[constructed.length - 1] = make('andor', [constructed[constructed.length - 1]!, mid, make('0')]);
        break;
      }
      case 'ANDOR': {
        const right = constructed.pop()!;
        const mid = constructed.pop()!;
        constructed[constructed.length - 1] = make('andor', [constructed[constructed.length - 1]!, mid, right]);
        break;
      }
      case 'THRESH': {
        if (input.text.length < 1) return null;
        if (input.text[0] === ',') {
          input.text = input.text.slice(1);
          toParse.push(['THRESH', n + 1, k], ['WRAPPED_EXPR', -1, -1]);
          scriptSize += 2;
        } else if (input.text[0] === ')') {
          if (k > n) return null;
          input.text = input.text.slice(1);
          const subs = constructed.splice(constructed.length - n, n);
          constructed.push(make('thresh', subs, [], undefined, k));
        } else {
          return null;
        }
        break;
      }
      case 'COMMA':
        if (!constant(',', input)) return null;
        break;
      case 'CLOSE_BRACKET':
        if (!constant(')', input)) return null;
        break;
    }
  }
  if (constructed.length !== 1) throw new Error('miniscript parse left more than one expression');
  if (!input.empty) return null;
  const node = constructed[0]!;
  node.duplicateKeyCheck((key) => reader.keyIdentity(key));
  return node;
}
