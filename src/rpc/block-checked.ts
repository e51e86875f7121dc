/**
 * Core's GetBlockChecked and GetUndoChecked (rpc/blockchain.cpp): a block's data and
 * undo data as RPCs that need them read them, with Core's -1 texts when they are gone.
 */
import { BlockDataUnavailable, type BlockUndo, type SnapshotChainView, type ViewEntry } from '../chain/index.js';
import { parseBlock, type ParsedBlock } from '../primitives/index.js';
import { RPC_MISC_ERROR, RpcError } from './errors.js';

/** Core's GetRawBlockOrThrow / GetBlockChecked texts. */
export function readBlockBytesOrThrow(snapshot: SnapshotChainView, entry: ViewEntry): Uint8Array {
  try {
    return snapshot.readBlockBytes(entry);
  } catch (err) {
    if (err instanceof BlockDataUnavailable) throw new RpcError(RPC_MISC_ERROR, err.message);
    throw err;
  }
}

/**
 * The same checks as readBlockBytesOrThrow without reading the block: its data is recorded
 * and its record header is on disk (for answers rendered from the block earlier).
 */
export function blockOnDiskOrThrow(snapshot: SnapshotChainView, entry: ViewEntry): void {
  try {
    snapshot.readBlockSize(entry);
  } catch (err) {
    throw new RpcError(RPC_MISC_ERROR, (err instanceof BlockDataUnavailable ? err : new BlockDataUnavailable('missing-on-disk')).message);
  }
}

export function blockChecked(snapshot: SnapshotChainView, entry: ViewEntry): ParsedBlock {
  return parseBlock(readBlockBytesOrThrow(snapshot, entry));
}

/** The genesis block has no undo data: an empty one, as Core returns. */
export function undoChecked(snapshot: SnapshotChainView, entry: ViewEntry): BlockUndo {
  if (entry.height === 0) return [];
  if (snapshot.havePruned() && !entry.hasData) throw new RpcError(RPC_MISC_ERROR, 'Undo data not available (pruned data)');
  const undo = snapshot.readUndo(entry);
  if (!undo) throw new RpcError(RPC_MISC_ERROR, "Can't read undo data from disk");
  return undo;
}
