/** Result descriptions shared by the mempool RPCs, as Core's rpc/mempool.cpp declares them. */
import type { RpcResultSpec } from './spec.js';

/** Core's MempoolEntryDescription(): one entry of getmempoolentry and the verbose listings. */
export function mempoolEntryDoc(): RpcResultSpec[] {
  return [
    {
      type: 'num',
      key: 'vsize',
      description:
        'virtual transaction size as defined in BIP 141. This is different from actual serialized size for witness transactions as witness data is discounted.',
    },
    { type: 'num', key: 'weight', description: 'transaction weight as defined in BIP 141.' },
    { type: 'num_time', key: 'time', description: 'local time transaction entered pool in seconds since 1 Jan 1970 GMT' },
    { type: 'num', key: 'height', description: 'block height when transaction entered pool' },
    { type: 'num', key: 'descendantcount', description: 'number of in-mempool descendant transactions (including this one)' },
    { type: 'num', key: 'descendantsize', description: 'virtual transaction size of in-mempool descendants (including this one)' },
    { type: 'num', key: 'ancestorcount', description: 'number of in-mempool ancestor transactions (including this one)' },
    { type: 'num', key: 'ancestorsize', description: 'virtual transaction size of in-mempool ancestors (including this one)' },
    {
      type: 'num',
      key: 'chunkweight',
      description: "sigops-adjusted weight (as defined in BIP 141 and modified by '-bytespersigop') of this transaction's chunk",
    },
    { type: 'str_hex', key: 'wtxid', description: 'hash of serialized transaction, including witness data' },
    {
      type: 'obj',
      key: 'fees',
      inner: [
        { type: 'str_amount', key: 'base', description: 'transaction fee, denominated in BTC' },
        { type: 'str_amount', key: 'modified', description: 'transaction fee with fee deltas used for mining priority, denominated in BTC' },
        {
          type: 'str_amount',
          key: 'ancestor',
          description: 'transaction fees of in-mempool ancestors (including this one) with fee deltas used for mining priority, denominated in BTC',
        },
        {
          type: 'str_amount',
          key: 'descendant',
          description: 'transaction fees of in-mempool descendants (including this one) with fee deltas used for mining priority, denominated in BTC',
        },
        { type: 'str_amount', key: 'chunk', description: 'transaction fees of chunk, denominated in BTC' },
      ],
    },
    {
      type: 'arr',
      key: 'depends',
      description: 'unconfirmed transactions used as inputs for this transaction',
      inner: [{ type: 'str_hex', description: 'parent transaction id' }],
    },
    {
      type: 'arr',
      key: 'spentby',
      description: 'unconfirmed transactions spending outputs from this transaction',
      inner: [{ type: 'str_hex', description: 'child transaction id' }],
    },
    {
      type: 'bool',
      key: 'bip125-replaceable',
      description:
        'Whether this transaction signals BIP125 replaceability or has an unconfirmed ancestor signaling BIP125 replaceability. (DEPRECATED)\n',
    },
    {
      type: 'bool',
      key: 'unbroadcast',
      description: 'Whether this transaction is currently unbroadcast (initial broadcast not yet acknowledged by any peers)',
    },
  ];
}

/** The verbose listings (getrawmempool, getmempoolancestors, getmempooldescendants): txid → entry. */
export function mempoolEntriesByTxidDoc(cond: string): RpcResultSpec {
  return {
    type: 'obj_dyn',
    cond,
    inner: [{ type: 'obj', key: 'transactionid', inner: mempoolEntryDoc() }],
  };
}
