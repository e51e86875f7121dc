/**
 * Opens consistent read snapshots of the stored chain: the coordinator over its own
 * writer environment, HTTP front-end processes over read-only ones. Each call gets a
 * fresh view of the newest committed state.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainParams } from '../consensus/index.js';
import { BlockFileStore, INDEXES_META, openChainstateEnv, openIndexesEnv, type ChainstateEnv, type IndexesEnv } from '../storage/index.js';
import { blockFilterIndexView, type BlockFilterIndexView } from './blockfilter-view.js';
import { storedIndexInfo, type IndexInfo } from './base-index.js';
import { SnapshotChainView, type NodeView, type TxIndexView } from './snapshot-view.js';

export interface SnapshotSourceParts {
  params: ChainParams;
  env: ChainstateEnv;
  blocks: BlockFileStore;
  node: () => NodeView;
  txindex: () => TxIndexView | undefined;
  /** -blockfilterindex lookups, when on. */
  blockfilter?: () => BlockFilterIndexView | undefined;
  /** Whether close() must close env and blocks (a read-only source opened for this process). */
  owned: boolean;
  indexes?: IndexesEnv;
}

/** A txindex read from a read-only indexes environment (front-ends). */
function indexesTxView(env: IndexesEnv, info: () => IndexInfo): TxIndexView {
  return { lookup: (txid) => env.withSnapshot((r) => r.txIndexEntry(txid)), info };
}

export class ChainSnapshotSource {
  /** Estimated bytes of the coins table, for every view (one function, not one per snapshot). */
  private readonly coinsDiskSize: () => number;

  constructor(private readonly parts: SnapshotSourceParts) {
    this.coinsDiskSize = () => parts.env.lmdb.tableSizeOnDisk('coins');
  }

  get params(): ChainParams {
    return this.parts.params;
  }

  /**
   * A read-only source for another process; undefined until the coordinator has created the
   * chainstate. `txindexEnabled` and `blockfilterEnabled` open the indexes environment
   * (lazily: it may appear later).
   */
  static openReadOnly(netdir: string, params: ChainParams, node: () => NodeView, txindexEnabled: boolean, blockfilterEnabled = false): ChainSnapshotSource | undefined {
    if (!existsSync(join(netdir, 'chainstate', 'data.mdb'))) return undefined;
    const env = openChainstateEnv(netdir, { readOnly: true });
    const blocks = BlockFileStore.open(join(netdir, 'blocks'), params.messageStart, { readOnly: true });
    let indexes: IndexesEnv | undefined;
    const openIndexes = (): IndexesEnv | undefined => {
      if (!indexes && existsSync(join(netdir, 'indexes', 'data.mdb'))) indexes = openIndexesEnv(netdir, { readOnly: true });
      if (indexes) source.parts.indexes = indexes;
      return indexes;
    };
    const heightOf = (hash: Uint8Array): number | undefined => source.withSnapshot((v) => v.entry(hash)?.height);
    const tipHash = (): Uint8Array => source.withSnapshot((v) => v.tip().hash);
    const source: ChainSnapshotSource = new ChainSnapshotSource({
      params,
      env,
      blocks,
      node,
      owned: true,
      txindex: () => {
        const opened = txindexEnabled ? openIndexes() : undefined;
        if (!opened) return undefined;
        return indexesTxView(opened, () => storedIndexInfo(opened, INDEXES_META.txindexBest, heightOf, tipHash));
      },
      blockfilter: () => {
        const env = blockfilterEnabled ? openIndexes() : undefined;
        if (!env) return undefined;
        return blockFilterIndexView(env, () => storedIndexInfo(env, INDEXES_META.blockFilterBest, heightOf, tipHash));
      },
    });
    return source;
  }

  /** `fn` sees one committed state throughout, even if it is async. */
  withSnapshot<T>(fn: (view: SnapshotChainView) => T): T {
    const { params, env, blocks, node, txindex, blockfilter } = this.parts;
    return env.withSnapshot((reader) => fn(new SnapshotChainView(params, reader, blocks, this.coinsDiskSize, node(), txindex(), blockfilter?.())));
  }

  async close(): Promise<void> {
    if (!this.parts.owned) return;
    this.parts.blocks.close();
    await this.parts.env.close();
    await this.parts.indexes?.close();
  }
}
