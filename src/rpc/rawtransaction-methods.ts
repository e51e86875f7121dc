/**
 * The pure Rawtransactions methods (no chain, no mempool): decoderawtransaction,
 * decodescript and createrawtransaction, with Core v31's help texts and error order
 * (rpc/rawtransaction.cpp, rpc/rawtransaction_util.cpp). Front-ends and the coordinator
 * register the same definitions, so either answers them identically.
 */
import { MAX_SEQUENCE_NONFINAL } from '../mining/index.js';
import { SEQUENCE_FINAL, serializeTransaction, toHex, Transaction, type TxIn, type TxOut } from '../primitives/index.js';
import { decodeAddress, OP, pushData, type ChainName } from '../script/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RpcError } from './errors.js';
import type { Json } from './json.js';
import { objectEntries } from './json-entries-view.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcArgSpec, type RpcMethod } from './spec.js';
import { decodeRawTransaction, decodeScriptHex } from './format/index.js';
import { ALL_OUTPUT_TYPES, decodeTxDoc } from './transaction-help.js';
import { parseHash } from './values.js';
import { amountFromValue, checkJsonType, getInt, getObj, getStr, getValStr, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, isJsonObject, parseHexV, UINT32_MAX } from './value-parse.js';

/** Core's CreateTxDoc(): the arguments createrawtransaction and createpsbt share. */
export function createTxDoc(): RpcArgSpec[] {
  return [
    {
      name: 'inputs',
      type: 'arr',
      description: 'The inputs',
      inner: [
        {
          name: '',
          type: 'obj',
          optional: true,
          description: '',
          inner: [
            { name: 'txid', type: 'hex', description: 'The transaction id' },
            { name: 'vout', type: 'num', description: 'The output number' },
            { name: 'sequence', type: 'num', defaultHint: "depends on the value of the 'replaceable' and 'locktime' arguments", description: 'The sequence number' },
          ],
        },
      ],
    },
    {
      name: 'outputs',
      type: 'arr',
      skipTypeCheck: true,
      description:
        'The outputs specified as key-value pairs.\n' +
        "Each key may only appear once, i.e. there can only be one 'data' output, and no address may be duplicated.\n" +
        'At least one output of either type must be specified.\n' +
        'For compatibility reasons, a dictionary, which holds the key-value pairs directly, is also\n' +
        '                             accepted as second parameter.',
      inner: [
        {
          name: '',
          type: 'obj_user_keys',
          optional: true,
          description: '',
          inner: [
            {
              name: 'address',
              type: 'amount',
              description: 'A key-value pair. The key (string) is the bitcoin address, the value (float or string) is the amount in BTC',
            },
          ],
        },
        {
          name: '',
          type: 'obj',
          optional: true,
          description: '',
          inner: [
            {
              name: 'data',
              type: 'hex',
              description: 'A key-value pair. The key must be "data", the value is hex-encoded data that becomes a part of an OP_RETURN output',
            },
          ],
        },
      ],
    },
    { name: 'locktime', type: 'num', default: 0, description: 'Raw locktime. Non-0 value also locktime-activates inputs' },
    {
      name: 'replaceable',
      type: 'bool',
      default: true,
      description:
        'Marks this transaction as BIP125-replaceable.\n' +
        'Allows this transaction to be replaced by a transaction with higher fees. If provided, it is an error if explicit sequence numbers are incompatible.',
    },
    { name: 'version', type: 'num', default: DEFAULT_RAWTX_VERSION, description: 'Transaction version' },
  ];
}

/** The iswitness argument decoderawtransaction and converttopsbt share. */
export const ISWITNESS_ARG: RpcArgSpec = {
  name: 'iswitness',
  type: 'bool',
  defaultHint: 'depends on heuristic tests',
  description:
    'Whether the transaction hex is a serialized witness transaction.\n' +
    'If iswitness is not present, heuristic tests will be used in decoding.\n' +
    'If true, only witness deserialization will be tried.\n' +
    'If false, only non-witness deserialization will be tried.\n' +
    'This boolean should reflect whether the transaction has inputs\n' +
    '(e.g. fully valid, or on-chain transactions), if known by the caller.',
};

/** Core's DEFAULT_RAWTX_VERSION (CTransaction::CURRENT_VERSION). */
export const DEFAULT_RAWTX_VERSION = 2;
/** Core's TX_MIN_STANDARD_VERSION / TX_MAX_STANDARD_VERSION (v29+: TRUC is version 3). */
const TX_MIN_STANDARD_VERSION = 1;
const TX_MAX_STANDARD_VERSION = 3;
/** Core's MAX_BIP125_RBF_SEQUENCE. */
const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;
/** Core's LOCKTIME_MAX. */
const LOCKTIME_MAX = 0xffffffff;

