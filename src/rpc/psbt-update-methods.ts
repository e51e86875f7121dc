/**
 * The PSBT methods that read the chain (Core v31 rpc/rawtransaction.cpp ProcessPSBT):
 * utxoupdatepsbt and descriptorprocesspsbt fill each input's UTXO from the txindex, the
 * mempool or the UTXO set of the call's snapshot, then update and sign with descriptors.
 */
import { parseTransaction, toHex } from '../primitives/index.js';
import { finalizeAndExtract, inputIsSigned, precomputePsbtData, PsbtProvider, removeUnnecessaryTransactions, serializePsbt, signPsbtInput, updatePsbtOutput, type Psbt } from '../psbt/index.js';
import { encodeBase64, type ChainName } from '../script/index.js';
import { view } from './blockchain-read.js';
import { RPC_DESERIALIZATION_ERROR, RPC_MISC_ERROR, RpcError } from './errors.js';
import type { Json } from './json.js';
import { MempoolView, spentOutput } from './mempool-view.js';
import { addDescriptorObject } from './psbt-descriptors.js';
import { decodePsbtArg } from './psbt-methods.js';
import { defineRpcMethod } from './registry.js';
import { parseSighash, SIGHASH_NAMES } from './sign-rawtransaction.js';
import { helpExampleCli, type RpcArgSpec, type RpcCallContext, type RpcMethod } from './spec.js';

const DESCRIPTOR_FORMS: readonly RpcArgSpec[] = [
  { name: '', type: 'str', optional: true, description: 'An output descriptor' },
  {
    name: '',
    type: 'obj',
    optional: true,
    description: 'An object with an output descriptor and extra information',
    inner: [
      { name: 'desc', type: 'str', description: 'An output descriptor' },
      { name: 'range', type: 'range', default: 1000, description: 'Up to what index HD chains should be explored (either end or [begin,end])' },
    ],
  },
];

/** Core's IsSegWitOutput: a witness program, or P2SH of a known witness program. */
function isSegwitOutput(provider: PsbtProvider, script: Uint8Array): boolean {
  const isWitnessProgram = (s: Uint8Array) => s.length >= 4 && s.length <= 42 && (s[0] === 0 || (s[0]! >= 0x51 && s[0]! <= 0x60)) && s[1]! + 2 === s.length;
  if (isWitnessProgram(script)) return true;
  if (script.length === 23 && script[0] === 0xa9 && script[1] === 0x14 && script[22] === 0x87) {
    const redeem = provider.script(script.subarray(2, 22));
    return redeem !== undefined && isWitnessProgram(redeem);
  }
  return false;
}

/** Core's ProcessPSBT. */
function processPsbt(text: string, ctx: RpcCallContext, provider: PsbtProvider, sighash: number | null, finalize: boolean): Psbt {
  const psbt = decodePsbtArg(text);
  const snapshot = view(ctx);
  const missing: number[] = [];
  psbt.inputs.forEach((input, i) => {
    if (input.nonWitnessUtxo) return;
    const prevout = psbt.tx.inputs[i]!.prevout;
    const position = snapshot.txindex?.lookup(prevout.txid);
    const pooled = position ? undefined : snapshot.reader.mempoolEntry(prevout.txid);
    const bytes = position ? snapshot.readTxBytes(position) : pooled?.tx;
    if (bytes) input.nonWitnessUtxo = parseTransaction(bytes);
    else missing.push(i);
  });
  if (missing.length > 0) {
    const pool = MempoolView.of(snapshot);
    for (const i of missing) {
      const coin = spentOutput(snapshot, pool, psbt.tx.inputs[i]!.prevout);
      if (coin && isSegwitOutput(provider, coin.scriptPubKey)) psbt.inputs[i]!.witnessUtxo = coin;
    }
  }
  const txdata = precomputePsbtData(psbt);
  psbt.inputs.forEach((input, i) => {
    if (inputIsSigned(input)) return;
    // Only a sighash mismatch is an error: signing with another type than the PSBT asks is never wanted.
    if (signPsbtInput(provider, psbt, i, txdata, sighash, finalize).error === 'sighash_mismatch') {
      throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Specified sighash value does not match value stored in PSBT');
    }
  });
  psbt.outputs.forEach((_, i) => updatePsbtOutput(provider, psbt, i));
  removeUnnecessaryTransactions(psbt);
  return psbt;
}

