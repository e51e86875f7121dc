/**
 * The mempool-level summary (getmempoolinfo), read from the mempool table the
 * coordinator mirrors into LMDB, so front-ends and REST answer it from their snapshot.
 * Per-entry calls (getrawmempool verbose, getmempoolentry, ancestors/descendants) come
 * with the mempool itself.
 */
import { view } from './blockchain-read.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import type { SnapshotChainView } from '../chain/index.js';
import { amountJson } from './values.js';

/** Core's getmempoolinfo object (MempoolInfoToJSON), from one snapshot. */
export function mempoolInfoJson(snapshot: SnapshotChainView): Record<string, unknown> {
  let size = 0;
  let bytes = 0;
  let usage = 0;
  let totalFee = 0n;
  for (const { entry } of snapshot.reader.mempoolEntries()) {
    size++;
    bytes += entry.vsize;
    totalFee += entry.fee;
    // Core's DynamicMemoryUsage: the transaction plus its entry and index nodes (estimate).
    usage += entry.tx.length + 700;
  }
  const policy = snapshot.node.mempoolPolicy;
  const perKvB = (sats: bigint) => amountJson(sats);
  return {
    loaded: true,
    size,
    bytes,
    usage,
    total_fee: amountJson(totalFee),
    maxmempool: policy.maxMempoolBytes,
    // The rolling minimum fee is zero until the pool fills up: the floor is minrelaytxfee.
    mempoolminfee: perKvB(policy.minRelayTxFee),
    minrelaytxfee: perKvB(policy.minRelayTxFee),
    incrementalrelayfee: perKvB(policy.incrementalRelayFee),
    unbroadcastcount: 0,
    fullrbf: true,
    permitbaremultisig: policy.permitBareMultisig,
    maxdatacarriersize: policy.maxDataCarrierBytes,
    limitclustercount: policy.limitClusterCount,
    limitclustersize: policy.limitClusterSizeVbytes,
    optimal: true,
  };
}

export function mempoolMethods(): RpcMethod[] {
  const getmempoolinfo = defineRpcMethod({
    name: 'getmempoolinfo',
    category: 'blockchain',
    description: 'Returns details on the active state of the TX memory pool.',
    args: [],
    results: [{ type: 'obj', description: '' }],
    examples: helpExampleCli('getmempoolinfo', '') + helpExampleRpc('getmempoolinfo', ''),
    readsSnapshot: true,
    handler: (_args, ctx) => mempoolInfoJson(view(ctx)),
  });
  return [getmempoolinfo];
}
