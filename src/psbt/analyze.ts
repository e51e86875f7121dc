/** Core's AnalyzePSBT (node/psbt.cpp): each input's state and missing data, the next role, fee and size estimates. */
import { Transaction, type TxOut } from '../primitives/index.js';
import { isUnspendable, STANDARD_SCRIPT_VERIFY_FLAGS, transactionSigOpCost } from '../script/index.js';
import { feeRatePerKvB, virtualSize } from '../mempool/index.js';
import { DUMMY_PSBT_SIGNER, inputSignedAndVerified, precomputePsbtData, signPsbtInput } from './sign.js';
import { inputUtxo, type Psbt } from './types.js';

export type PsbtRole = 'creator' | 'updater' | 'signer' | 'finalizer' | 'extractor';
const ROLE_ORDER: readonly PsbtRole[] = ['creator', 'updater', 'signer', 'finalizer', 'extractor'];

export interface InputAnalysis {
  hasUtxo: boolean;
  isFinal: boolean;
  next: PsbtRole;
  missingPubkeys: string[];
  missingSigs: string[];
  missingRedeemScript: string;
  missingWitnessScript: string;
}

export interface PsbtAnalysis {
  inputs: InputAnalysis[];
  next: PsbtRole;
  fee?: bigint;
  estimatedVsize?: number;
  estimatedFeerate?: bigint;
  error?: string;
}

const MAX_MONEY = 2_100_000_000_000_000n;
const moneyRange = (v: bigint) => v >= 0n && v <= MAX_MONEY;
/** Core's DEFAULT_BYTES_PER_SIGOP. */
const BYTES_PER_SIGOP = 20;

const invalid = (error: string): PsbtAnalysis => ({ inputs: [], next: 'creator', error });

const clonePsbt = (psbt: Psbt): Psbt => ({
  ...psbt,
  inputs: psbt.inputs.map((input) => ({ ...input, partialSigs: new Map(input.partialSigs), hdKeypaths: new Map(input.hdKeypaths) })),
});

export function analyzePsbt(original: Psbt): PsbtAnalysis {
  const psbt = clonePsbt(original);
  let calcFee = true;
  let inAmount = 0n;
  const txdata = precomputePsbtData(psbt);
  const inputs: InputAnalysis[] = [];
  for (let i = 0; i < psbt.inputs.length; i++) {
    const input = psbt.inputs[i]!;
    const analysis: InputAnalysis = { hasUtxo: false, isFinal: false, next: 'extractor', missingPubkeys: [], missingSigs: [], missingRedeemScript: '', missingWitnessScript: '' };
    inputs.push(analysis);
    const utxo = inputUtxo(psbt, i);
    if (utxo) {
      if (!moneyRange(utxo.value) || !moneyRange(inAmount + utxo.value)) return invalid(`PSBT is not valid. Input ${i} has invalid value`);
      inAmount += utxo.value;
      analysis.hasUtxo = true;
    } else {
      if (input.nonWitnessUtxo && psbt.tx.inputs[i]!.prevout.vout >= input.nonWitnessUtxo.outputs.length) return invalid(`PSBT is not valid. Input ${i} specifies invalid prevout`);
      analysis.next = 'updater';
      calcFee = false;
    }
    if (utxo && isUnspendable(utxo.scriptPubKey)) return invalid(`PSBT is not valid. Input ${i} spends unspendable output`);
    if (!inputSignedAndVerified(psbt, i, txdata)) {
      analysis.isFinal = false;
      const { error, data } = signPsbtInput(DUMMY_PSBT_SIGNER, psbt, i, txdata, null);
      if (error !== 'ok') {
        analysis.missingPubkeys = data?.missingPubkeys ?? [];
        analysis.missingRedeemScript = data?.missingRedeemScript ?? '';
        analysis.missingWitnessScript = data?.missingWitnessScript ?? '';
        analysis.missingSigs = data?.missingSigs ?? [];
        const onlySigs = analysis.missingPubkeys.length === 0 && !analysis.missingRedeemScript && !analysis.missingWitnessScript && analysis.missingSigs.length > 0;
        analysis.next = onlySigs ? 'signer' : 'updater';
      } else {
        analysis.next = 'finalizer';
      }
    } else if (utxo) {
      analysis.isFinal = true;
    }
  }
  const next = inputs.reduce<PsbtRole>((role, input) => (ROLE_ORDER.indexOf(input.next) < ROLE_ORDER.indexOf(role) ? input.next : role), 'extractor');
  const result: PsbtAnalysis = { inputs, next };
  if (!calcFee) return result;

  let outAmount = 0n;
  for (const out of psbt.tx.outputs) {
    if (!moneyRange(outAmount) || !moneyRange(out.value) || !moneyRange(outAmount + out.value)) {
      outAmount = -1n;
      continue;
    }
    outAmount += out.value;
  }
  if (!moneyRange(outAmount)) return invalid('PSBT is not valid. Output amount invalid');
  const fee = inAmount - outAmount;
  result.fee = fee;

  const spent: TxOut[] = [];
  const txInputs = [];
  for (let i = 0; i < psbt.inputs.length; i++) {
    const utxo = inputUtxo(psbt, i);
    if (signPsbtInput(DUMMY_PSBT_SIGNER, psbt, i, null, null).error !== 'ok' || !utxo) return result;
    spent.push(utxo);
    txInputs.push({ ...psbt.tx.inputs[i]!, scriptSig: psbt.inputs[i]!.finalScriptSig, witness: psbt.inputs[i]!.finalScriptWitness });
  }
  const signed = new Transaction({ version: psbt.tx.version, inputs: txInputs, outputs: psbt.tx.outputs, locktime: psbt.tx.locktime });
  const vsize = virtualSize(signed.weight, transactionSigOpCost(signed, spent, STANDARD_SCRIPT_VERIFY_FLAGS), BYTES_PER_SIGOP);
  result.estimatedVsize = vsize;
  result.estimatedFeerate = feeRatePerKvB(fee, vsize);
  return result;
}
