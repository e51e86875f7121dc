/**
 * -coinstatsindex as snapshot readers see it: the coordinator's own index and the HTTP
 * front-ends' read-only indexes environment both answer gettxoutsetinfo through a
 * CoinStatsIndexView.
 */
import type { CoinStatsRecord, IndexesEnv } from '../storage/index.js';
import type { IndexInfo } from './base-index.js';

export interface CoinStatsIndexView {
  /** The stats after a block (any branch), if indexed. */
  stats(blockHash: Uint8Array): CoinStatsRecord | undefined;
  /** getindexinfo's "coinstatsindex" entry. */
  info(): IndexInfo;
}

/** A view over an indexes environment; `info` says how far the index is (it differs between coordinator and front-ends). */
export function coinStatsIndexView(env: IndexesEnv, info: () => IndexInfo): CoinStatsIndexView {
  return { stats: (blockHash) => env.withSnapshot((r) => r.coinStats(blockHash)), info };
}
