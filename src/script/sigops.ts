/**
 * Signature-operation counting (Core's GetSigOpCount, GetP2SHSigOpCount, CountWitnessSigOps
 * and GetTransactionSigOpCost): the block limit is on sigop cost, so this is consensus.
 */
import { WITNESS_SCALE_FACTOR, type Transaction, type TxOut, type TxIn } from '../primitives/index.js';
import { VerifyFlags } from './flags.js';
import { MAX_PUBKEYS_PER_MULTISIG, WITNESS_V0_KEYHASH_SIZE, WITNESS_V0_SCRIPTHASH_SIZE } from './limits.js';
import { OP } from './opcodes.js';
import { isPayToScriptHash, isPushOnly, opEnd, readOp, witnessVersion } from './parse.js';

/** Sigops in one script; `accurate` counts an OP_n before CHECKMULTISIG as n instead of 20. */
export function scriptSigOpCount(script: Uint8Array, accurate: boolean): number {
  let n = 0;
  let lastOpcode = OP.OP_INVALIDOPCODE as number;
  for (let pc = 0; pc < script.length; ) {
    const end = opEnd(script, pc);
    if (end < 0) break;
    const opcode = script[pc]!;
    if (opcode === OP.OP_CHECKSIG || opcode === OP.OP_CHECKSIGVERIFY) {
      n++;
    } else if (opcode === OP.OP_CHECKMULTISIG || opcode === OP.OP_CHECKMULTISIGVERIFY) {
      n += accurate && lastOpcode >= OP.OP_1 && lastOpcode <= OP.OP_16 ? lastOpcode - (OP.OP_1 - 1) : MAX_PUBKEYS_PER_MULTISIG;
    }
    lastOpcode = opcode;
    pc = end;
  }
  return n;
}

/** The data of the last push in a push-only scriptSig (what P2SH evaluates), or null. */
function lastPushedData(scriptSig: Uint8Array): Uint8Array | null {
  let data: Uint8Array = new Uint8Array(0);
  for (let pc = 0; pc < scriptSig.length; ) {
    const op = readOp(scriptSig, pc);
    if (!op) return null;
    if (op.opcode > OP.OP_16) return null;
    data = op.data ?? new Uint8Array(0);
    pc = op.end;
  }
  return data;
}

/** Sigops of a P2SH redeem script, counted accurately; 0 when scriptPubKey is not P2SH-shaped as Core requires. */
export function p2shSigOpCount(scriptPubKey: Uint8Array, scriptSig: Uint8Array): number {
  if (!isPayToScriptHash(scriptPubKey)) return scriptSigOpCount(scriptPubKey, true);
  const redeem = lastPushedData(scriptSig);
  return redeem ? scriptSigOpCount(redeem, true) : 0;
}

/** `programLength`: the program's size, the script's minus its two leading bytes. */
function witnessProgramSigOps(version: number, programLength: number, witness: readonly Uint8Array[]): number {
  if (version === 0) {
    if (programLength === WITNESS_V0_KEYHASH_SIZE) return 1;
    if (programLength === WITNESS_V0_SCRIPTHASH_SIZE && witness.length > 0) {
      return scriptSigOpCount(witness[witness.length - 1]!, true);
    }
  }
  return 0;
}

export function witnessSigOpCount(scriptSig: Uint8Array, scriptPubKey: Uint8Array, witness: readonly Uint8Array[], flags: number): number {
  if ((flags & VerifyFlags.WITNESS) === 0) return 0;
  const direct = witnessVersion(scriptPubKey);
  if (direct >= 0) return witnessProgramSigOps(direct, scriptPubKey.length - 2, witness);
  if (isPayToScriptHash(scriptPubKey) && isPushOnly(scriptSig)) {
    const redeem = lastPushedData(scriptSig) ?? new Uint8Array(0);
    const nested = witnessVersion(redeem);
    if (nested >= 0) return witnessProgramSigOps(nested, redeem.length - 2, witness);
  }
  return 0;
}

/** Core's GetLegacySigOpCount: inaccurate counts over every scriptSig and scriptPubKey. */
export function legacySigOpCount(tx: Transaction): number {
  let n = 0;
  for (const input of tx.inputs) n += scriptSigOpCount(input.scriptSig, false);
  for (const output of tx.outputs) n += scriptSigOpCount(output.scriptPubKey, false);
  return n;
}

export function p2shSigOpCountForTx(tx: Transaction, spentOutputs: readonly TxOut[]): number {
  if (tx.isCoinbase()) return 0;
  let n = 0;
  tx.inputs.forEach((input: TxIn, i) => {
    const spent = spentOutputs[i]!;
    if (isPayToScriptHash(spent.scriptPubKey)) n += p2shSigOpCount(spent.scriptPubKey, input.scriptSig);
  });
  return n;
}

/** Core's GetTransactionSigOpCost: legacy and P2SH sigops weigh 4, witness sigops 1. */
export function transactionSigOpCost(tx: Transaction, spentOutputs: readonly TxOut[], flags: number): number {
  let cost = legacySigOpCount(tx) * WITNESS_SCALE_FACTOR;
  if (tx.isCoinbase()) return cost;
  if ((flags & VerifyFlags.P2SH) !== 0) cost += p2shSigOpCountForTx(tx, spentOutputs) * WITNESS_SCALE_FACTOR;
  tx.inputs.forEach((input, i) => {
    cost += witnessSigOpCount(input.scriptSig, spentOutputs[i]!.scriptPubKey, input.witness, flags);
  });
  return cost;
}
