/**
 * The PSBT methods that need no chain (Core v31 rpc/rawtransaction.cpp): decodepsbt,
 * createpsbt, converttopsbt, combinepsbt, finalizepsbt, joinpsbts and analyzepsbt, with
 * Core's help texts and errors. Front-ends and the coordinator register the same definitions.
 */
import { hashToHex, toHex, Transaction } from '../primitives/index.js';
import { analyzePsbt, combinePsbts, decodeBase64Psbt, encodePsbt, finalizeAndExtract, joinPsbts, psbtFromTransaction, serializePsbt, type Psbt } from '../psbt/index.js';
import { encodeBase64, type ChainName } from '../script/index.js';
import { RPC_DESERIALIZATION_ERROR, RPC_INVALID_PARAMETER, RpcError } from './errors.js';
import { decodeTxHex, type ResultObject } from './format/index.js';
import type { Json } from './json.js';
import { DECODEPSBT_RESULT } from './psbt-help.js';
import { decodePsbtJson } from './psbt-json.js';
import { constructTransaction, createTxDoc, DEFAULT_RAWTX_VERSION, ISWITNESS_ARG } from './rawtransaction-methods.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, type RpcMethod } from './spec.js';
import { amountJson } from './values.js';
import { getInt, getStr, UINT32_MAX } from './value-parse.js';

/** Core's DecodeBase64PSBT wrapped as the RPCs throw it. */
export function decodePsbtArg(text: string): Psbt {
  const psbt = decodeBase64Psbt(text);
  if (typeof psbt === 'string') throw new RpcError(RPC_DESERIALIZATION_ERROR, `TX decode failed ${psbt}`);
  return psbt;
}

const PSBT_ARG = { name: 'psbt', type: 'str', description: 'A base64 string of a PSBT' } as const;

function psbtList(raw: Json | undefined): Psbt[] {
  return (raw as Json[]).map((item) => decodePsbtArg(getStr(item)));
}

const ROLE_NAMES = { creator: 'creator', updater: 'updater', signer: 'signer', finalizer: 'finalizer', extractor: 'extractor' } as const;

