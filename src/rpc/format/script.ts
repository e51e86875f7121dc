/**
 * Script objects as RPC prints them (Core's ScriptToUniv and decodescript,
 * core_write.cpp / rpc/rawtransaction.cpp): the scriptPubKey object of outputs and
 * prevouts, the scriptSig object of inputs, and decodescript's result with its p2sh and
 * segwit wrappings.
 */
import { hash160, sha256, toHex } from '../../primitives/index.js';
import {
  encodeAddress,
  inferDescriptor,
  isOpSuccess,
  isUnspendable,
  MAX_OPCODE,
  MAX_SCRIPT_ELEMENT_SIZE,
  OP,
  payToScriptHashScript,
  readOp,
  ScriptKnowledge,
  scriptPubKeyDescriptor,
  scriptToAsm,
  solve,
  witnessProgramScript,
  type ChainName,
  type Solution,
  type TxoutType,
} from '../../script/index.js';
import type { ResultObject } from './result.js';
import { parseHexArg } from '../values.js';
import { jsonString } from '../json.js';

/** The scriptPubKey object: asm, desc, hex, address (when there is one), type, in Core's order. */
export interface ScriptPubKeyJson extends ResultObject {
  asm: string;
  desc: string;
  hex: string;
  address?: string;
  type: TxoutType;
}

/** An input's scriptSig object; its asm decodes signature hash types. */
export interface ScriptSigJson extends ResultObject {
  asm: string;
  hex: string;
}

/**
 * Core's ScriptToUniv(include_hex, include_address): the address only where a standard
 * destination exists and the script is not bare P2PK. `desc` may be precomputed by the
 * caller (decodescript's P2WSH needs the wrapped script known); otherwise it is inferred
 * from the same template match and address as the other fields.
 */
function scriptObject(script: Uint8Array, chain: ChainName, includeHex: boolean, desc?: string): ResultObject {
  const fields = describeScript(script, chain, desc);
  const out: ResultObject = { asm: fields.asm, desc: fields.desc };
  if (includeHex) out.hex = toHex(script);
  if (fields.address !== null) out.address = fields.address;
  out.type = fields.type;
  return out;
}

/** What ScriptToUniv prints of a script besides its hex. */
function describeScript(script: Uint8Array, chain: ChainName, desc?: string): { asm: string; desc: string; address: string | null; type: TxoutType } {
  const solution = solve(script);
  // encodeAddress already answers null for pubkey, multisig, nulldata and nonstandard.
  const address = encodeAddress(script, chain);
  return { asm: scriptToAsm(script), desc: desc ?? scriptPubKeyDescriptor(script, chain, { solution, address }), address, type: solution.type };
}

/** The scriptPubKey object of outputs, prevouts, gettxout and REST (rpc-results.md §0.8). */
export function scriptPubKeyJson(script: Uint8Array, chain: ChainName): ScriptPubKeyJson {
  return scriptObject(script, chain, true) as ScriptPubKeyJson;
}

/** scriptPubKeyJson as JSON text (what writeJson prints of it), for renderers that write text. */
export function scriptPubKeyText(script: Uint8Array, chain: ChainName): string {
  const fields = describeScript(script, chain);
  const address = fields.address === null ? '' : `,"address":"${fields.address}"`;
  return `{"asm":${jsonString(fields.asm)},"desc":${jsonString(fields.desc)},"hex":"${toHex(script)}"${address},"type":"${fields.type}"}`;
}

/** The scriptSig object of a non-coinbase input: asm with sighash decoding, and hex. */
export function scriptSigJson(script: Uint8Array): ScriptSigJson {
  return { asm: scriptToAsm(script, true), hex: toHex(script) };
}

/** scriptSigJson as JSON text. */
export function scriptSigText(script: Uint8Array): string {
  return `{"asm":${jsonString(scriptToAsm(script, true))},"hex":"${toHex(script)}"}`;
}

/**
 * Core's CScript::HasValidOps: every element parses, no opcode above MAX_OPCODE, no push
 * larger than MAX_SCRIPT_ELEMENT_SIZE.
 */
