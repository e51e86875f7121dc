/**
 * One transaction in the pool (Core's CTxMemPoolEntry): the transaction with what
 * acceptance established about it, and its links to in-pool parents and children.
 */
import { compareBytes, type Transaction, type TxOut } from '../primitives/index.js';

export interface MempoolEntry {
  readonly tx: Transaction;
  /** Display hex of the txid: the pool's key. */
  readonly txid: string;
  /** Base fee in satoshis. */
  readonly fee: bigint;
  /**
   * The fee with prioritisetransaction's delta (Core's GetModifiedFee): what every policy
   * decision (fee floors, replacement, chunking, mining, eviction) weighs. Changes when the
   * transaction is prioritised in the pool.
   */
  modifiedFee: bigint;
  /** Sigop-adjusted virtual size (Core's GetTxSize). */
  readonly vsize: number;
  /** Sigop-adjusted weight: what chunk feerates are measured against. */
  readonly adjustedWeight: number;
  readonly sigOpCost: number;
  /** Unix seconds it entered. */
  readonly time: number;
  /** Chain height when it entered. */
  readonly height: number;
  /** Entry order (Core's entry sequence; 0 for transactions re-added from disconnected blocks). */
  readonly sequence: number;
  /** The outputs its inputs spend, in input order (the address mirror names their scripts). */
  readonly spentOutputs: readonly TxOut[];
  /** Spends a coinbase output: re-checked for maturity after a reorg. */
  readonly spendsCoinbase: boolean;
  /** Submitted locally (sendrawtransaction) or imported as such, and not yet announced to a peer. */
  unbroadcast: boolean;
  readonly parents: Set<MempoolEntry>;
  readonly children: Set<MempoolEntry>;
  /** The mempool sequence its removal took (Core passes it to TransactionRemovedFromMempool); set when it leaves. */
  removalSequence?: number;
}

/**
 * Entries in the order Core's RemoveStaged removes a staged set (a std::set ordered by
 * txid, compared as uint256 bytes): what removal notifications and their mempool sequence
 * numbers follow.
 */
export function inRemovalOrder(entries: Iterable<MempoolEntry>): MempoolEntry[] {
  return [...entries].sort((a, b) => compareBytes(a.tx.txid, b.tx.txid));
}

/** The outpoint key the pool indexes spends by. */
export function outpointId(txidHex: string, vout: number): string {
  return `${txidHex}:${vout}`;
}
