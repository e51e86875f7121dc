/**
 * A miniscript expression (Core's miniscript::Node): a fragment, its children, keys (as
 * indexes into the owner's key list), hash data and number. Type, script size, opcode
 * count and stack bounds are computed once, at construction, from the children's; the
 * validity and sanity checks the descriptor parser reports read them.
 */
import { concatBytes, toHex } from '../../primitives/index.js';
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
  toScript(ctx: ScriptContext, verify = false): Uint8Array {
    const child = (i: number): Uint8Array => {
      const inherits = this.fragment === 's' || (this.fragment === 'and_v' && i === 1);
      return this.subs[i]!.toScript(ctx, this.fragment === 'v' ? true : inherits ? verify : false);
    };
    const op = (...codes: number[]) => Uint8Array.from(codes);
    const hashCheck = (hashOp: number) =>
      concatBytes(op(OP.OP_SIZE), pushInt(32), op(OP.OP_EQUALVERIFY, hashOp), pushData(this.data), op(verify ? OP.OP_EQUALVERIFY : OP.OP_EQUAL));
    switch (this.fragment) {
      case 'pk_k':
        return pushData(ctx.toPKBytes(this.keys[0]!));
      case 'pk_h':
        return concatBytes(op(OP.OP_DUP, OP.OP_HASH160), pushData(ctx.toPKHBytes(this.keys[0]!)), op(OP.OP_EQUALVERIFY));
      case 'older':
        return concatBytes(pushInt(this.k), op(OP.OP_CHECKSEQUENCEVERIFY));
      case 'after':
        return concatBytes(pushInt(this.k), op(OP.OP_CHECKLOCKTIMEVERIFY));
      case 'sha256':
        return hashCheck(OP.OP_SHA256);
      case 'ripemd160':
        return hashCheck(OP.OP_RIPEMD160);
      case 'hash256':
        return hashCheck(OP.OP_HASH256);
      case 'hash160':
        return hashCheck(OP.OP_HASH160);
      case 'a':
        return concatBytes(op(OP.OP_TOALTSTACK), child(0), op(OP.OP_FROMALTSTACK));
      case 's':
        return concatBytes(op(OP.OP_SWAP), child(0));
      case 'c':
        return concatBytes(child(0), op(verify ? OP.OP_CHECKSIGVERIFY : OP.OP_CHECKSIG));
      case 'd':
        return concatBytes(op(OP.OP_DUP, OP.OP_IF), child(0), op(OP.OP_ENDIF));
      case 'v':
        return has(this.subs[0]!.type, mst('x')) ? concatBytes(child(0), op(OP.OP_VERIFY)) : child(0);
      case 'j':
        return concatBytes(op(OP.OP_SIZE, OP.OP_0NOTEQUAL, OP.OP_IF), child(0), op(OP.OP_ENDIF));
      case 'n':
        return concatBytes(child(0), op(OP.OP_0NOTEQUAL));
      case '1':
        return op(OP.OP_1);
      case '0':
        return op(OP.OP_0);
      case 'and_v':
        return concatBytes(child(0), child(1));
      case 'and_b':
        return concatBytes(child(0), child(1), op(OP.OP_BOOLAND));
      case 'or_b':
        return concatBytes(child(0), child(1), op(OP.OP_BOOLOR));
      case 'or_d':
        return concatBytes(child(0), op(OP.OP_IFDUP, OP.OP_NOTIF), child(1), op(OP.OP_ENDIF));
      case 'or_c':
        return concatBytes(child(0), op(OP.OP_NOTIF), child(1), op(OP.OP_ENDIF));
      case 'or_i':
        return concatBytes(op(OP.OP_IF), child(0), op(OP.OP_ELSE), child(1), op(OP.OP_ENDIF));
      case 'andor':
        return concatBytes(child(0), op(OP.OP_NOTIF), child(2), op(OP.OP_ELSE), child(1), op(OP.OP_ENDIF));
      case 'multi':
        return concatBytes(
          pushInt(this.k),
          ...this.keys.map((key) => pushData(ctx.toPKBytes(key))),
          pushInt(this.keys.length),
          op(verify ? OP.OP_CHECKMULTISIGVERIFY : OP.OP_CHECKMULTISIG),
        );
      case 'multi_a':
        return concatBytes(
          ...this.keys.map((key, i) => concatBytes(pushData(ctx.toPKBytes(key)), op(i === 0 ? OP.OP_CHECKSIG : OP.OP_CHECKSIGADD))),
          pushInt(this.k),
          op(verify ? OP.OP_NUMEQUALVERIFY : OP.OP_NUMEQUAL),
        );
      case 'thresh': {
        const parts = this.subs.map((_, i) => (i === 0 ? child(0) : concatBytes(child(i), op(OP.OP_ADD))));
        return concatBytes(...parts, pushInt(this.k), op(verify ? OP.OP_EQUALVERIFY : OP.OP_EQUAL));
      }
    }
  }

  /**
   * Core's ToString: the canonical text, with the sugar forms (pk, pkh, t:, l:, u:, and_n)
   * wherever they apply; null when a key cannot be printed.
   */
  toString(printKey: KeyPrinter, wrapped = false): string | null {
    const f = this.fragment;
    const subs = this.subs;
    const childrenWrapped =
      WRAPPERS.has(f) || (f === 'and_v' && subs[1]!.fragment === '1') || (f === 'or_i' && (subs[0]!.fragment === '0' || subs[1]!.fragment === '0'));
    const strs: string[] = [];
    for (const sub of subs) {
      const text = sub.toString(printKey, childrenWrapped);
      if (text === null) return null;
      strs.push(text);
    }
    const prefix = wrapped ? ':' : '';
    const keyText = (key: number): string | null => printKey(key);
    if (f === 'c' && (subs[0]!.fragment === 'pk_k' || subs[0]!.fragment === 'pk_h')) {
      const text = keyText(subs[0]!.keys[0]!);
      if (text === null) return null;
      return `${prefix}${subs[0]!.fragment === 'pk_k' ? 'pk' : 'pkh'}(${text})`;
    }
    if (WRAPPERS.has(f)) return f + strs[0]!;
    if (f === 'and_v' && subs[1]!.fragment === '1') return 't' + strs[0]!;
    if (f === 'or_i' && subs[0]!.fragment === '0') return 'l' + strs[1]!;
    if (f === 'or_i' && subs[1]!.fragment === '0') return 'u' + strs[0]!;
    switch (f) {
      case 'pk_k':
      case 'pk_h': {
        const text = keyText(this.keys[0]!);
        return text === null ? null : `${prefix}${f}(${text})`;
      }
      case 'after':
      case 'older':
        return `${prefix}${f}(${this.k})`;
      case 'hash256':
      case 'hash160':
      case 'sha256':
      case 'ripemd160':
        return `${prefix}${f}(${toHex(this.data)})`;
      case '1':
      case '0':
        return prefix + f;
      case 'andor':
        if (subs[2]!.fragment === '0') return `${prefix}and_n(${strs[0]},${strs[1]})`;
        return `${prefix}andor(${strs.join(',')})`;
      case 'multi':
      case 'multi_a': {
        const keys: string[] = [];
        for (const key of this.keys) {
          const text = keyText(key);
          if (text === null) return null;
          keys.push(text);
        }
        return `${prefix}${f}(${[String(this.k), ...keys].join(',')})`;
      }
      case 'thresh':
        return `${prefix}thresh(${[String(this.k), ...strs].join(',')})`;
      default:
        return `${prefix}${f}(${strs.join(',')})`;
    }
  }

  /**
   * Core's DuplicateKeyCheck: sets hasDuplicateKeys on this node and every node below.
   * `identity` maps a key to what Core's KeyCompare treats as equal.
   */
  duplicateKeyCheck(identity: (key: number) => string): Set<string> | null {
    const childSets = this.subs.map((sub) => sub.duplicateKeyCheck(identity));
    if (this.hasDuplicateKeys) return null;
    if (childSets.some((set) => set === null)) {
      this.hasDuplicateKeys = true;
      return null;
    }
    const seen = new Set(this.keys.map(identity));
    let count = this.keys.length;
    if (seen.size !== count) {
      this.hasDuplicateKeys = true;
      return null;
    }
    for (const set of childSets as Set<string>[]) {
      count += set.size;
      for (const id of set) seen.add(id);
      if (seen.size !== count) {
        this.hasDuplicateKeys = true;
        return null;
      }
    }
    this.hasDuplicateKeys = false;
    return seen;
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
    for (const sub of this.subs) {
      const found = sub.findInsaneSub();
      if (found) return found;
    }
    return this.isSaneSubexpression() ? null : this;
  }

  /** Every node of the tree, this one first (Core's ForEachNode order does not matter to callers). */
  *nodes(): Generator<Node> {
    yield this;
    for (const sub of this.subs) yield* sub.nodes();
  }
}
