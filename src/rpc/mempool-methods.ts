/**
 * The read-only mempool calls (Core's rpc/mempool.cpp): getmempoolinfo, getrawmempool,
 * getmempoolentry, getmempoolancestors and getmempooldescendants (with gettxspendingprevout
 * and combinerawtransaction, which read the same pool), answered from the
 * mempool table of the call's snapshot (front-ends and the coordinator alike), with the
 * builders REST's mempool endpoints use.
 */
import type { SnapshotChainView } from '../chain/index.js';
import { minFeeAt } from '../mempool/index.js';
import { hashToHex } from '../primitives/index.js';
import { CHAINSTATE_META } from '../storage/index.js';
import { view } from './blockchain-read.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RpcError } from './errors.js';
import { mempoolEntriesByTxidDoc, mempoolEntryDoc } from './mempool-help.js';
import { MempoolView, type ViewedEntry } from './mempool-view.js';
import { mempoolRenderedOnce } from './mempool-rendered.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { txSpendingPrevoutMethods } from './spending-prevout.js';
import { combineRawTransactionMethods } from './combine-rawtransaction.js';
import { amountJson, parseHash } from './values.js';

type JsonObject = Record<string, unknown>;

/** Core's getmempoolinfo object (MempoolInfoToJSON), from one snapshot. */
export function mempoolInfoJson(snapshot: SnapshotChainView): JsonObject {
  let size = 0;
  let bytes = 0;
  let totalFee = 0n;
  let unbroadcast = 0;
  for (const { entry } of snapshot.reader.mempoolEntries()) {
    size++;
    bytes += entry.vsize;
    totalFee += entry.fee;
    if (entry.unbroadcast) unbroadcast++;
  }
  const policy = snapshot.node.mempoolPolicy;
  // The coordinator stores Core's DynamicMemoryUsage and the rolling minimum fee with the table.
  const stats = snapshot.reader.meta(CHAINSTATE_META.mempoolStats);
  const usage = stats?.usage ?? 0;
  const rolling = stats
    ? minFeeAt(
        { rate: stats.rollingMinFeeRate, lastUpdate: stats.lastRollingFeeUpdate, blockSinceBump: stats.blockSinceLastRollingFeeBump },
        { now: snapshot.node.now(), usage, maxMempoolBytes: policy.maxMempoolBytes, incrementalRelayFee: policy.incrementalRelayFee },
      )
    : 0n;
  return {
    loaded: true,
    size,
    bytes,
    usage,
    total_fee: amountJson(totalFee),
    maxmempool: policy.maxMempoolBytes,
    mempoolminfee: amountJson(rolling > policy.minRelayTxFee ? rolling : policy.minRelayTxFee),
    minrelaytxfee: amountJson(policy.minRelayTxFee),
    incrementalrelayfee: amountJson(policy.incrementalRelayFee),
    unbroadcastcount: unbroadcast,
    fullrbf: true,
    permitbaremultisig: policy.permitBareMultisig,
    maxdatacarriersize: policy.maxDataCarrierBytes,
    limitclustercount: policy.limitClusterCount,
    limitclustersize: policy.limitClusterSizeVbytes,
    optimal: true,
  };
}

/** BIP125 opt-in: any input with nSequence < 0xfffffffe. */
function signalsRbf(e: ViewedEntry): boolean {
  return e.tx.inputs.some((input) => input.sequence >>> 0 < 0xfffffffe);
}

/** Core's entryToJSON (v31 field order, as bitcoind v31.0 writes it). */
export function mempoolEntryJson(pool: MempoolView, e: ViewedEntry): JsonObject {
  const ancestors = pool.closure(e, 'parents');
  const descendants = pool.closure(e, 'children');
  // Ancestor and descendant fees are modified fees, as Core's.
  const fees = (set: ViewedEntry[]) => set.reduce((a, x) => a + x.record.fee + x.record.feeDelta, 0n);
  const vsizes = (set: ViewedEntry[]) => set.reduce((a, x) => a + x.record.vsize, 0);
  const chunk = pool.chunkOf(e.txid);
  return {
    vsize: e.record.vsize,
    weight: e.tx.weight,
    time: e.record.time,
    height: e.record.height,
    descendantcount: descendants.length,
    descendantsize: vsizes(descendants),
    ancestorcount: ancestors.length,
    ancestorsize: vsizes(ancestors),
    wtxid: e.tx.wtxidHex,
    // v31 writes chunkweight after wtxid (observed), not beside the other sizes.
    chunkweight: chunk.weight,
    fees: {
      base: amountJson(e.record.fee),
      modified: amountJson(e.record.fee + e.record.feeDelta),
      ancestor: amountJson(fees(ancestors)),
      descendant: amountJson(fees(descendants)),
      chunk: amountJson(chunk.fee),
    },
    depends: [...e.parents].sort(),
    spentby: [...e.children].sort(),
    'bip125-replaceable': ancestors.some(signalsRbf),
    unbroadcast: e.record.unbroadcast,
  };
}

