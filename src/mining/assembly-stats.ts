/**
 * What getmininginfo reports about the last block template the node assembled (Core's
 * BlockAssembler::m_last_block_weight / m_last_block_num_txs): absent until a template
 * was ever built, then the weight counted while selecting transactions, which starts at
 * the reserved weight for header, transaction count and coinbase, and the number of
 * transactions selected besides the coinbase.
 */

/** Core's DEFAULT_BLOCK_RESERVED_WEIGHT: what a template built without a mempool reports. */
export const DEFAULT_BLOCK_RESERVED_WEIGHT = 8000;

export interface AssemblyStats {
  readonly weight: number;
  readonly txCount: number;
}

// Core keeps these in statics; keyed by chainstate here so nodes sharing a process (tests) stay apart.
const lastAssembly = new WeakMap<object, AssemblyStats>();

export function recordAssembly(chain: object, stats: AssemblyStats): void {
  lastAssembly.set(chain, stats);
}

export function lastAssemblyStats(chain: object): AssemblyStats | undefined {
  return lastAssembly.get(chain);
}