function providerOf(descriptors: Json | undefined, chain: ChainName): PsbtProvider {
  const provider = new PsbtProvider();
  if (descriptors !== undefined && descriptors !== null) for (const item of descriptors as Json[]) addDescriptorObject(provider, item, chain);
  return provider;
}

export function psbtUpdateMethods(chain: ChainName): RpcMethod[] {
  const utxoupdatepsbt = defineRpcMethod({
    name: 'utxoupdatepsbt',
    category: 'rawtransactions',
    description: 'Updates all segwit inputs and outputs in a PSBT with data from output descriptors, the UTXO set, txindex, or the mempool.\n',
    args: [
      { name: 'psbt', type: 'str', description: 'A base64 string of a PSBT' },
      { name: 'descriptors', type: 'arr', optional: true, description: 'An array of either strings or objects', inner: DESCRIPTOR_FORMS },
    ],
    results: [{ type: 'str', description: 'The base64-encoded partially signed transaction with inputs updated' }],
    examples: helpExampleCli('utxoupdatepsbt', '"psbt"'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const provider = providerOf(args.raw[1], chain);
      provider.hideSecret = true;
      return encodeBase64(serializePsbt(processPsbt(args.string('psbt'), ctx, provider, null, false)));
    },
  });

  const descriptorprocesspsbt = defineRpcMethod({
    name: 'descriptorprocesspsbt',
    category: 'rawtransactions',
    description:
      'Update all segwit inputs in a PSBT with information from output descriptors, the UTXO set or the mempool. \n' +
      'Then, sign the inputs we are able to with information from the output descriptors. ',
    args: [
      { name: 'psbt', type: 'str', description: 'The transaction base64 string' },
      { name: 'descriptors', type: 'arr', description: 'An array of either strings or objects', inner: DESCRIPTOR_FORMS },
      {
        name: 'sighashtype',
        type: 'str',
        default: 'DEFAULT for Taproot, ALL otherwise',
        description: 'The signature hash type to sign with if not specified by the PSBT. Must be one of\n' + Object.keys(SIGHASH_NAMES).map((n) => `"${n}"`).join('\n'),
      },
      { name: 'bip32derivs', type: 'bool', default: true, description: 'Include BIP 32 derivation paths for public keys if we know them' },
      { name: 'finalize', type: 'bool', default: true, description: 'Also finalize inputs if possible' },
    ],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'str', key: 'psbt', description: 'The base64-encoded partially signed transaction' },
          { type: 'bool', key: 'complete', description: 'If the transaction has a complete set of signatures' },
          { type: 'str_hex', key: 'hex', optional: true, description: 'The hex-encoded network transaction if complete' },
        ],
      },
    ],
    examples:
      helpExampleCli('descriptorprocesspsbt', '"psbt" "[\\"descriptor1\\", \\"descriptor2\\"]"') +
      helpExampleCli('descriptorprocesspsbt', '"psbt" "[{\\"desc\\":\\"mydescriptor\\", \\"range\\":21}]"'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const provider = providerOf(args.raw[1], chain);
      const sighash = args.raw[2] === undefined || args.raw[2] === null ? null : parseSighash(args.raw[2]);
      provider.hideOrigin = !(args.optBoolean('bip32derivs') ?? true);
      const finalize = args.optBoolean('finalize') ?? true;
      const psbt = processPsbt(args.string('psbt'), ctx, provider, sighash, finalize);
      const complete = psbt.inputs.every(inputIsSigned);
      const encoded = encodeBase64(serializePsbt(psbt));
      const result: Record<string, unknown> = { psbt: encoded, complete };
      if (complete) {
        // Core's CHECK_NONFATAL: every input carries final fields, yet one of them does not verify.
        const tx = finalizeAndExtract(psbt);
        if (!tx) {
          throw new RpcError(
            RPC_MISC_ERROR,
            'Internal bug detected: FinalizeAndExtractPSBT(psbtx_copy, mtx)\nsrc/rpc/psbt-update-methods.ts (descriptorprocesspsbt)\nPlease report this issue to the tsbtcd maintainers.\n',
          );
        }
        result.hex = toHex(tx.toBytes());
      }
      return result;
    },
  });
  return [utxoupdatepsbt, descriptorprocesspsbt];
}