/** Core's MempoolToJSON(pool, verbose, include_mempool_sequence): getrawmempool and REST mempool/contents. */
export function mempoolContentsJson(snapshot: SnapshotChainView, verbose: boolean, withSequence: boolean): unknown {
  const pool = MempoolView.of(snapshot);
  if (verbose) {
    const out: JsonObject = {};
    for (const e of pool.inMiningOrder()) out[e.txid] = mempoolEntryJson(pool, e);
    return out;
  }
  const txids = pool.inMiningOrder().map((e) => e.txid);
  return withSequence ? { txids, mempool_sequence: pool.sequence } : txids;
}

function pooled(pool: MempoolView, txidText: string, argName: string): ViewedEntry {
  const e = pool.get(hashToHex(parseHash(txidText, argName)));
  if (!e) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not in mempool');
  return e;
}

/** getmempoolancestors / getmempooldescendants: txids, or txid → entry when verbose. */
function relatives(pool: MempoolView, e: ViewedEntry, edge: 'parents' | 'children', verbose: boolean): unknown {
  const set = pool.closure(e, edge).filter((x) => x !== e);
  if (!verbose) return set.map((x) => x.txid);
  const out: JsonObject = {};
  for (const x of set) out[x.txid] = mempoolEntryJson(pool, x);
  return out;
}

const TXID_IN_MEMPOOL = 'The transaction id (must be in mempool)';
const VERBOSE_ARG = { name: 'verbose', type: 'bool' as const, default: false, description: 'True for a json object, false for array of transaction ids' };