export function hasValidOps(script: Uint8Array): boolean {
  let pc = 0;
  while (pc < script.length) {
    const op = readOp(script, pc);
    if (!op || op.opcode > MAX_OPCODE || (op.data !== undefined && op.data.length > MAX_SCRIPT_ELEMENT_SIZE)) return false;
    pc = op.end;
  }
  return true;
}

/** decodescript's first test: a type that may be wrapped, valid opcodes only, spendable, nothing tapscript-only. */
function canWrapInP2sh(script: Uint8Array, type: TxoutType): boolean {
  switch (type) {
    case 'multisig':
    case 'nonstandard':
    case 'pubkey':
    case 'pubkeyhash':
    case 'witness_v0_keyhash':
    case 'witness_v0_scripthash':
      break;
    default:
      return false;
  }
  if (!hasValidOps(script) || isUnspendable(script)) return false;
  let pc = 0;
  while (pc < script.length) {
    // hasValidOps guarantees every element parses.
    const op = readOp(script, pc)!;
    if (op.opcode === OP.OP_CHECKSIGADD || isOpSuccess(op.opcode)) return false;
    pc = op.end;
  }
  return true;
}

/** Core's CPubKey::IsCompressed on a key the solver accepted: 33 bytes. */
function allKeysCompressed(keys: readonly Uint8Array[]): boolean {
  return keys.every((key) => key.length === 33);
}

/** decodescript's second test: which of the wrappable scripts also fit P2WSH (or P2WPKH). */
function canWrapInP2wsh(solution: Solution): boolean {
  switch (solution.type) {
    case 'pubkey':
      return allKeysCompressed([solution.pubkey]);
    case 'multisig':
      return allKeysCompressed(solution.pubkeys);
    case 'nonstandard':
    case 'pubkeyhash':
      return true;
    default:
      return false;
  }
}

/** The P2SH address paying to `script`. */
function p2shAddress(script: Uint8Array, chain: ChainName): string {
  return encodeAddress(payToScriptHashScript(hash160(script)), chain)!;
}

/** decodescript's "segwit" object: the P2WPKH or P2WSH form, with its own P2SH wrapping. */
function segwitJson(script: Uint8Array, solution: Solution, chain: ChainName): ResultObject {
  let segwitScript: Uint8Array;
  const knowledge = new ScriptKnowledge();
  if (solution.type === 'pubkey') {
    segwitScript = witnessProgramScript(0, hash160(solution.pubkey));
  } else if (solution.type === 'pubkeyhash') {
    segwitScript = witnessProgramScript(0, solution.hash);
  } else {
    // Scripts that are no single key become P2WSH; the descriptor knows the witness script.
    knowledge.addScript(script);
    segwitScript = witnessProgramScript(0, sha256(script));
  }
  const desc = inferDescriptor(segwitScript, chain, knowledge).toString();
  const out = scriptObject(segwitScript, chain, true, desc);
  out['p2sh-segwit'] = p2shAddress(segwitScript, chain);
  return out;
}

/**
 * decodescript's result for a script: asm, desc, address?, type (no hex), then p2sh and
 * segwit where the rules of rpc-results.md §7 allow them.
 */
export function decodeScriptJson(script: Uint8Array, chain: ChainName): ResultObject {
  const out = scriptObject(script, chain, false);
  const solution = solve(script);
  if (canWrapInP2sh(script, solution.type)) {
    out.p2sh = p2shAddress(script, chain);
    if (canWrapInP2wsh(solution)) out.segwit = segwitJson(script, solution, chain);
  }
  return out;
}

/**
 * The decodescript RPC on its argument: the empty string is the empty script, anything
 * else must be hex (-8 "argument must be hexadecimal string (not '…')").
 */
export function decodeScriptHex(hex: string, chain: ChainName): ResultObject {
  const script = hex.length > 0 ? parseHexArg(hex, 'argument') : new Uint8Array(0);
  return decodeScriptJson(script, chain);
}
