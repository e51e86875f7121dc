/**
 * A miniscript expression (Core's miniscript::Node): a fragment, its children, keys (as
 * indexes into the owner's key list), hash data and number. Type, script size, opcode
 * count and stack bounds are computed once, at construction, from the children's; the
 * validity and sanity checks the descriptor parser reports read them.
 */
import { joinBytes, toHex } from '../../primitives/index.js';
import { OP } from '../opcodes.js';
import { pushData } from '../parse.js';
import { pushInt } from '../scriptnum.js';
import { WRAPPERS, type Fragment, type MiniscriptContext } from './fragment.js';
import { MAX_OPS_PER_SCRIPT, MAX_STACK_SIZE, MAX_STANDARD_P2WSH_STACK_ITEMS, maxScriptSize } from './limits.js';
import { maxIntAdd, maxIntOr, SAT, satAdd, satOr, type MaxInt, type Ops, type SatInfo, type StackSize } from './resources.js';
import { computeType, has, mst, sanitizeType, type Type } from './type.js';

const NO_DATA = new Uint8Array(0);

/** How a node's keys become script bytes (Core's ScriptMaker). */
export interface ScriptContext {
  toPKBytes(key: number): Uint8Array;
  toPKHBytes(key: number): Uint8Array;
}

/** How a node's keys are printed; null when one cannot be (normalized form without its private key). */
export type KeyPrinter = (key: number) => string | null;

/**
 * Core's TreeEval: a bottom-up computation over a tree, without recursion (a Tapscript
 * miniscript may nest tens of thousands of levels). `down` gives each child its state from
 * its parent's; `up` gives a node's result from its state and its children's results.
 */
function treeEval<S, R>(root: Node, rootState: S, down: (state: S, node: Node, index: number) => S, up: (state: S, node: Node, subs: R[]) => R): R {
  const stack: { node: Node; state: S; expanded: number }[] = [{ node: root, state: rootState, expanded: 0 }];
  const results: R[] = [];
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    if (top.expanded < top.node.subs.length) {
      const index = top.expanded++;
      stack.push({ node: top.node.subs[index]!, state: down(top.state, top.node, index), expanded: 0 });
      continue;
    }
    const subs = results.splice(results.length - top.node.subs.length, top.node.subs.length);
    results.push(up(top.state, top.node, subs));
    stack.pop();
  }
  return results[0]!;
}

/** Where a child's output goes in its parent's, and the state the child is printed in. */
class Place<S> {
  constructor(
    readonly node: Node,
    readonly state: S,
  ) {}
}

/** A node's output: its own pieces, with places for its children's outputs. */
type Layout<T, S> = (T | Place<S>)[];

/**
 * The whole tree's output as one list of pieces, each node's layout filled in with its
 * children's, without recursion and without copying a child's output into its parent's
 * (both would cost too much on deep Tapscript trees). Null when a layout is.
 */
function emit<T, S>(root: Node, rootState: S, layout: (node: Node, state: S) => Layout<T, S> | null): T[] | null {
  const out: T[] = [];
  const work: (T | Place<S>)[] = [new Place(root, rootState)];
  while (work.length > 0) {
    const item = work.pop()!;
    if (!(item instanceof Place)) {
      out.push(item);
      continue;
    }
    const pieces = layout(item.node, item.state);
    if (!pieces) return null;
    for (let i = pieces.length - 1; i >= 0; i--) work.push(pieces[i]!);
  }
  return out;
}

export class Node {
  readonly type: Type;
  /** Core's ScriptSize: the length of ToScript's output, computed without building it. */
  readonly scriptSize: number;
  readonly ops: Ops;
  readonly stackSize: StackSize;
  /** Set for every node of a tree by duplicateKeyCheck. */
  hasDuplicateKeys: boolean | undefined;

  constructor(
    readonly ctx: MiniscriptContext,
    readonly fragment: Fragment,
    readonly subs: readonly Node[] = [],
    readonly keys: readonly number[] = [],
    readonly data: Uint8Array = NO_DATA,
    readonly k = 0,
  ) {
    this.ops = this.calcOps();
    this.stackSize = this.calcStackSize();
    this.type = sanitizeType(
      computeType(
        fragment,
        subs.map((sub) => sub.type),
        k,
        ctx === 'tapscript',
      ),
    );
    this.scriptSize = this.calcScriptLen();
  }

