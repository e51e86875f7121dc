/**
 * What a loaded wallet asks of the node (Core's interfaces::Chain, the part the wallet
 * uses): the active chain's tip, heights and blocks, block times, the locator, and the
 * mempool. The coordinator implements it over its chainstate and mempool.
 */
import type { OutPoint, Block, Transaction, TxOut } from '../primitives/index.js';

export interface WalletChainTip {
  readonly height: number;
  /** Internal byte order. */
  readonly hash: Uint8Array;
}

export interface WalletChain {
  tip(): WalletChainTip;
  /** The height of a block on the active chain, undefined for any other hash. */
  activeHeightOf(hash: Uint8Array): number | undefined;
  hashAt(height: number): Uint8Array | undefined;
  blockAt(height: number): Block;
  /** The block's own time, the greatest time up to it (Core's nTimeMax) and its median time past. */
  blockTimes(height: number): { readonly time: number; readonly maxTime: number; readonly medianTimePast?: number };
  /** Any known block (active or not): its height, its parent and whether it is on the active chain. */
  blockInfo(hash: Uint8Array): { readonly height: number; readonly prevHash: Uint8Array | undefined; readonly active: boolean } | undefined;
  /** A known block's transactions, by hash (undefined when its data is not stored). */
  blockByHash(hash: Uint8Array): Block | undefined;
  /** Core's GetLocator of the tip. */
  locator(): Uint8Array[];
  /** The highest locator entry on the active chain (Core's FindLocatorFork), -1 when none is. */
  forkHeight(locator: readonly Uint8Array[]): number;
  isInMempool(txid: string): boolean;
  /** Whether a transaction in the pool signals BIP125 replaceability (itself or an ancestor); undefined when not in the pool. */
  isRbfOptIn(tx: Transaction): 'yes' | 'no' | 'unknown';
  mempoolTransactions(): Transaction[];
  /** A pool transaction's ancestors with itself (listunspent's ancestorcount, ancestorsize, ancestorfees); undefined when not in the pool. */
  mempoolAncestry?(txid: string): { readonly count: number; readonly size: number; readonly fees: bigint } | undefined;
  /**
   * interfaces::Chain::calculateIndividualBumpFees: per outpoint ("txid:vout"), what bringing
   * its unconfirmed ancestry to `feeRate` (sat/kvB) costs (0 without a pool).
   */
  individualBumpFees?(outpoints: readonly OutPoint[], feeRate: bigint): ReadonlyMap<string, bigint>;
  /** calculateCombinedBumpFee: the same for the outpoints together, shared ancestors paid once; null when it cannot be calculated. */
  combinedBumpFee?(outpoints: readonly OutPoint[], feeRate: bigint): bigint | null;
  /** Core's estimateSmartFee: sat/kvB (0 without an estimate) and the reason the estimator gives. */
  estimateSmartFee(target: number, conservative: boolean): { readonly feeRate: bigint; readonly reason: string };
  /** Core's estimateMaxBlocks: the longest target the estimator answers. */
  estimateMaxBlocks(): number;
  /** The mempool's minimum fee rate, -minrelaytxfee and -dustrelayfee (sat/kvB). */
  mempoolMinFee(): bigint;
  relayMinFee(): bigint;
  relayDustFee(): bigint;
  /** -incrementalrelayfee (sat/kvB). */
  relayIncrementalFee(): bigint;
  /** Whether a pool transaction has descendants in the pool. */
  hasDescendantsInMempool(txid: string): boolean;
  /** An outpoint's output from the pool's transactions or the UTXO set (Core's findCoins, which ignores spends in the pool); undefined when neither has it. */
  findCoin(txid: string, vout: number): TxOut | undefined;
  isInitialBlockDownload(): boolean;
  /** Core's BroadcastTransaction into the mempool and (unless `relay` is false) to peers; the reject reason when the pool refuses it. */
  broadcast(tx: Transaction, maxFee: bigint, relay?: boolean): Promise<{ readonly ok: true } | { readonly ok: false; readonly error: string }>;
  /** The node's clock (mocktime honoured), in seconds. */
  now(): number;
}
