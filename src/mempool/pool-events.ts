/**
 * What the node mempool tells its listeners (Core's CValidationInterface mempool
 * callbacks, which the fee estimator subscribes to): a transaction entered, one left for
 * any reason but a block, and the pool transactions a connected block confirmed.
 */
import type { MempoolEntry } from './entry.js';

/** Core's NewMempoolTransactionInfo: the entry and the facts fee estimation filters on. */
export interface PoolTransactionAdded {
  readonly entry: MempoolEntry;
  /** Accepted with bypass_limits (re-added from a disconnected block). */
  readonly limitsBypassed: boolean;
  readonly submittedInPackage: boolean;
  /** Core's IsCurrentForFeeEstimation at acceptance. */
  readonly chainstateIsCurrent: boolean;
  readonly hasNoPoolParents: boolean;
  /** The mempool sequence the addition took (Core's GetAndIncrementSequence when it announces it). */
  readonly mempoolSequence: number;
}

export interface MempoolEventListener {
  /** TransactionAddedToMempool. */
  transactionAdded(event: PoolTransactionAdded): void;
  /** TransactionRemovedFromMempool: replaced, conflicted, removed by a reorg (its sequence in entry.removalSequence). */
  transactionRemoved(entry: MempoolEntry): void;
  /** MempoolTransactionsRemovedForBlock: every connected block, with the pool transactions it confirmed. */
  removedForBlock(confirmed: readonly MempoolEntry[], height: number): void;
}
