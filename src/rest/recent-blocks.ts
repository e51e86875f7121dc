/**
 * The raw bytes of the blocks REST served last, kept per front-end up to a byte budget:
 * a block's bytes never change for its hash, and clients (indexers, load balancers'
 * health checks) ask for the same recent blocks again and again. A hit skips the file
 * open, the read and the de-obfuscation. Whether the block's data is there at all is still
 * decided by the snapshot's index entry on every request (pruned or not downloaded
 * answers as before); only the bytes of a block the entry says are stored come from here.
 * The oldest used entries go first once the budget is exceeded.
 */
import type { SnapshotChainView, ViewEntry } from '../chain/index.js';

/** Bytes of blocks kept per front-end process. */
export const RECENT_BLOCKS_BUDGET = 16 * 1024 * 1024;

/** By display hash, least recently used first (Map keeps insertion order). */
const recent = new Map<string, Uint8Array>();
let held = 0;

/** The block's bytes, from the kept ones or read (and kept) through the snapshot; unavailability throws as readBlockBytes does. */
export function recentBlockBytes(snapshot: SnapshotChainView, entry: ViewEntry): Uint8Array {
  if (!entry.hasData || !entry.data) return snapshot.readBlockBytes(entry);
  const kept = recent.get(entry.hashHex);
  if (kept) {
    recent.delete(entry.hashHex);
    recent.set(entry.hashHex, kept);
    return kept;
  }
  const bytes = snapshot.readBlockBytes(entry);
  if (bytes.length > RECENT_BLOCKS_BUDGET / 4) return bytes;
  recent.set(entry.hashHex, bytes);
  held += bytes.length;
  for (const [hash, old] of recent) {
    if (held <= RECENT_BLOCKS_BUDGET) break;
    recent.delete(hash);
    held -= old.length;
  }
  return bytes;
}
