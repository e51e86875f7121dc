/**
 * getprivatebroadcastinfo and abortprivatebroadcast (Core v31's rpc/mempool.cpp). tsbtcd
 * has no private broadcast: it refuses -privatebroadcast at start-up, so the queue these
 * read is always empty and answers are those of a bitcoind whose queue is empty.
 */
import { RPC_INVALID_ADDRESS_OR_KEY, RpcError } from './errors.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod, type RpcResultSpec } from './spec.js';
import { parseHash } from './values.js';

const QUEUED_TX_FIELDS: readonly RpcResultSpec[] = [
  { type: 'str_hex', key: 'txid', description: 'The transaction hash in hex' },
  { type: 'str_hex', key: 'wtxid', description: 'The transaction witness hash in hex' },
  { type: 'str_hex', key: 'hex', description: 'The serialized, hex-encoded transaction data' },
];

export function privateBroadcastMethods(): RpcMethod[] {
  const getprivatebroadcastinfo = defineRpcMethod({
    name: 'getprivatebroadcastinfo',
    category: 'rawtransactions',
    description: 'Returns information about transactions that are currently being privately broadcast.\n',
    args: [],
    results: [
      {
        type: 'obj',
        inner: [
          {
            type: 'arr',
            key: 'transactions',
            inner: [
              {
                type: 'obj',
                inner: [
                  ...QUEUED_TX_FIELDS,
                  {
                    type: 'arr',
                    key: 'peers',
                    description: 'Per-peer send and acknowledgment information for this transaction',
                    inner: [
                      {
                        type: 'obj',
                        inner: [
                          { type: 'str', key: 'address', description: 'The address of the peer to which the transaction was sent' },
                          { type: 'num_time', key: 'sent', description: 'The time this transaction was picked for sending to this peer via private broadcast (seconds since epoch)' },
                          { type: 'num_time', key: 'received', optional: true, description: 'The time this peer acknowledged reception of the transaction (seconds since epoch)' },
                        ],
                      },
                    ],
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('getprivatebroadcastinfo', '') + helpExampleRpc('getprivatebroadcastinfo', ''),
    handler: () => ({ transactions: [] }),
  });

  const abortprivatebroadcast = defineRpcMethod({
    name: 'abortprivatebroadcast',
    category: 'rawtransactions',
    description: 'Abort private broadcast attempts for a transaction currently being privately broadcast.\nThe transaction will be removed from the private broadcast queue.\n',
    args: [
      {
        name: 'id',
        type: 'str',
        description:
          'A transaction identifier to abort. It will be matched against both txid and wtxid for all transactions in the private broadcast queue.\n' +
          'If the provided id matches a txid that corresponds to multiple transactions with different wtxids, multiple transactions will be removed and returned.',
      },
    ],
    results: [
      {
        type: 'obj',
        inner: [
          {
            type: 'arr',
            key: 'removed_transactions',
            description: 'Transactions removed from the private broadcast queue',
            inner: [{ type: 'obj', inner: QUEUED_TX_FIELDS }],
          },
        ],
      },
    ],
    examples: helpExampleCli('abortprivatebroadcast', '"id"') + helpExampleRpc('abortprivatebroadcast', '"id"'),
    handler: (args) => {
      parseHash(args.string('id'), 'id');
      throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not in private broadcast queue. Check getprivatebroadcastinfo.');
    },
  });

  return [getprivatebroadcastinfo, abortprivatebroadcast];
}