  get tapscript(): boolean {
    return this.ctx === 'tapscript';
  }

  private calcScriptLen(): number {
    const subsize = this.subs.reduce((sum, sub) => sum + sub.scriptSize, 0);
    const n = this.keys.length;
    switch (this.fragment) {
      case '0':
      case '1':
        return 1;
      case 'pk_k':
        return this.tapscript ? 33 : 34;
      case 'pk_h':
        return 3 + 21;
      case 'older':
      case 'after':
        return 1 + pushInt(this.k).length;
      case 'hash256':
      case 'sha256':
        return 4 + 2 + 33;
      case 'hash160':
      case 'ripemd160':
        return 4 + 2 + 21;
      case 'multi':
        return 1 + pushInt(n).length + pushInt(this.k).length + 34 * n;
      case 'multi_a':
        return (1 + 32 + 1) * n + pushInt(this.k).length + 1;
      case 'and_v':
        return subsize;
      case 'v':
        return subsize + (has(this.subs[0]!.type, mst('x')) ? 1 : 0);
      case 's':
      case 'c':
      case 'n':
      case 'and_b':
      case 'or_b':
        return subsize + 1;
      case 'a':
      case 'or_c':
        return subsize + 2;
      case 'd':
      case 'or_d':
      case 'or_i':
      case 'andor':
        return subsize + 3;
      case 'j':
        return subsize + 4;
      case 'thresh':
        return subsize + this.subs.length + pushInt(this.k).length;
    }
  }

  private calcOps(): Ops {
    const [x, y, z] = this.subs.map((sub) => sub.ops);
    switch (this.fragment) {
      case '1':
        return { count: 0, sat: 0, dsat: null };
      case '0':
        return { count: 0, sat: null, dsat: 0 };
      case 'pk_k':
        return { count: 0, sat: 0, dsat: 0 };
      case 'pk_h':
        return { count: 3, sat: 0, dsat: 0 };
      case 'older':
      case 'after':
        return { count: 1, sat: 0, dsat: null };
      case 'sha256':
      case 'ripemd160':
      case 'hash256':
      case 'hash160':
        return { count: 4, sat: 0, dsat: null };
      case 'and_v':
        return { count: x!.count + y!.count, sat: maxIntAdd(x!.sat, y!.sat), dsat: null };
      case 'and_b':
        return { count: 1 + x!.count + y!.count, sat: maxIntAdd(x!.sat, y!.sat), dsat: maxIntAdd(x!.dsat, y!.dsat) };
      case 'or_b':
        return {
          count: 1 + x!.count + y!.count,
          sat: maxIntOr(maxIntAdd(x!.sat, y!.dsat), maxIntAdd(y!.sat, x!.dsat)),
          dsat: maxIntAdd(x!.dsat, y!.dsat),
        };
      case 'or_d':
        return { count: 3 + x!.count + y!.count, sat: maxIntOr(x!.sat, maxIntAdd(y!.sat, x!.dsat)), dsat: maxIntAdd(x!.dsat, y!.dsat) };
      case 'or_c':
        return { count: 2 + x!.count + y!.count, sat: maxIntOr(x!.sat, maxIntAdd(y!.sat, x!.dsat)), dsat: null };
      case 'or_i':
        return { count: 3 + x!.count + y!.count, sat: maxIntOr(x!.sat, y!.sat), dsat: maxIntOr(x!.dsat, y!.dsat) };
      case 'andor':
        return {
          count: 3 + x!.count + y!.count + z!.count,
          sat: maxIntOr(maxIntAdd(y!.sat, x!.sat), maxIntAdd(x!.dsat, z!.sat)),
          dsat: maxIntAdd(x!.dsat, z!.dsat),
        };
      case 'multi':
        return { count: 1, sat: this.keys.length, dsat: this.keys.length };
      case 'multi_a':
        return { count: this.keys.length + 1, sat: 0, dsat: 0 };
      case 's':
      case 'c':
      case 'n':
        return { count: 1 + x!.count, sat: x!.sat, dsat: x!.dsat };
      case 'a':
        return { count: 2 + x!.count, sat: x!.sat, dsat: x!.dsat };
      case 'd':
        return { count: 3 + x!.count, sat: x!.sat, dsat: 0 };
      case 'j':
        return { count: 4 + x!.count, sat: x!.sat, dsat: 0 };
      case 'v':
        return { count: x!.count + (has(this.subs[0]!.type, mst('x')) ? 1 : 0), sat: x!.sat, dsat: null };
      case 'thresh': {
        let count = 0;
        let sats: MaxInt[] = [0];
        for (const sub of this.subs) {
          count += sub.ops.count + 1;
          const next: MaxInt[] = [maxIntAdd(sats[0]!, sub.ops.dsat)];
          for (let j = 1; j < sats.length; j++) next.push(maxIntOr(maxIntAdd(sats[j]!, sub.ops.dsat), maxIntAdd(sats[j - 1]!, sub.ops.sat)));
          next.push(maxIntAdd(sats[sats.length - 1]!, sub.ops.sat));
          sats = next;
        }
        return { count, sat: sats[this.k] ?? null, dsat: sats[0]! };
      }
    }
  }

