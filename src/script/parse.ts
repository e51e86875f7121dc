import { OP } from './opcodes.js';

/** One decoded script element: an opcode, with its push data when it is a push. */
export interface ScriptOp {
  opcode: number;
  /** Pushed bytes for push opcodes (0x00..0x4e), otherwise undefined. */
  data: Uint8Array | undefined;
  /** Offset of the opcode byte. */
  start: number;
  /** Offset just past this element. */
  end: number;
}

/**
 * Core's GetScriptOp: reads the element at `pc`. Returns null when a push runs past the
 * end of the script (the caller decides whether that is BAD_OPCODE or a parse failure).
 */
export function readOp(script: Uint8Array, pc: number): ScriptOp | null {
  const end = opEnd(script, pc);
  if (end < 0) return null;
  const opcode = script[pc]!;
  if (opcode > OP.OP_PUSHDATA4) return { opcode, data: undefined, start: pc, end };
  return { opcode, data: script.subarray(pc + pushHeaderLength(opcode), end), start: pc, end };
}

/** Bytes before a push opcode's data: the opcode and its length field. */
function pushHeaderLength(opcode: number): number {
  return opcode < OP.OP_PUSHDATA1 ? 1 : opcode === OP.OP_PUSHDATA1 ? 2 : opcode === OP.OP_PUSHDATA2 ? 3 : 5;
}

/**
 * The offset just past the element at `pc` (its opcode is script[pc]), or -1 at the end of
 * the script or when a push runs past it: GetScriptOp's walk without building the element,
 * for scans that only look at opcodes (sigop counting reads every script of every block).
 */
export function opEnd(script: Uint8Array, pc: number): number {
  if (pc >= script.length) return -1;
  const opcode = script[pc]!;
  const cursor = pc + 1;
  if (opcode > OP.OP_PUSHDATA4) return cursor;
  let size: number;
  if (opcode < OP.OP_PUSHDATA1) {
    size = opcode;
  } else if (opcode === OP.OP_PUSHDATA1) {
    if (script.length - cursor < 1) return -1;
    size = script[cursor]!;
  } else if (opcode === OP.OP_PUSHDATA2) {
    if (script.length - cursor < 2) return -1;
    size = script[cursor]! | (script[cursor + 1]! << 8);
  } else {
    if (script.length - cursor < 4) return -1;
    size = (script[cursor]! | (script[cursor + 1]! << 8) | (script[cursor + 2]! << 16) | (script[cursor + 3]! << 24)) >>> 0;
  }
  const dataStart = pc + pushHeaderLength(opcode);
  if (script.length - dataStart < size) return -1;
  return dataStart + size;
}

/** All elements of a script; `complete` is false when it ends in a truncated push. */
export function decodeScript(script: Uint8Array): { ops: ScriptOp[]; complete: boolean } {
  const ops: ScriptOp[] = [];
  let pc = 0;
  while (pc < script.length) {
    const op = readOp(script, pc);
    if (!op) return { ops, complete: false };
    ops.push(op);
    pc = op.end;
  }
  return { ops, complete: true };
}

/** Core's IsPushOnly: every element is a push or OP_1NEGATE..OP_16 (OP_RESERVED counts, as in Core). */
export function isPushOnly(script: Uint8Array): boolean {
  let pc = 0;
  while (pc < script.length) {
    const op = readOp(script, pc);
    if (!op) return false;
    if (op.opcode > OP.OP_16) return false;
    pc = op.end;
  }
  return true;
}

/** Core's CheckMinimalPush: the push uses the shortest encoding for its data. */
export function isMinimalPush(data: Uint8Array, opcode: number): boolean {
  if (data.length === 0) return opcode === OP.OP_0;
  if (data.length === 1 && data[0]! >= 1 && data[0]! <= 16) return false;
  if (data.length === 1 && data[0] === 0x81) return false;
  if (data.length <= 75) return opcode === data.length;
  if (data.length <= 255) return opcode === OP.OP_PUSHDATA1;
  if (data.length <= 65535) return opcode === OP.OP_PUSHDATA2;
  return true;
}

/** Serializes a minimal push of `data` (Core's CScript << vector). */
export function pushData(data: Uint8Array): Uint8Array {
  const n = data.length;
  let prefix: number[];
  if (n < OP.OP_PUSHDATA1) prefix = [n];
  else if (n <= 0xff) prefix = [OP.OP_PUSHDATA1, n];
  else if (n <= 0xffff) prefix = [OP.OP_PUSHDATA2, n & 0xff, n >> 8];
  else prefix = [OP.OP_PUSHDATA4, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
  const out = new Uint8Array(prefix.length + n);
  out.set(prefix, 0);
  out.set(data, prefix.length);
  return out;
}

/** Core's IsPayToScriptHash: OP_HASH160 <20 bytes> OP_EQUAL, exactly. */
export function isPayToScriptHash(script: Uint8Array): boolean {
  return script.length === 23 && script[0] === OP.OP_HASH160 && script[1] === 0x14 && script[22] === OP.OP_EQUAL;
}

export interface WitnessProgram {
  version: number;
  program: Uint8Array;
}

/** Core's IsWitnessProgram: a version opcode followed by one direct push of 2..40 bytes. */
export function witnessProgram(script: Uint8Array): WitnessProgram | null {
  const version = witnessVersion(script);
  return version < 0 ? null : { version, program: script.subarray(2) };
}

/**
 * The witness version of a witness program script (its program is bytes 2.. of it), or -1
 * for any other script. No view is made: sigop counting asks this of every spent script,
 * and a subarray of a small (on-heap) array first moves it off the heap.
 */
export function witnessVersion(script: Uint8Array): number {
  if (script.length < 4 || script.length > 42) return -1;
  const v = script[0]!;
  if (v !== OP.OP_0 && (v < OP.OP_1 || v > OP.OP_16)) return -1;
  if (script[1]! + 2 !== script.length) return -1;
  return v === OP.OP_0 ? 0 : v - (OP.OP_1 - 1);
}

/** Core's IsUnspendable: starts with OP_RETURN or is larger than MAX_SCRIPT_SIZE. */
export function isUnspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === OP.OP_RETURN) || script.length > 10000;
}
