/**
 * prioritisetransaction and getprioritisedtransactions (Core's rpc/mining.cpp): fee deltas
 * that every policy decision and block selection weighs. Coordinator-only: they change,
 * or read, the coordinator's in-memory prioritisations.
 */
import type { NodeMempool } from '../mempool/index.js';
import { hashToHex } from '../primitives/index.js';
import { RPC_INVALID_PARAMETER, RpcError } from './errors.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { getInt, INT64_MAX, INT64_MIN } from './value-parse.js';
import { parseHash } from './values.js';

export function prioritisationMethods(mempool: () => NodeMempool): RpcMethod[] {
  const prioritisetransaction = defineRpcMethod({
    name: 'prioritisetransaction',
    category: 'mining',
    description: 'Accepts the transaction into mined blocks at a higher (or lower) priority\n',
    args: [
      { name: 'txid', type: 'str', description: 'The transaction id.' },
      {
        name: 'dummy',
        type: 'num',
        optional: true,
        description: 'API-Compatibility for previous API. Must be zero or null.\nDEPRECATED. For forward compatibility use named arguments and omit this parameter.',
      },
      {
        name: 'fee_delta',
        type: 'num',
        description:
          'The fee value (in satoshis) to add (or subtract, if negative).\n' +
          'Note, that this value is not a fee rate. It is a value to modify absolute fee of the TX.\n' +
          'The fee is not actually paid, only the algorithm for selecting transactions into a block\n' +
          'considers the transaction as it would have paid a higher (or lower) fee.',
      },
    ],
    results: [{ type: 'bool', description: 'Returns true' }],
    examples: helpExampleCli('prioritisetransaction', '"txid" 0.0 10000') + helpExampleRpc('prioritisetransaction', '"txid", 0.0, 10000'),
    handler: async (args) => {
      // Core's order: the txid, the delta (getInt<int64_t>), then the dummy.
      const txid = hashToHex(parseHash(args.string('txid'), 'txid'));
      const delta = BigInt(getInt(args.value('fee_delta'), INT64_MIN, INT64_MAX));
      const dummy = args.optNumber('dummy');
      if (dummy !== undefined && dummy !== 0) {
        throw new RpcError(RPC_INVALID_PARAMETER, 'Priority is no longer supported, dummy argument to prioritisetransaction must be 0.');
      }
      if ((await mempool().prioritise(txid, delta)) === 'dust') {
        throw new RpcError(RPC_INVALID_PARAMETER, 'Priority is not supported for transactions with dust outputs.');
      }
      return true;
    },
  });

  const getprioritisedtransactions = defineRpcMethod({
    name: 'getprioritisedtransactions',
    category: 'mining',
    description: 'Returns a map of all user-created (see prioritisetransaction) fee deltas by txid, and whether the tx is present in mempool.',
    args: [],
    results: [
      {
        type: 'obj_dyn',
        description: 'prioritisation keyed by txid',
        inner: [
          {
            type: 'obj',
            key: '<transactionid>',
            inner: [
              { type: 'num', key: 'fee_delta', description: 'transaction fee delta in satoshis' },
              { type: 'bool', key: 'in_mempool', description: 'whether this transaction is currently in mempool' },
              { type: 'num', key: 'modified_fee', optional: true, description: 'modified fee in satoshis. Only returned if in_mempool=true' },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('getprioritisedtransactions', '') + helpExampleRpc('getprioritisedtransactions', ''),
    handler: () => {
      // Satoshi amounts as bigints: deltas span int64, and the serializer writes them exactly.
      const out: Record<string, unknown> = {};
      for (const { txid, delta, entry } of mempool().prioritisations()) {
        out[txid] = { fee_delta: delta, in_mempool: entry !== undefined, ...(entry ? { modified_fee: entry.modifiedFee } : {}) };
      }
      return out;
    },
  });

  return [prioritisetransaction, getprioritisedtransactions];
}