  private calcStackSize(): StackSize {
    const [x, y, z] = this.subs.map((sub) => sub.stackSize);
    const both = (s: SatInfo): StackSize => ({ sat: s, dsat: s });
    switch (this.fragment) {
      case '0':
        return { sat: null, dsat: SAT.push };
      case '1':
        return { sat: SAT.push, dsat: null };
      case 'older':
      case 'after':
        return { sat: satAdd(SAT.push, SAT.nop), dsat: null };
      case 'pk_k':
        return both(SAT.push);
      case 'pk_h':
        return both(satAdd(SAT.dup, SAT.hash, SAT.push, SAT.equalVerify));
      case 'sha256':
      case 'ripemd160':
      case 'hash256':
      case 'hash160':
        return { sat: satAdd(SAT.size, SAT.push, SAT.equalVerify, SAT.hash, SAT.push, SAT.equal), dsat: null };
      case 'andor':
        return {
          sat: satOr(satAdd(x!.sat, SAT.if, y!.sat), satAdd(x!.dsat, SAT.if, z!.sat)),
          dsat: satAdd(x!.dsat, SAT.if, z!.dsat),
        };
      case 'and_v':
        return { sat: satAdd(x!.sat, y!.sat), dsat: null };
      case 'and_b':
        return { sat: satAdd(x!.sat, y!.sat, SAT.binaryOp), dsat: satAdd(x!.dsat, y!.dsat, SAT.binaryOp) };
      case 'or_b':
        return {
          sat: satAdd(satOr(satAdd(x!.sat, y!.dsat), satAdd(x!.dsat, y!.sat)), SAT.binaryOp),
          dsat: satAdd(x!.dsat, y!.dsat, SAT.binaryOp),
        };
      case 'or_c':
        return { sat: satOr(satAdd(x!.sat, SAT.if), satAdd(x!.dsat, SAT.if, y!.sat)), dsat: null };
      case 'or_d':
        return {
          sat: satOr(satAdd(x!.sat, SAT.ifdup(true), SAT.if), satAdd(x!.dsat, SAT.ifdup(false), SAT.if, y!.sat)),
          dsat: satAdd(x!.dsat, SAT.ifdup(false), SAT.if, y!.dsat),
        };
      case 'or_i':
        return { sat: satAdd(SAT.if, satOr(x!.sat, y!.sat)), dsat: satAdd(SAT.if, satOr(x!.dsat, y!.dsat)) };
      // multi(k, n keys) starts with k+1 elements, reaches n+k+3, ends with 1.
      case 'multi':
        return both([this.k, this.k + this.keys.length + 2]);
      // multi_a(k, n keys) starts with n signatures, reaches n+1, ends with 1.
      case 'multi_a':
        return both([this.keys.length - 1, this.keys.length]);
      case 'a':
      case 'n':
      case 's':
        return x!;
      case 'c':
        return { sat: satAdd(x!.sat, SAT.checksig), dsat: satAdd(x!.dsat, SAT.checksig) };
      case 'd':
        return { sat: satAdd(SAT.dup, SAT.if, x!.sat), dsat: satAdd(SAT.dup, SAT.if) };
      case 'v':
        return { sat: satAdd(x!.sat, SAT.verify), dsat: null };
      case 'j':
        return { sat: satAdd(SAT.size, SAT.zeroNotEqual, SAT.if, x!.sat), dsat: satAdd(SAT.size, SAT.zeroNotEqual, SAT.if) };
      case 'thresh': {
        // sats[j]: the traces reaching j satisfactions among the children so far.
        let sats: SatInfo[] = [SAT.empty];
        this.subs.forEach((sub, i) => {
          const add = i ? SAT.binaryOp : SAT.empty;
          const next: SatInfo[] = [satAdd(sats[0]!, sub.stackSize.dsat, add)];
          for (let j = 1; j < sats.length; j++) {
            next.push(satAdd(satOr(satAdd(sats[j]!, sub.stackSize.dsat), satAdd(sats[j - 1]!, sub.stackSize.sat)), add));
          }
          next.push(satAdd(sats[sats.length - 1]!, sub.stackSize.sat, add));
          sats = next;
        });
        return { sat: satAdd(sats[this.k] ?? null, SAT.push, SAT.equal), dsat: satAdd(sats[0]!, SAT.push, SAT.equal) };
      }
    }
  }

