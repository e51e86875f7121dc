/**
 * What REST endpoints read: one chain snapshot per request (an LMDB read transaction plus
 * positional reads of the block files), in the front-end process, with no call to the
 * coordinator (the txindex and the filter index come with the snapshot's view).
 */
import type { SnapshotChainView } from '../chain/index.js';

export interface RestContext {
  /** Runs `fn` on one consistent snapshot; throws when the chainstate is not there (only before warm-up ends). */
  withSnapshot<T>(fn: (view: SnapshotChainView) => T): T;
}