/** Core's AddInputs. */
function addInputs(inputs: Json[], locktime: number, rbf: boolean | undefined): TxIn[] {
  return inputs.map((input) => {
    const o = getObj(input);
    const txid = parseHash(getStr(o.txid), 'txid');
    const vout = o.vout;
    if (typeof vout !== 'number') throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, missing vout key');
    const n = getInt(vout, INT32_MIN, INT32_MAX);
    if (n < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, vout cannot be negative');
    let sequence = (rbf ?? true) ? MAX_BIP125_RBF_SEQUENCE : locktime !== 0 ? MAX_SEQUENCE_NONFINAL : SEQUENCE_FINAL;
    if (typeof o.sequence === 'number') {
      const seq = getInt(o.sequence, INT64_MIN, INT64_MAX);
      if (seq < 0 || seq > SEQUENCE_FINAL) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, sequence number is out of range');
      sequence = seq;
    }
    return { prevout: { txid, vout: n }, scriptSig: new Uint8Array(0), sequence, witness: [] };
  });
}

/**
 * Core's NormalizeOutputs: the outputs as one list of key-value pairs in order, repeats
 * included (an array of one-key objects, or an object holding them directly).
 */
export function normalizeOutputs(outputs: Json | undefined): [string, Json][] {
  if (outputs === null || outputs === undefined) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, output argument must be non-null');
  if (isJsonObject(outputs)) return objectEntries(outputs);
  checkJsonType(outputs, 'array');
  const pairs: [string, Json][] = [];
  for (const output of outputs as Json[]) {
    if (!isJsonObject(output)) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, key-value pair not an object as expected');
    const entries = objectEntries(output);
    if (entries.length !== 1) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, key-value pair must contain exactly one key');
    pairs.push(entries[0]!);
  }
  return pairs;
}

/** Core's ParseOutputs + AddOutputs: OP_RETURN for "data", the address's script for the rest. */
export function addOutputs(outputs: Json | undefined, chain: ChainName): TxOut[] {
  const pairs = normalizeOutputs(outputs);
  // UniValue's operator[] finds the first member of a repeated key.
  const first = (key: string) => pairs.find(([k]) => k === key)![1];
  const seen = new Set<string>();
  let hasData = false;
  const out: TxOut[] = [];
  for (const [name] of pairs) {
    if (name === 'data') {
      if (hasData) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, duplicate key: data');
      hasData = true;
      const data = parseHexV(getValStr(first(name)), 'Data');
      out.push({ value: 0n, scriptPubKey: Uint8Array.of(OP.OP_RETURN, ...pushData(data)) });
      continue;
    }
    const decoded = decodeAddress(name, chain);
    const amount = amountFromValue(first(name));
    if (!decoded.ok) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Invalid Bitcoin address: ${name}`);
    const key = toHex(decoded.scriptPubKey);
    if (seen.has(key)) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, duplicated address: ${name}`);
    seen.add(key);
    out.push({ value: amount, scriptPubKey: decoded.scriptPubKey });
  }
  return out;
}

export interface ConstructTransactionArgs {
  readonly inputs: Json[];
  readonly outputs: Json | undefined;
  readonly locktime: Json | undefined;
  /** The replaceable argument; undefined when not given. */
  readonly rbf: boolean | undefined;
  readonly version: number;
}

/** Core's ConstructTransaction, in its order of checks. */
export function constructTransaction(args: ConstructTransactionArgs, chain: ChainName): Transaction {
  let locktime = 0;
  if (args.locktime !== null && args.locktime !== undefined) {
    const n = getInt(args.locktime, INT64_MIN, INT64_MAX);
    if (n < 0 || n > LOCKTIME_MAX) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter, locktime out of range');
    locktime = n;
  }
  if (args.version < TX_MIN_STANDARD_VERSION || args.version > TX_MAX_STANDARD_VERSION) {
    throw new RpcError(RPC_INVALID_PARAMETER, `Invalid parameter, version out of range(${TX_MIN_STANDARD_VERSION}~${TX_MAX_STANDARD_VERSION})`);
  }
  const inputs = addInputs(args.inputs, locktime, args.rbf);
  const outputs = addOutputs(args.outputs, chain);
  if (args.rbf === true && inputs.length > 0 && !inputs.some((i) => i.sequence <= MAX_BIP125_RBF_SEQUENCE)) {
    throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid parameter combination: Sequence number(s) contradict replaceable option');
  }
  return new Transaction({ version: args.version, inputs, outputs, locktime });
}