  /** Core's ToScript: the script, with VERIFY folded into a final EQUAL/CHECKSIG/CHECKMULTISIG/NUMEQUAL where it follows. */
  toScript(ctx: ScriptContext): Uint8Array {
    // The state is whether an OP_VERIFY follows the node's script, to be folded into its last opcode.
    return joinBytes(emit<Uint8Array, boolean>(this, false, (node, verify) => node.scriptLayout(ctx, verify))!);
  }

  /** This node's script, its children's scripts left as places (Core's ToScript upfn, with downfn's states). */
  private scriptLayout(ctx: ScriptContext, verify: boolean): Layout<Uint8Array, boolean> {
    const child = (i: number): Place<boolean> => {
      const inherits = this.fragment === 's' || (this.fragment === 'and_v' && i === 1);
      return new Place(this.subs[i]!, this.fragment === 'v' ? true : inherits && verify);
    };
    const op = (...codes: number[]) => Uint8Array.from(codes);
    const hashCheck = (hashOp: number) => [
      op(OP.OP_SIZE),
      pushInt(32),
      op(OP.OP_EQUALVERIFY, hashOp),
      pushData(this.data),
      op(verify ? OP.OP_EQUALVERIFY : OP.OP_EQUAL),
    ];
    switch (this.fragment) {
      case 'pk_k':
        return [pushData(ctx.toPKBytes(this.keys[0]!))];
      case 'pk_h':
        return [op(OP.OP_DUP, OP.OP_HASH160), pushData(ctx.toPKHBytes(this.keys[0]!)), op(OP.OP_EQUALVERIFY)];
      case 'older':
        return [pushInt(this.k), op(OP.OP_CHECKSEQUENCEVERIFY)];
      case 'after':
        return [pushInt(this.k), op(OP.OP_CHECKLOCKTIMEVERIFY)];
      case 'sha256':
        return hashCheck(OP.OP_SHA256);
      case 'ripemd160':
        return hashCheck(OP.OP_RIPEMD160);
      case 'hash256':
        return hashCheck(OP.OP_HASH256);
      case 'hash160':
        return hashCheck(OP.OP_HASH160);
      case 'a':
        return [op(OP.OP_TOALTSTACK), child(0), op(OP.OP_FROMALTSTACK)];
      case 's':
        return [op(OP.OP_SWAP), child(0)];
      case 'c':
        return [child(0), op(verify ? OP.OP_CHECKSIGVERIFY : OP.OP_CHECKSIG)];
      case 'd':
        return [op(OP.OP_DUP, OP.OP_IF), child(0), op(OP.OP_ENDIF)];
      case 'v':
        return has(this.subs[0]!.type, mst('x')) ? [child(0), op(OP.OP_VERIFY)] : [child(0)];
      case 'j':
        return [op(OP.OP_SIZE, OP.OP_0NOTEQUAL, OP.OP_IF), child(0), op(OP.OP_ENDIF)];
      case 'n':
        return [child(0), op(OP.OP_0NOTEQUAL)];
      case '1':
        return [op(OP.OP_1)];
      case '0':
        return [op(OP.OP_0)];
      case 'and_v':
        return [child(0), child(1)];
      case 'and_b':
        return [child(0), child(1), op(OP.OP_BOOLAND)];
      case 'or_b':
        return [child(0), child(1), op(OP.OP_BOOLOR)];
      case 'or_d':
        return [child(0), op(OP.OP_IFDUP, OP.OP_NOTIF), child(1), op(OP.OP_ENDIF)];
      case 'or_c':
        return [child(0), op(OP.OP_NOTIF), child(1), op(OP.OP_ENDIF)];
      case 'or_i':
        return [op(OP.OP_IF), child(0), op(OP.OP_ELSE), child(1), op(OP.OP_ENDIF)];
      case 'andor':
        return [child(0), op(OP.OP_NOTIF), child(2), op(OP.OP_ELSE), child(1), op(OP.OP_ENDIF)];
      case 'multi':
        return [
          pushInt(this.k),
          ...this.keys.map((key) => pushData(ctx.toPKBytes(key))),
          pushInt(this.keys.length),
          op(verify ? OP.OP_CHECKMULTISIGVERIFY : OP.OP_CHECKMULTISIG),
        ];
      case 'multi_a':
        return [
          ...this.keys.flatMap((key, i) => [pushData(ctx.toPKBytes(key)), op(i === 0 ? OP.OP_CHECKSIG : OP.OP_CHECKSIGADD)]),
          pushInt(this.k),
          op(verify ? OP.OP_NUMEQUALVERIFY : OP.OP_NUMEQUAL),
        ];
      case 'thresh':
        return [...this.subs.flatMap((_, i) => (i === 0 ? [child(0)] : [child(i), op(OP.OP_ADD)])), pushInt(this.k), op(verify ? OP.OP_EQUALVERIFY : OP.OP_EQUAL)];
    }
  }

