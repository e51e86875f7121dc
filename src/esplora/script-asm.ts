/**
 * Scripts as Esplora shows them: rust-bitcoin's asm (electrs prints `Script`'s Debug
 * form), which names opcodes differently from Core's ScriptToAsmStr — every push is
 * `OP_PUSHBYTES_n <hex>`, small numbers are `OP_PUSHNUM_n`, 0xb1/0xb2 are OP_CLTV/OP_CSV,
 * undefined opcodes are `OP_RETURN_n` — and electrs's scriptpubkey_type names.
 */

const NAMED: Record<number, string> = {
  0x4c: 'OP_PUSHDATA1', 0x4d: 'OP_PUSHDATA2', 0x4e: 'OP_PUSHDATA4', 0x4f: 'OP_PUSHNUM_NEG1', 0x50: 'OP_RESERVED',
  0x61: 'OP_NOP', 0x62: 'OP_VER', 0x63: 'OP_IF', 0x64: 'OP_NOTIF', 0x65: 'OP_VERIF', 0x66: 'OP_VERNOTIF', 0x67: 'OP_ELSE',
  0x68: 'OP_ENDIF', 0x69: 'OP_VERIFY', 0x6a: 'OP_RETURN', 0x6b: 'OP_TOALTSTACK', 0x6c: 'OP_FROMALTSTACK', 0x6d: 'OP_2DROP',
  0x6e: 'OP_2DUP', 0x6f: 'OP_3DUP', 0x70: 'OP_2OVER', 0x71: 'OP_2ROT', 0x72: 'OP_2SWAP', 0x73: 'OP_IFDUP', 0x74: 'OP_DEPTH',
  0x75: 'OP_DROP', 0x76: 'OP_DUP', 0x77: 'OP_NIP', 0x78: 'OP_OVER', 0x79: 'OP_PICK', 0x7a: 'OP_ROLL', 0x7b: 'OP_ROT',
  0x7c: 'OP_SWAP', 0x7d: 'OP_TUCK', 0x7e: 'OP_CAT', 0x7f: 'OP_SUBSTR', 0x80: 'OP_LEFT', 0x81: 'OP_RIGHT', 0x82: 'OP_SIZE',
  0x83: 'OP_INVERT', 0x84: 'OP_AND', 0x85: 'OP_OR', 0x86: 'OP_XOR', 0x87: 'OP_EQUAL', 0x88: 'OP_EQUALVERIFY',
  0x89: 'OP_RESERVED1', 0x8a: 'OP_RESERVED2', 0x8b: 'OP_1ADD', 0x8c: 'OP_1SUB', 0x8d: 'OP_2MUL', 0x8e: 'OP_2DIV',
  0x8f: 'OP_NEGATE', 0x90: 'OP_ABS', 0x91: 'OP_NOT', 0x92: 'OP_0NOTEQUAL', 0x93: 'OP_ADD', 0x94: 'OP_SUB', 0x95: 'OP_MUL',
  0x96: 'OP_DIV', 0x97: 'OP_MOD', 0x98: 'OP_LSHIFT', 0x99: 'OP_RSHIFT', 0x9a: 'OP_BOOLAND', 0x9b: 'OP_BOOLOR',
  0x9c: 'OP_NUMEQUAL', 0x9d: 'OP_NUMEQUALVERIFY', 0x9e: 'OP_NUMNOTEQUAL', 0x9f: 'OP_LESSTHAN', 0xa0: 'OP_GREATERTHAN',
  0xa1: 'OP_LESSTHANOREQUAL', 0xa2: 'OP_GREATERTHANOREQUAL', 0xa3: 'OP_MIN', 0xa4: 'OP_MAX', 0xa5: 'OP_WITHIN',
  0xa6: 'OP_RIPEMD160', 0xa7: 'OP_SHA1', 0xa8: 'OP_SHA256', 0xa9: 'OP_HASH160', 0xaa: 'OP_HASH256', 0xab: 'OP_CODESEPARATOR',
  0xac: 'OP_CHECKSIG', 0xad: 'OP_CHECKSIGVERIFY', 0xae: 'OP_CHECKMULTISIG', 0xaf: 'OP_CHECKMULTISIGVERIFY', 0xb0: 'OP_NOP1',
  0xb1: 'OP_CLTV', 0xb2: 'OP_CSV', 0xb3: 'OP_NOP4', 0xb4: 'OP_NOP5', 0xb5: 'OP_NOP6', 0xb6: 'OP_NOP7', 0xb7: 'OP_NOP8',
  0xb8: 'OP_NOP9', 0xb9: 'OP_NOP10', 0xba: 'OP_CHECKSIGADD', 0xff: 'OP_INVALIDOPCODE',
};

