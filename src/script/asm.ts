/**
 * Core's ScriptToAsmStr (core_write.cpp): the "asm" text RPC prints for scripts.
 * Pushes of up to four bytes print as the script number they encode, longer pushes as
 * hex; opcodes print under GetOpName's names. With sighash decoding (used for
 * scriptSigs), a push that is a strictly encoded signature with a defined hash type
 * prints as hex without its last byte followed by the type's name, e.g. "...[ALL]".
 */
import { toHex } from '../primitives/index.js';
import { isValidSignatureEncoding } from './der.js';
import { opcodeName } from './opcodes.js';
import { isUnspendable, readOp } from './parse.js';
import { decodeScriptNum } from './scriptnum.js';

const SIGHASH_ANYONECANPAY = 0x80;

/** Core's mapSigHashTypes. */
const SIGHASH_NAMES: ReadonlyMap<number, string> = new Map([
  [0x01, 'ALL'],
  [0x81, 'ALL|ANYONECANPAY'],
  [0x02, 'NONE'],
  [0x82, 'NONE|ANYONECANPAY'],
  [0x03, 'SINGLE'],
  [0x83, 'SINGLE|ANYONECANPAY'],
]);

/** Core's SighashToStr: the name of a hash type, "" for one without. */
export function sighashToStr(hashType: number): string {
  return SIGHASH_NAMES.get(hashType) ?? '';
}

/** Core's CheckSignatureEncoding under STRICTENC for a non-empty push: strict DER and a defined hash type. */
function sighashSuffix(data: Uint8Array): string | undefined {
  if (!isValidSignatureEncoding(data)) return undefined;
  const hashType = data[data.length - 1]!;
  const base = hashType & ~SIGHASH_ANYONECANPAY;
  if (base < 0x01 || base > 0x03) return undefined;
  return SIGHASH_NAMES.get(hashType);
}

function pushToAsm(data: Uint8Array, decodeSighash: boolean): string {
  // Four bytes or fewer always fit a 4-byte script number, so decoding cannot fail.
  if (data.length <= 4) return String(decodeScriptNum(data, false));
  if (decodeSighash) {
    const suffix = sighashSuffix(data);
    if (suffix !== undefined) return `${toHex(data.subarray(0, data.length - 1))}[${suffix}]`;
  }
  return toHex(data);
}

/**
 * The asm text of `script`. A push running past the end prints "[error]" in its place
 * and ends the text, as in Core. Sighash decoding is skipped for unspendable scripts
 * so that OP_RETURN data shaped like a signature prints as plain hex.
 */
export function scriptToAsm(script: Uint8Array, attemptSighashDecode = false): string {
  const decodeSighash = attemptSighashDecode && !isUnspendable(script);
  const parts: string[] = [];
  let pc = 0;
  while (pc < script.length) {
    const op = readOp(script, pc);
    if (!op) {
      parts.push('[error]');
      break;
    }
    parts.push(op.data !== undefined ? pushToAsm(op.data, decodeSighash) : opcodeName(op.opcode));
    pc = op.end;
  }
  return parts.join(' ');
}