  /**
   * Core's ToString: the canonical text, with the sugar forms (pk, pkh, t:, l:, u:, and_n)
   * wherever they apply; null when a key cannot be printed.
   */
  toString(printKey: KeyPrinter): string | null {
    // The state is whether the parent is a wrapper, so that a non-wrapper needs a ':' before it.
    return emit<string, boolean>(this, false, (node, wrapped) => node.textLayout(printKey, wrapped))?.join('') ?? null;
  }

  /** This node's text, its children's texts left as places (Core's ToString upfn, with downfn's states); null when a key cannot be printed. */
  private textLayout(printKey: KeyPrinter, wrapped: boolean): Layout<string, boolean> | null {
    const f = this.fragment;
    const subs = this.subs;
    const childrenWrapped =
      WRAPPERS.has(f) || (f === 'and_v' && subs[1]!.fragment === '1') || (f === 'or_i' && (subs[0]!.fragment === '0' || subs[1]!.fragment === '0'));
    const child = (i: number) => new Place(subs[i]!, childrenWrapped);
    const prefix = wrapped ? ':' : '';
    const withArgs = (name: string, args: (string | Place<boolean>)[]): Layout<string, boolean> => [
      `${prefix}${name}(`,
      ...args.flatMap((arg, i) => (i === 0 ? [arg] : [',', arg])),
      ')',
    ];
    const keyTexts = (keys: readonly number[]): string[] | null => {
      const texts = keys.map(printKey);
      return texts.includes(null) ? null : (texts as string[]);
    };
    if (f === 'c' && (subs[0]!.fragment === 'pk_k' || subs[0]!.fragment === 'pk_h')) {
      const key = keyTexts(subs[0]!.keys);
      return key && withArgs(subs[0]!.fragment === 'pk_k' ? 'pk' : 'pkh', key);
    }
    if (WRAPPERS.has(f)) return [f, child(0)];
    if (f === 'and_v' && subs[1]!.fragment === '1') return ['t', child(0)];
    if (f === 'or_i' && subs[0]!.fragment === '0') return ['l', child(1)];
    if (f === 'or_i' && subs[1]!.fragment === '0') return ['u', child(0)];
    switch (f) {
      case 'pk_k':
      case 'pk_h': {
        const key = keyTexts(this.keys);
        return key && withArgs(f, key);
      }
      case 'after':
      case 'older':
        return withArgs(f, [String(this.k)]);
      case 'hash256':
      case 'hash160':
      case 'sha256':
      case 'ripemd160':
        return withArgs(f, [toHex(this.data)]);
      case '1':
      case '0':
        return [prefix + f];
      case 'andor':
        if (subs[2]!.fragment === '0') return withArgs('and_n', [child(0), child(1)]);
        return withArgs('andor', [child(0), child(1), child(2)]);
      case 'multi':
      case 'multi_a': {
        const keys = keyTexts(this.keys);
        return keys && withArgs(f, [String(this.k), ...keys]);
      }
      case 'thresh':
        return withArgs('thresh', [String(this.k), ...subs.map((_, i) => child(i))]);
      default:
        return withArgs(f, subs.map((_, i) => child(i)));
    }
  }

