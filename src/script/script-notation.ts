/**
 * Core's ParseScript (core_read.cpp): the space-separated script notation used by the
 * consensus vectors (script_tests, tx_valid, tx_invalid) and by decodescript-style tools.
 */
import { concatBytes, fromHex, isHex } from '../primitives/index.js';
import { MAX_OPCODE, OP, opcodeName } from './opcodes.js';
import { pushData } from './parse.js';
import { encodeScriptNum } from './scriptnum.js';

/** The text is not valid script notation; the message is Core's "script parse error: ..." text. */
export class ScriptParseError extends Error {
  override readonly name = 'ScriptParseError';
}

/**
 * Opcode names Core's ParseScript accepts: OP_RESERVED and OP_NOP..MAX_OPCODE under the
 * names GetOpName prints, each also without its OP_ prefix. Push and small-number opcodes
 * are deliberately absent (numbers are written as decimals, pushes as 0x bytes), and so
 * is OP_CHECKSIGADD, which lies above MAX_OPCODE; NOP2/NOP3 are spelled by their
 * soft-fork names, as GetOpName prints them.
 */
const PARSEABLE_OPCODES: ReadonlyMap<string, number> = (() => {
  const names = new Map<string, number>();
  for (let op = 0; op <= MAX_OPCODE; op++) {
    if (op < OP.OP_NOP && op !== OP.OP_RESERVED) continue;
    const name = opcodeName(op);
    if (name === 'OP_UNKNOWN') continue;
    names.set(name, op);
    if (name.startsWith('OP_')) names.set(name.slice(3), op);
  }
  return names;
})();

/** The largest magnitude ParseScript accepts as a decimal token. */
const MAX_DECIMAL = 0xffffffff;

/** Core's CScript::push_int64: OP_1NEGATE/OP_0..OP_16 for small values, else a minimal CScriptNum push. */
function pushNumber(value: number): Uint8Array {
  if (value === -1 || (value >= 1 && value <= 16)) return Uint8Array.of(OP.OP_1 + value - 1);
  if (value === 0) return Uint8Array.of(OP.OP_0);
  return pushData(encodeScriptNum(value));
}

const DECIMAL = /^-?[0-9]+$/;
const UTF8 = new TextEncoder();

function parseToken(word: string): Uint8Array {
  if (DECIMAL.test(word)) {
    // A lone "-" fails the pattern and falls through to the opcode lookup, as in Core.
    const value = Number(word);
    if (!Number.isSafeInteger(value) || value > MAX_DECIMAL || value < -MAX_DECIMAL) {
      throw new ScriptParseError('script parse error: decimal numeric value only allowed in the range -0xFFFFFFFF...0xFFFFFFFF');
    }
    // Number("-0") is -0; the push is OP_0 either way.
    return pushNumber(value === 0 ? 0 : value);
  }
  if (word.startsWith('0x') && word.length > 2 && isHex(word.slice(2))) {
    // Raw bytes, inserted as-is rather than pushed.
    return fromHex(word.slice(2));
  }
  if (word.length >= 2 && word.startsWith("'") && word.endsWith("'")) {
    // Core pushes the token's own bytes, so non-ASCII text pushes its UTF-8 encoding.
    return pushData(UTF8.encode(word.slice(1, -1)));
  }
  const opcode = PARSEABLE_OPCODES.get(word);
  if (opcode === undefined) throw new ScriptParseError('script parse error: unknown opcode');
  return Uint8Array.of(opcode);
}

/**
 * Parses test notation into script bytes. Tokens are split on space, tab and newline:
 * decimals become minimal number pushes, `0x..` is raw bytes, `'text'` pushes its
 * characters, anything else must be an opcode name with or without OP_. Throws
 * ScriptParseError on anything Core's ParseScript rejects.
 */
export function parseTestScript(text: string): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const word of text.split(/[ \t\n]/)) {
    if (word !== '') parts.push(parseToken(word));
  }
  return concatBytes(...parts);
}
