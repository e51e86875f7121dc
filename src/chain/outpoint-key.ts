/**
 * The coins table key of an outpoint: txid (internal byte order) followed by the output
 * index as a big-endian u32 (src/storage/layout.ts). An ordered scan visits a txid's
 * outputs in numeric order, which is the order hash_serialized_3 hashes them in.
 */
import type { OutPoint } from '../primitives/index.js';
import { coinKey } from '../storage/index.js';

export function outpointKey(outpoint: OutPoint): Uint8Array {
  return coinKey(outpoint.txid, outpoint.vout);
}