export function mempoolMethods(): RpcMethod[] {
  const getmempoolinfo = defineRpcMethod({
    name: 'getmempoolinfo',
    category: 'blockchain',
    description: 'Returns details on the active state of the TX memory pool.',
    args: [],
    results: [
      {
        type: 'obj',
        inner: [
          { type: 'bool', key: 'loaded', description: 'True if the initial load attempt of the persisted mempool finished' },
          { type: 'num', key: 'size', description: 'Current tx count' },
          {
            type: 'num',
            key: 'bytes',
            description: 'Sum of all virtual transaction sizes as defined in BIP 141. Differs from actual serialized size because witness data is discounted',
          },
          { type: 'num', key: 'usage', description: 'Total memory usage for the mempool' },
          { type: 'str_amount', key: 'total_fee', description: 'Total fees for the mempool in BTC, ignoring modified fees through prioritisetransaction' },
          { type: 'num', key: 'maxmempool', description: 'Maximum memory usage for the mempool' },
          {
            type: 'str_amount',
            key: 'mempoolminfee',
            description: 'Minimum fee rate in BTC/kvB for tx to be accepted. Is the maximum of minrelaytxfee and minimum mempool fee',
          },
          { type: 'str_amount', key: 'minrelaytxfee', description: 'Current minimum relay fee for transactions' },
          { type: 'str_amount', key: 'incrementalrelayfee', description: 'minimum fee rate increment for mempool limiting or replacement in BTC/kvB' },
          { type: 'num', key: 'unbroadcastcount', description: "Current number of transactions that haven't passed initial broadcast yet" },
          { type: 'bool', key: 'fullrbf', description: 'True if the mempool accepts RBF without replaceability signaling inspection (DEPRECATED)' },
          { type: 'bool', key: 'permitbaremultisig', description: 'True if the mempool accepts transactions with bare multisig outputs' },
          { type: 'num', key: 'maxdatacarriersize', description: 'Maximum number of bytes that can be used by OP_RETURN outputs in the mempool' },
          { type: 'num', key: 'limitclustercount', description: 'Maximum number of transactions that can be in a cluster (configured by -limitclustercount)' },
          { type: 'num', key: 'limitclustersize', description: 'Maximum size of a cluster in virtual bytes (configured by -limitclustersize)' },
          { type: 'bool', key: 'optimal', description: 'If the mempool is in a known-optimal transaction ordering' },
        ],
      },
    ],
    examples: helpExampleCli('getmempoolinfo', '') + helpExampleRpc('getmempoolinfo', ''),
    readsSnapshot: true,
    handler: (_args, ctx) => mempoolInfoJson(view(ctx)),
  });

  const getrawmempool = defineRpcMethod({
    name: 'getrawmempool',
    category: 'blockchain',
    description: 'Returns all transaction ids in memory pool as a json array of string transaction ids.\n\nHint: use getmempoolentry to fetch a specific transaction from the mempool.\n',
    args: [
      VERBOSE_ARG,
      {
        name: 'mempool_sequence',
        type: 'bool',
        default: false,
        description: 'If verbose=false, returns a json object with transaction list and mempool sequence number attached.',
      },
    ],
    results: [
      { type: 'arr', description: '', cond: 'for verbose = false', inner: [{ type: 'str_hex', description: 'The transaction id' }] },
      mempoolEntriesByTxidDoc('for verbose = true'),
      {
        type: 'obj',
        cond: 'for verbose = false and mempool_sequence = true',
        inner: [
          { type: 'arr', key: 'txids', inner: [{ type: 'str_hex', description: 'The transaction id' }] },
          { type: 'num', key: 'mempool_sequence', description: 'The mempool sequence value.' },
        ],
      },
    ],
    examples: helpExampleCli('getrawmempool', 'true') + helpExampleRpc('getrawmempool', 'true'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const verbose = args.boolean('verbose');
      const sequence = args.boolean('mempool_sequence');
      if (verbose && sequence) throw new RpcError(RPC_INVALID_PARAMETER, 'Verbose results cannot contain mempool sequence values.');
      const snapshot = view(ctx);
      return mempoolRenderedOnce(snapshot, verbose, sequence, () => mempoolContentsJson(snapshot, verbose, sequence));
    },
  });

  const getmempoolentry = defineRpcMethod({
    name: 'getmempoolentry',
    category: 'blockchain',
    description: 'Returns mempool data for given transaction\n',
    args: [{ name: 'txid', type: 'hex', description: TXID_IN_MEMPOOL }],
    results: [{ type: 'obj', inner: mempoolEntryDoc() }],
    examples: helpExampleCli('getmempoolentry', '"mytxid"') + helpExampleRpc('getmempoolentry', '"mytxid"'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const pool = MempoolView.of(view(ctx));
      return mempoolEntryJson(pool, pooled(pool, args.string('txid'), 'txid'));
    },
  });

  const getmempoolcluster = defineRpcMethod({
    name: 'getmempoolcluster',
    category: 'blockchain',
    description: 'Returns mempool data for given cluster\n',
    args: [{ name: 'txid', type: 'hex', description: 'The txid of a transaction in the cluster' }],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'num', key: 'clusterweight', description: "total sigops-adjusted weight (as defined in BIP 141 and modified by '-bytespersigop')" },
          { type: 'num', key: 'txcount', description: 'number of transactions' },
          {
            type: 'arr',
            key: 'chunks',
            description: 'chunks in this cluster (in mining order)',
            inner: [
              {
                type: 'obj',
                description: '',
                inner: [
                  { type: 'num', key: 'chunkfee', description: 'fees of the transactions in this chunk' },
                  { type: 'num', key: 'chunkweight', description: 'sigops-adjusted weight of all transactions in this chunk' },
                  { type: 'arr', key: 'txs', description: 'transactions in this chunk in mining order', inner: [{ type: 'str_hex', description: 'transaction id' }] },
                ],
              },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('getmempoolcluster', 'txid') + helpExampleRpc('getmempoolcluster', 'txid'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const pool = MempoolView.of(view(ctx));
      const entry = pooled(pool, args.string('txid'), 'txid');
      const chunks = pool.clusterChunks(entry.txid);
      return {
        clusterweight: chunks.reduce((sum, c) => sum + c.weight, 0),
        txcount: chunks.reduce((sum, c) => sum + c.ids.length, 0),
        chunks: chunks.map((c) => ({ chunkfee: amountJson(c.fee), chunkweight: c.weight, txs: c.ids })),
      };
    },
  });

  const family = (name: string, edge: 'parents' | 'children', description: string, relative: 'ancestor' | 'descendant') =>
    defineRpcMethod({
      name,
      category: 'blockchain',
      description,
      args: [{ name: 'txid', type: 'hex', description: TXID_IN_MEMPOOL }, VERBOSE_ARG],
      results: [
        { type: 'arr', cond: 'for verbose = false', inner: [{ type: 'str_hex', description: `The transaction id of an in-mempool ${relative} transaction` }] },
        mempoolEntriesByTxidDoc('for verbose = true'),
      ],
      examples: helpExampleCli(name, '"mytxid"') + helpExampleRpc(name, '"mytxid"'),
      readsSnapshot: true,
      handler: (args, ctx) => {
        const pool = MempoolView.of(view(ctx));
        return relatives(pool, pooled(pool, args.string('txid'), 'parameter 1'), edge, args.boolean('verbose'));
      },
    });

  return [
    getmempoolcluster,
    getmempoolinfo,
    getrawmempool,
    getmempoolentry,
    family('getmempoolancestors', 'parents', 'If txid is in the mempool, returns all in-mempool ancestors.\n', 'ancestor'),
    family('getmempooldescendants', 'children', 'If txid is in the mempool, returns all in-mempool descendants.\n', 'descendant'),
    ...txSpendingPrevoutMethods(),
    ...combineRawTransactionMethods(),
  ];
}
