/**
 * Core's Solver (script/solver.cpp): which standard template a scriptPubKey matches and
 * the data the template carries. Type names are Core's GetTxnOutputType strings, as
 * RPC prints them. The order of the checks is Core's and matters: P2SH first, then
 * witness programs, then OP_RETURN data, then the bare key templates.
 */
import { MAX_PUBKEYS_PER_MULTISIG } from './limits.js';
import { OP } from './opcodes.js';
import { isMinimalPush, isPayToScriptHash, isPushOnly, readOp, witnessProgram } from './parse.js';
import { decodeScriptNum, ScriptNumError } from './scriptnum.js';
import { isValidPublicKeySize } from './secp256k1.js';

export const TXOUT_TYPES = [
  'nonstandard',
  'pubkey',
  'pubkeyhash',
  'scripthash',
  'multisig',
  'nulldata',
  'witness_v0_keyhash',
  'witness_v0_scripthash',
  'witness_v1_taproot',
  'witness_unknown',
  'anchor',
] as const;

export type TxoutType = (typeof TXOUT_TYPES)[number];

export type Solution =
  | { type: 'nonstandard' }
  | { type: 'pubkey'; pubkey: Uint8Array }
  | { type: 'pubkeyhash'; hash: Uint8Array }
  | { type: 'scripthash'; hash: Uint8Array }
  | { type: 'multisig'; required: number; pubkeys: Uint8Array[] }
  | { type: 'nulldata' }
  | { type: 'witness_v0_keyhash'; program: Uint8Array }
  | { type: 'witness_v0_scripthash'; program: Uint8Array }
  | { type: 'witness_v1_taproot'; program: Uint8Array }
  | { type: 'witness_unknown'; version: number; program: Uint8Array }
  | { type: 'anchor' };

/** P2A (pay-to-anchor, Core 28+): OP_1 followed by the two-byte push 0x4e73. */
export function isPayToAnchor(script: Uint8Array): boolean {
  return script.length === 4 && script[0] === OP.OP_1 && script[1] === 0x02 && script[2] === 0x4e && script[3] === 0x73;
}

/** <33- or 65-byte key> OP_CHECKSIG, the key's size agreeing with its header byte. */
function matchPayToPubkey(script: Uint8Array): Uint8Array | null {
  for (const size of [65, 33]) {
    if (script.length === size + 2 && script[0] === size && script[size + 1] === OP.OP_CHECKSIG) {
      const key = script.subarray(1, size + 1);
      return isValidPublicKeySize(key) ? key : null;
    }
  }
  return null;
}

/** OP_DUP OP_HASH160 <20 bytes> OP_EQUALVERIFY OP_CHECKSIG. */
function matchPayToPubkeyHash(script: Uint8Array): Uint8Array | null {
  if (
    script.length === 25 &&
    script[0] === OP.OP_DUP &&
    script[1] === OP.OP_HASH160 &&
    script[2] === 20 &&
    script[23] === OP.OP_EQUALVERIFY &&
    script[24] === OP.OP_CHECKSIG
  ) {
    return script.subarray(3, 23);
  }
  return null;
}

/**
 * A multisig key count: OP_1..OP_16, or (for 17..20) a minimal push of a minimal script
 * number. Null when the element is anything else or the count is outside 1..20.
 */
function multisigKeyCount(opcode: number, data: Uint8Array | undefined): number | null {
  let count: number;
  if (opcode >= OP.OP_1 && opcode <= OP.OP_16) {
    count = opcode - (OP.OP_1 - 1);
  } else if (opcode > OP.OP_0 && opcode <= OP.OP_PUSHDATA4 && data) {
    if (!isMinimalPush(data, opcode)) return null;
    try {
      count = decodeScriptNum(data, true);
    } catch (err) {
      if (err instanceof ScriptNumError) return null;
      throw err;
    }
  } else {
    return null;
  }
  return count > 0 && count <= MAX_PUBKEYS_PER_MULTISIG ? count : null;
}

/** <m> <key>... <n> OP_CHECKMULTISIG with 1 <= m <= n = number of keys <= 20. */
function matchMultisig(script: Uint8Array): { required: number; pubkeys: Uint8Array[] } | null {
  if (script.length < 1 || script[script.length - 1] !== OP.OP_CHECKMULTISIG) return null;
  const first = readOp(script, 0);
  if (!first) return null;
  const required = multisigKeyCount(first.opcode, first.data);
  if (required === null) return null;
  const pubkeys: Uint8Array[] = [];
  let op = readOp(script, first.end);
  while (op && op.data && isValidPublicKeySize(op.data)) {
    pubkeys.push(op.data);
    op = readOp(script, op.end);
  }
  // A truncated element reads as OP_INVALIDOPCODE in Core, which is no key count.
  if (!op) return null;
  const keyCount = multisigKeyCount(op.opcode, op.data);
  if (keyCount === null || pubkeys.length !== keyCount || keyCount < required) return null;
  // The count must be followed by the final OP_CHECKMULTISIG and nothing else.
  return op.end + 1 === script.length ? { required, pubkeys } : null;
}

export function solve(script: Uint8Array): Solution {
  if (isPayToScriptHash(script)) return { type: 'scripthash', hash: script.subarray(2, 22) };

  const witness = witnessProgram(script);
  if (witness) {
    const { version, program } = witness;
    if (version === 0 && program.length === 20) return { type: 'witness_v0_keyhash', program };
    if (version === 0 && program.length === 32) return { type: 'witness_v0_scripthash', program };
    if (version === 1 && program.length === 32) return { type: 'witness_v1_taproot', program };
    if (isPayToAnchor(script)) return { type: 'anchor' };
    if (version !== 0) return { type: 'witness_unknown', version, program };
    return { type: 'nonstandard' };
  }

  // OP_RETURN followed only by pushes is data, of any size: the size limit is relay policy.
  if (script.length >= 1 && script[0] === OP.OP_RETURN && isPushOnly(script.subarray(1))) return { type: 'nulldata' };

  const pubkey = matchPayToPubkey(script);
  if (pubkey) return { type: 'pubkey', pubkey };
  const hash = matchPayToPubkeyHash(script);
  if (hash) return { type: 'pubkeyhash', hash };
  const multisig = matchMultisig(script);
  if (multisig) return { type: 'multisig', ...multisig };
  return { type: 'nonstandard' };
}

/** Core's GetTxnOutputType of the script's template. */
export function scriptType(script: Uint8Array): TxoutType {
  return solve(script).type;
}