export function psbtMethods(chain: ChainName): RpcMethod[] {
  const decodepsbt = defineRpcMethod({
    name: 'decodepsbt',
    category: 'rawtransactions',
    description: 'Return a JSON object representing the serialized, base64-encoded partially signed Bitcoin transaction.',
    args: [{ name: 'psbt', type: 'str', description: 'The PSBT base64 string' }],
    results: [DECODEPSBT_RESULT],
    examples: helpExampleCli('decodepsbt', '"psbt"'),
    handler: (args) => decodePsbtJson(decodePsbtArg(args.string('psbt')), chain),
  });

  const createpsbt = defineRpcMethod({
    name: 'createpsbt',
    category: 'rawtransactions',
    description:
      'Creates a transaction in the Partially Signed Transaction format.\n' +
      'Implements the Creator role.\n' +
      "Note that the transaction's inputs are not signed, and\n" +
      'it is not stored in the wallet or transmitted to the network.\n',
    args: createTxDoc(),
    results: [{ type: 'str', description: 'The resulting raw transaction (base64-encoded string)' }],
    examples: helpExampleCli('createpsbt', '"[{\\"txid\\":\\"myid\\",\\"vout\\":0}]" "[{\\"address\\":0.01}]"'),
    handler: (args) => {
      const rbf = args.has('replaceable') ? args.optBoolean('replaceable') : undefined;
      const version = args.has('version') ? getInt(args.raw[4], 0, UINT32_MAX) : DEFAULT_RAWTX_VERSION;
      const tx = constructTransaction({ inputs: args.array('inputs'), outputs: args.raw[1], locktime: args.raw[2], rbf, version }, chain);
      return encodePsbt(psbtFromTransaction(tx));
    },
  });

  const converttopsbt = defineRpcMethod({
    name: 'converttopsbt',
    category: 'rawtransactions',
    description:
      'Converts a network serialized transaction to a PSBT. This should be used only with createrawtransaction and fundrawtransaction\n' +
      'createpsbt and walletcreatefundedpsbt should be used for new applications.\n',
    args: [
      { name: 'hexstring', type: 'str', description: 'The hex string of a raw transaction' },
      {
        name: 'permitsigdata',
        type: 'bool',
        default: false,
        description: 'If true, any signatures in the input will be discarded and conversion\nwill continue. If false, RPC will fail if any signatures are present.',
      },
      ISWITNESS_ARG,
    ],
    results: [{ type: 'str', description: 'The resulting raw transaction (base64-encoded string)' }],
    examples:
      '\nCreate a transaction\n' +
      helpExampleCli('createrawtransaction', '"[{\\"txid\\":\\"myid\\",\\"vout\\":0}]" "[{\\"data\\":\\"00010203\\"}]"') +
      '\nConvert the transaction to a PSBT\n' +
      helpExampleCli('converttopsbt', '"rawtransaction"'),
    handler: (args) => {
      const permitSigData = args.optBoolean('permitsigdata') ?? false;
      const isWitness = args.optBoolean('iswitness');
      const tx = decodeTxHex(args.string('hexstring'), isWitness === undefined ? true : !isWitness, isWitness === undefined ? true : isWitness);
      if (!tx) throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed');
      const inputs = tx.inputs.map((input) => {
        if ((input.scriptSig.length > 0 || input.witness.length > 0) && !permitSigData) {
          throw new RpcError(RPC_DESERIALIZATION_ERROR, 'Inputs must not have scriptSigs and scriptWitnesses');
        }
        return { ...input, scriptSig: new Uint8Array(0), witness: [] };
      });
      return encodePsbt(psbtFromTransaction(new Transaction({ version: tx.version, inputs, outputs: tx.outputs, locktime: tx.locktime })));
    },
  });

  const combinepsbt = defineRpcMethod({
    name: 'combinepsbt',
    category: 'rawtransactions',
    description: 'Combine multiple partially signed Bitcoin transactions into one transaction.\nImplements the Combiner role.\n',
    args: [
      {
        name: 'txs',
        type: 'arr',
        description: 'The base64 strings of partially signed transactions',
        inner: [{ ...PSBT_ARG, optional: true }],
      },
    ],
    results: [{ type: 'str', description: 'The base64-encoded partially signed transaction' }],
    examples: helpExampleCli('combinepsbt', `'["mybase64_1", "mybase64_2", "mybase64_3"]'`),
    handler: (args) => {
      if (args.array('txs').length === 0) throw new RpcError(RPC_INVALID_PARAMETER, "Parameter 'txs' cannot be empty");
      const merged = combinePsbts(psbtList(args.raw[0]));
      if (!merged) throw new RpcError(RPC_INVALID_PARAMETER, 'PSBTs not compatible (different transactions)');
      return encodePsbt(merged);
    },
  });

  const finalizepsbt = defineRpcMethod({
    name: 'finalizepsbt',
    category: 'rawtransactions',
    description:
      'Finalize the inputs of a PSBT. If the transaction is fully signed, it will produce a\n' +
      'network serialized transaction which can be broadcast with sendrawtransaction. Otherwise a PSBT will be\n' +
      'created which has the final_scriptSig and final_scriptwitness fields filled for inputs that are complete.\n' +
      'Implements the Finalizer and Extractor roles.\n',
    args: [
      PSBT_ARG,
      {
        name: 'extract',
        type: 'bool',
        default: true,
        description: 'If true and the transaction is complete,\nextract and return the complete transaction in normal network serialization instead of the PSBT.',
      },
    ],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'str', key: 'psbt', optional: true, description: 'The base64-encoded partially signed transaction if not extracted' },
          { type: 'str_hex', key: 'hex', optional: true, description: 'The hex-encoded network transaction if extracted' },
          { type: 'bool', key: 'complete', description: 'If the transaction has a complete set of signatures' },
        ],
      },
    ],
    examples: helpExampleCli('finalizepsbt', '"psbt"'),
    handler: (args) => {
      const psbt = decodePsbtArg(args.string('psbt'));
      const extract = args.optBoolean('extract') ?? true;
      const tx = finalizeAndExtract(psbt);
      if (tx && extract) return { hex: toHex(tx.toBytes()), complete: true };
      return { psbt: encodeBase64(serializePsbt(psbt)), complete: tx !== null };
    },
  });

  const joinpsbts = defineRpcMethod({
    name: 'joinpsbts',
    category: 'rawtransactions',
    description:
      'Joins multiple distinct PSBTs with different inputs and outputs into one PSBT with inputs and outputs from all of the PSBTs\n' +
      'No input in any of the PSBTs can be in more than one of the PSBTs.\n',
    args: [{ name: 'txs', type: 'arr', description: 'The base64 strings of partially signed transactions', inner: [PSBT_ARG] }],
    results: [{ type: 'str', description: 'The base64-encoded partially signed transaction' }],
    examples: helpExampleCli('joinpsbts', '"psbt"'),
    handler: (args) => {
      if (args.array('txs').length <= 1) throw new RpcError(RPC_INVALID_PARAMETER, 'At least two PSBTs are required to join PSBTs.');
      const psbts = psbtList(args.raw[0]);
      const version = psbts.reduce((best, p) => (p.tx.version > best ? p.tx.version : best), 1);
      const locktime = psbts.reduce((best, p) => (p.tx.locktime < best ? p.tx.locktime : best), 0xffffffff);
      const joined = joinPsbts(psbts, version, locktime);
      if (!('tx' in joined)) throw new RpcError(RPC_INVALID_PARAMETER, `Input ${hashToHex(joined.prevout.txid)}:${joined.prevout.vout} exists in multiple PSBTs`);
      return encodePsbt(joined);
    },
  });

  const analyzepsbt = defineRpcMethod({
    name: 'analyzepsbt',
    category: 'rawtransactions',
    description: 'Analyzes and provides information about the current status of a PSBT and its inputs\n',
    args: [PSBT_ARG],
    results: [ANALYZEPSBT_RESULT],
    examples: helpExampleCli('analyzepsbt', '"psbt"'),
    handler: (args) => {
      const analysis = analyzePsbt(decodePsbtArg(args.string('psbt')));
      const result: ResultObject = {};
      const inputs = analysis.inputs.map((input) => {
        const entry: ResultObject = { has_utxo: input.hasUtxo, is_final: input.isFinal, next: ROLE_NAMES[input.next] };
        const missing: ResultObject = {};
        if (input.missingPubkeys.length > 0) missing.pubkeys = input.missingPubkeys;
        if (input.missingRedeemScript) missing.redeemscript = input.missingRedeemScript;
        if (input.missingWitnessScript) missing.witnessscript = input.missingWitnessScript;
        if (input.missingSigs.length > 0) missing.signatures = input.missingSigs;
        if (Object.keys(missing).length > 0) entry.missing = missing;
        return entry;
      });
      if (inputs.length > 0) result.inputs = inputs;
      if (analysis.estimatedVsize !== undefined) result.estimated_vsize = analysis.estimatedVsize;
      if (analysis.estimatedFeerate !== undefined) result.estimated_feerate = amountJson(analysis.estimatedFeerate);
      if (analysis.fee !== undefined) result.fee = amountJson(analysis.fee);
      result.next = ROLE_NAMES[analysis.next];
      if (analysis.error) result.error = analysis.error;
      return result;
    },
  });

  return [decodepsbt, createpsbt, converttopsbt, combinepsbt, finalizepsbt, joinpsbts, analyzepsbt];
}

