/**
 * -blockfilterindex as snapshot readers see it: the coordinator's own index and the HTTP
 * front-ends' read-only indexes environment both answer through a BlockFilterIndexView,
 * which getblockfilter and REST /blockfilter, /blockfilterheaders use. Also the reason
 * texts Core gives when a filter is missing, shared by RPC and REST.
 */
import { bytesEqual } from '../primitives/index.js';
import type { IndexesEnv } from '../storage/index.js';
import { BlockStatus } from './block-status.js';
import { blockFilterHash } from './blockfilter.js';
import type { IndexInfo } from './base-index.js';

export interface BlockFilterIndexView {
  /**
   * The encoded basic filter of a block (CompactSize N ‖ Golomb-Rice bits), if indexed.
   * A filter whose bytes do not hash to the stored filter hash reads as missing, as Core's
   * checksum check on reading makes it.
   */
  filter(blockHash: Uint8Array): Uint8Array | undefined;
  /** The block's basic filter header, internal byte order (hashToHex for display), if indexed. */
  header(blockHash: Uint8Array): Uint8Array | undefined;
  /** The headers of several blocks, read in one snapshot (REST blockfilterheaders). */
  headers(blockHashes: readonly Uint8Array[]): (Uint8Array | undefined)[];
  /** getindexinfo's "basic block filter index" entry. */
  info(): IndexInfo;
}

/** A view over an indexes environment; `info` says how far the index is (it differs between coordinator and front-ends). */
export function blockFilterIndexView(env: IndexesEnv, info: () => IndexInfo): BlockFilterIndexView {
  return {
    filter: (blockHash) =>
      env.withSnapshot((r) => {
        const filter = r.blockFilter(blockHash);
        const record = r.filterHeader(blockHash);
        return filter && record && bytesEqual(blockFilterHash(filter), record.filterHash) ? filter : undefined;
      }),
    header: (blockHash) => env.withSnapshot((r) => r.filterHeader(blockHash)?.header),
    headers: (blockHashes) => env.withSnapshot((r) => blockHashes.map((hash) => r.filterHeader(hash)?.header)),
    info,
  };
}

/** Why a block's filter (or filter header) was not found, in Core's order of checks. */
export type FilterMissingReason = 'not-connected' | 'indexing' | 'corruption';

/**
 * Core's getblockfilter / REST reasoning: a block never connected (not valid up to
 * scripts) has no filter; otherwise an index still catching up may not have reached it;
 * otherwise the index is damaged. `status` is the block's status bits.
 */
export function filterMissingReason(status: number, indexSynced: boolean): FilterMissingReason {
  const connected = (status & BlockStatus.FAILED_MASK) === 0 && (status & BlockStatus.VALID_MASK) >= BlockStatus.VALID_SCRIPTS;
  if (!connected) return 'not-connected';
  return indexSynced ? 'corruption' : 'indexing';
}

/** The message Core gives for each reason ("Filter not found." and one sentence). */
export const FILTER_NOT_FOUND_MESSAGE: Readonly<Record<FilterMissingReason, string>> = {
  'not-connected': 'Filter not found. Block was not connected to active chain.',
  indexing: 'Filter not found. Block filters are still in the process of being indexed.',
  corruption: 'Filter not found. This error is unexpected and indicates index corruption.',
};

/**
 * A lookup straight over the indexes environment: filter hashes come from the stored
 * records without reading the filters (cheaper for getcfheaders), as Core's
 * LookupFilterHashRange reads only its database values.
 */
export function blockFilterLookupFromEnv(env: IndexesEnv): { filter(blockHash: Uint8Array): Uint8Array | undefined; filterHash(blockHash: Uint8Array): Uint8Array | undefined; header(blockHash: Uint8Array): Uint8Array | undefined } {
  return {
    filter: (blockHash) =>
      env.withSnapshot((r) => {
        const filter = r.blockFilter(blockHash);
        const record = r.filterHeader(blockHash);
        if (!filter || !record) return undefined;
        return bytesEqual(blockFilterHash(filter), record.filterHash) ? filter : undefined;
      }),
    filterHash: (blockHash) => env.withSnapshot((r) => r.filterHeader(blockHash)?.filterHash),
    header: (blockHash) => env.withSnapshot((r) => r.filterHeader(blockHash)?.header),
  };
}
