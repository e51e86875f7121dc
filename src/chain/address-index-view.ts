/**
 * -addressindex as snapshot readers see it: the coordinator's own index and the HTTP
 * front-ends' read-only indexes environment both answer address queries through an
 * AddressIndexView. `read` runs a whole query on one snapshot of the index, so a page of
 * history and the unspent outputs next to it describe the same block.
 */
import type { IndexesEnv, IndexesReader } from '../storage/index.js';
import type { IndexInfo } from './base-index.js';

export interface AddressIndexView {
  read<T>(fn: (reader: IndexesReader, best: Uint8Array | undefined) => T): T;
  /** getindexinfo's "addressindex" entry. */
  info(): IndexInfo;
}

/** A view over an indexes environment; `best` in `read` is the block the index has reached, as that snapshot stores it. */
export function addressIndexView(env: IndexesEnv, bestOf: (reader: IndexesReader) => Uint8Array | undefined, info: () => IndexInfo): AddressIndexView {
  return { read: (fn) => env.withSnapshot((r) => fn(r, bestOf(r))), info };
}