/** Hex of a transaction as EncodeHexTx writes it (witness serialization when any input has a witness). */
export function encodeHexTx(tx: Transaction): string {
  return toHex(serializeTransaction(tx, true));
}

export function rawTransactionMethods(chain: ChainName): RpcMethod[] {
  const decoderawtransaction = defineRpcMethod({
    name: 'decoderawtransaction',
    category: 'rawtransactions',
    description: 'Return a JSON object representing the serialized, hex-encoded transaction.',
    args: [
      { name: 'hexstring', type: 'hex', description: 'The transaction hex string' },
      ISWITNESS_ARG,
    ],
    results: [{ type: 'obj', description: '', inner: decodeTxDoc('The transaction id') }],
    examples: helpExampleCli('decoderawtransaction', '"hexstring"') + helpExampleRpc('decoderawtransaction', '"hexstring"'),
    handler: (args) => decodeRawTransaction(args.string('hexstring'), chain, args.optBoolean('iswitness')),
  });

  const decodescript = defineRpcMethod({
    name: 'decodescript',
    category: 'rawtransactions',
    description: 'Decode a hex-encoded script.\n',
    args: [{ name: 'hexstring', type: 'hex', description: 'the hex-encoded script' }],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'str', key: 'asm', description: 'Disassembly of the script' },
          { type: 'str', key: 'desc', description: 'Inferred descriptor for the script' },
          { type: 'str', key: 'type', description: `The output type (e.g. ${ALL_OUTPUT_TYPES})` },
          { type: 'str', key: 'address', optional: true, description: 'The Bitcoin address (only if a well-defined address exists)' },
          {
            type: 'str',
            key: 'p2sh',
            optional: true,
            description: 'address of P2SH script wrapping this redeem script (not returned for types that should not be wrapped)',
          },
          {
            type: 'obj',
            key: 'segwit',
            optional: true,
            description: 'Result of a witness output script wrapping this redeem script (not returned for types that should not be wrapped)',
            inner: [
              { type: 'str', key: 'asm', description: 'Disassembly of the output script' },
              { type: 'str_hex', key: 'hex', description: 'The raw output script bytes, hex-encoded' },
              { type: 'str', key: 'type', description: 'The type of the output script (e.g. witness_v0_keyhash or witness_v0_scripthash)' },
              { type: 'str', key: 'address', optional: true, description: 'The Bitcoin address (only if a well-defined address exists)' },
              { type: 'str', key: 'desc', description: 'Inferred descriptor for the script' },
              { type: 'str', key: 'p2sh-segwit', description: 'address of the P2SH script wrapping this witness redeem script' },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('decodescript', '"hexstring"') + helpExampleRpc('decodescript', '"hexstring"'),
    handler: (args) => decodeScriptHex(args.string('hexstring'), chain),
  });

  const createrawtransaction = defineRpcMethod({
    name: 'createrawtransaction',
    category: 'rawtransactions',
    description:
      'Create a transaction spending the given inputs and creating new outputs.\n' +
      'Outputs can be addresses or data.\n' +
      'Returns hex-encoded raw transaction.\n' +
      "Note that the transaction's inputs are not signed, and\n" +
      'it is not stored in the wallet or transmitted to the network.\n',
    args: createTxDoc(),
    results: [{ type: 'str_hex', key: 'transaction', description: 'hex string of the transaction' }],
    examples:
      helpExampleCli('createrawtransaction', '"[{\\"txid\\":\\"myid\\",\\"vout\\":0}]" "[{\\"address\\":0.01}]"') +
      helpExampleCli('createrawtransaction', '"[{\\"txid\\":\\"myid\\",\\"vout\\":0}]" "[{\\"data\\":\\"00010203\\"}]"') +
      helpExampleRpc('createrawtransaction', '"[{\\"txid\\":\\"myid\\",\\"vout\\":0}]", "[{\\"address\\":0.01}]"') +
      helpExampleRpc('createrawtransaction', '"[{\\"txid\\":\\"myid\\",\\"vout\\":0}]", "[{\\"data\\":\\"00010203\\"}]"'),
    handler: (args) => {
      const rbf = args.optBoolean('replaceable');
      // self.Arg<uint32_t>("version"): read before ConstructTransaction runs.
      const version = args.has('version') ? getInt(args.raw[4], 0, UINT32_MAX) : DEFAULT_RAWTX_VERSION;
      const tx = constructTransaction({ inputs: args.array('inputs'), outputs: args.raw[1], locktime: args.raw[2], rbf: args.has('replaceable') ? rbf : undefined, version }, chain);
      return encodeHexTx(tx);
    },
  });

  return [decoderawtransaction, decodescript, createrawtransaction];
}