const missingIdsDoc = (key: string, description: string) => ({
  type: 'arr' as const,
  key,
  optional: true,
  description: '',
  inner: [{ type: 'str_hex' as const, key: 'keyid', description }],
});

const ANALYZEPSBT_RESULT = {
  type: 'obj' as const,
  description: '',
  inner: [
    {
      type: 'arr' as const,
      key: 'inputs',
      optional: true,
      description: '',
      inner: [
        {
          type: 'obj' as const,
          description: '',
          inner: [
            { type: 'bool' as const, key: 'has_utxo', description: 'Whether a UTXO is provided' },
            { type: 'bool' as const, key: 'is_final', description: 'Whether the input is finalized' },
            {
              type: 'obj' as const,
              key: 'missing',
              optional: true,
              description: 'Things that are missing that are required to complete this input',
              inner: [
                missingIdsDoc('pubkeys', 'Public key ID, hash160 of the public key, of a public key whose BIP 32 derivation path is missing'),
                missingIdsDoc('signatures', 'Public key ID, hash160 of the public key, of a public key whose signature is missing'),
                { type: 'str_hex' as const, key: 'redeemscript', optional: true, description: 'Hash160 of the redeem script that is missing' },
                { type: 'str_hex' as const, key: 'witnessscript', optional: true, description: 'SHA256 of the witness script that is missing' },
              ],
            },
            { type: 'str' as const, key: 'next', optional: true, description: 'Role of the next person that this input needs to go to' },
          ],
        },
      ],
    },
    { type: 'num' as const, key: 'estimated_vsize', optional: true, description: 'Estimated vsize of the final signed transaction' },
    {
      type: 'str_amount' as const,
      key: 'estimated_feerate',
      optional: true,
      description: 'Estimated feerate of the final signed transaction in BTC/kvB. Shown only if all UTXO slots in the PSBT have been filled',
    },
    { type: 'str_amount' as const, key: 'fee', optional: true, description: 'The transaction fee paid. Shown only if all UTXO slots in the PSBT have been filled' },
    { type: 'str' as const, key: 'next', description: 'Role of the next person that this psbt needs to go to' },
    { type: 'str' as const, key: 'error', optional: true, description: 'Error message (if there is one)' },
  ],
};