  /**
   * Core's DuplicateKeyCheck: sets hasDuplicateKeys on this node and every node below.
   * `identity` maps a key to what Core's KeyCompare treats as equal.
   */
  duplicateKeyCheck(identity: (key: number) => string): void {
    // Each node's result: the identities of the keys below it, or null once a duplicate is found.
    treeEval<null, Set<string> | null>(
      this,
      null,
      () => null,
      (_, node, childSets) => {
        if (node.hasDuplicateKeys) return null;
        const found = (): null => {
          node.hasDuplicateKeys = true;
          return null;
        };
        if (childSets.includes(null)) return found();
        const sets = childSets as Set<string>[];
        const total = node.keys.length + sets.reduce((sum, set) => sum + set.size, 0);
        // Grow the largest child's set (no longer needed as it was), as Core merges into the larger.
        const largest = sets.reduce<Set<string> | null>((best, set) => (!best || set.size > best.size ? set : best), null);
        const seen = largest ?? new Set<string>();
        for (const key of node.keys) seen.add(identity(key));
        for (const set of sets) if (set !== seen) for (const id of set) seen.add(id);
        if (seen.size !== total) return found();
        node.hasDuplicateKeys = false;
        return seen;
      },
    );
  }

  /** Core's GetOps: opcodes executed by the costliest non-malleable satisfaction; null if none. */
  getOps(): number | null {
    return this.ops.sat === null ? null : this.ops.count + this.ops.sat;
  }

  checkOpsLimit(): boolean {
    if (this.tapscript) return true;
    const ops = this.getOps();
    return ops === null || ops <= MAX_OPS_PER_SCRIPT;
  }

  private isBKW(): number {
    return (this.type & mst('BKW')) !== 0 ? 1 : 0;
  }

  /** Core's GetStackSize: witness elements the costliest satisfaction needs; null if none exists. */
  getStackSize(): number | null {
    const sat = this.stackSize.sat;
    return sat === null ? null : sat[0] + this.isBKW();
  }

  getExecStackSize(): number | null {
    const sat = this.stackSize.sat;
    return sat === null ? null : sat[1] + this.isBKW();
  }

  checkStackSize(): boolean {
    if (this.tapscript) {
      const exec = this.getExecStackSize();
      return exec === null || exec <= MAX_STACK_SIZE;
    }
    const size = this.getStackSize();
    return size === null || size <= MAX_STANDARD_P2WSH_STACK_ITEMS;
  }

  isNotSatisfiable(): boolean {
    return this.getStackSize() === null;
  }

  isValid(): boolean {
    return this.type !== 0 && this.scriptSize <= maxScriptSize(this.ctx);
  }

  isValidTopLevel(): boolean {
    return this.isValid() && has(this.type, mst('B'));
  }

  isNonMalleable(): boolean {
    return has(this.type, mst('m'));
  }

  needsSignature(): boolean {
    return has(this.type, mst('s'));
  }

  checkTimeLocksMix(): boolean {
    return has(this.type, mst('k'));
  }

  checkDuplicateKey(): boolean {
    return this.hasDuplicateKeys === false;
  }

  validSatisfactions(): boolean {
    return this.isValid() && this.checkOpsLimit() && this.checkStackSize();
  }

  isSaneSubexpression(): boolean {
    return this.validSatisfactions() && this.isNonMalleable() && this.checkTimeLocksMix() && this.checkDuplicateKey();
  }

  isSane(): boolean {
    return this.isValidTopLevel() && this.isSaneSubexpression() && this.needsSignature();
  }

  /** Core's FindInsaneSub: the first (depth-first, leftmost) insane node with no insane child. */
  findInsaneSub(): Node | null {
    return treeEval<null, Node | null>(this, null, () => null, (_, node, subs) => subs.find((sub) => sub !== null) ?? (node.isSaneSubexpression() ? null : node));
  }
}