function opcodeName(op: number): string {
  if (op === 0) return 'OP_0';
  if (op <= 0x4b) return `OP_PUSHBYTES_${op}`;
  if (op >= 0x51 && op <= 0x60) return `OP_PUSHNUM_${op - 0x50}`;
  return NAMED[op] ?? `OP_RETURN_${op}`;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** rust-bitcoin's Script asm (bytes_to_asm_fmt), including its markers for malformed pushes. */
export function esploraAsm(script: Uint8Array): string {
  let out = '';
  let i = 0;
  while (i < script.length) {
    const op = script[i++]!;
    let dataLength = 0;
    if (op <= 0x4b) dataLength = op;
    else if (op >= 0x4c && op <= 0x4e) {
      const size = op === 0x4c ? 1 : op === 0x4d ? 2 : 4;
      if (script.length - i < size) {
        out += '<unexpected end>';
        break;
      }
      for (let b = size - 1; b >= 0; b--) dataLength = dataLength * 256 + script[i + b]!;
      i += size;
    }
    if (out.length > 0) out += ' ';
    out += opcodeName(op);
    if (dataLength > 0) {
      if (dataLength > script.length - i) {
        out += ' <push past end>';
        break;
      }
      out += ` ${hex(script.subarray(i, i + dataLength))}`;
      i += dataLength;
    }
  }
  return out;
}

function isP2sh(s: Uint8Array): boolean {
  return s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87;
}

function isP2wsh(s: Uint8Array): boolean {
  return s.length === 34 && s[0] === 0x00 && s[1] === 0x20;
}

/** electrs's scriptpubkey_type (first match wins; bare multisig is "unknown" there). */
export function esploraScriptType(s: Uint8Array): string {
  if (s.length === 0) return 'empty';
  if (s[0] === 0x6a) return 'op_return';
  if ((s.length === 67 && s[0] === 0x41 && s[66] === 0xac) || (s.length === 35 && s[0] === 0x21 && s[34] === 0xac)) return 'p2pk';
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac) return 'p2pkh';
  if (isP2sh(s)) return 'p2sh';
  if (s.length === 22 && s[0] === 0x00 && s[1] === 0x14) return 'v0_p2wpkh';
  if (isP2wsh(s)) return 'v0_p2wsh';
  if (s.length === 34 && s[0] === 0x51 && s[1] === 0x20) return 'v1_p2tr';
  return 'unknown';
}

/** The last push of a scriptSig (rust-bitcoin's Instruction::PushBytes, OP_0 included), if the script ends with one. */
function lastPush(script: Uint8Array): Uint8Array | undefined {
  let last: Uint8Array | undefined;
  let i = 0;
  while (i < script.length) {
    const op = script[i++]!;
    let length = -1;
    if (op <= 0x4b) length = op;
    else if (op >= 0x4c && op <= 0x4e) {
      const size = op === 0x4c ? 1 : op === 0x4d ? 2 : 4;
      if (script.length - i < size) return undefined;
      length = 0;
      for (let b = size - 1; b >= 0; b--) length = length * 256 + script[i + b]!;
      i += size;
    }
    if (length < 0) {
      last = undefined;
      continue;
    }
    if (length > script.length - i) return undefined;
    last = script.subarray(i, i + length);
    i += length;
  }
  return last;
}

/** electrs's get_innerscripts: the redeem script of a P2SH spend and the witness script of a P2WSH (or P2SH-P2WSH) spend. */
export function innerScripts(prevoutScript: Uint8Array, scriptSig: Uint8Array, witness: readonly Uint8Array[]): { redeem?: Uint8Array; witness?: Uint8Array } {
  const redeem = isP2sh(prevoutScript) ? lastPush(scriptSig) : undefined;
  const wantsWitness = isP2wsh(prevoutScript) || (redeem !== undefined && isP2wsh(redeem));
  const witnessScript = wantsWitness && witness.length > 0 ? witness[witness.length - 1] : undefined;
  return { ...(redeem ? { redeem } : {}), ...(witnessScript ? { witness: witnessScript } : {}) };
}
