/**
 * Opens consistent read snapshots of the stored chain: the coordinator over its own
 * writer environment, HTTP front-end processes over read-only ones. Each call gets a
 * fresh view of the newest committed state.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ChainParams } from '../consensus/index.js';
import { BlockFileStore, INDEXES_META, openChainstateEnv, openIndexesEnv, type ChainstateEnv, type ChainstateReader, type IndexesEnv } from '../storage/index.js';
import { blockFilterIndexView, type BlockFilterIndexView } from './blockfilter-view.js';
import { coinStatsIndexView, type CoinStatsIndexView } from './coinstats-view.js';
import { addressIndexView, type AddressIndexView } from './address-index-view.js';
import { storedIndexInfo, type IndexInfo } from './base-index.js';
import { SnapshotChainView, type NodeView, type TxIndexView, type TxoSpenderView } from './snapshot-view.js';

export interface SnapshotSourceParts {
  params: ChainParams;
  env: ChainstateEnv;
  blocks: BlockFileStore;
  node: () => NodeView;
  txindex: () => TxIndexView | undefined;
  /** -blockfilterindex lookups, when on. */
  blockfilter?: () => BlockFilterIndexView | undefined;
  /** -coinstatsindex lookups, when on. */
  coinstats?: () => CoinStatsIndexView | undefined;
  /** -addressindex lookups, when on. */
  addressIndex?: () => AddressIndexView | undefined;
  /** -txospenderindex lookups, when on. */
  txoSpender?: () => TxoSpenderView | undefined;
  /** Whether close() must close env and blocks (a read-only source opened for this process). */
  owned: boolean;
  indexes?: IndexesEnv;
}

/** A txindex read from a read-only indexes environment (front-ends). */
function indexesTxView(env: IndexesEnv, info: () => IndexInfo): TxIndexView {
  return { lookup: (txid) => env.withSnapshot((r) => r.txIndexEntry(txid)), info };
}

/** The output spenders over an indexes environment; `info` says how far the index is (coordinator and front-ends differ). */
export function txoSpenderView(env: IndexesEnv, info: () => IndexInfo): TxoSpenderView {
  return { spender: (txid, vout) => env.withSnapshot((r) => r.txoSpender(txid, vout)), info };
}

interface TurnSnapshot {
  readonly view: SnapshotChainView;
  readonly close: () => void;
  /** Calls still using it (async ones outlive the turn). */
  users: number;
  /** The turn is over: the last user closes it. */
  ended: boolean;
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
  static openReadOnly(
    netdir: string,
    params: ChainParams,
    node: () => NodeView,
    txindexEnabled: boolean,
    blockfilterEnabled = false,
    coinstatsEnabled = false,
    addressIndexEnabled = false,
    txoSpenderEnabled = false,
    blocksDir = join(netdir, 'blocks'),
  ): ChainSnapshotSource | undefined {
    if (!existsSync(join(netdir, 'chainstate', 'data.mdb'))) return undefined;
    const env = openChainstateEnv(netdir, { readOnly: true });
    const blocks = BlockFileStore.open(blocksDir, params.messageStart, { readOnly: true });
    let indexes: IndexesEnv | undefined;
    const openIndexes = (): IndexesEnv | undefined => {
      if (!indexes && existsSync(join(netdir, 'indexes', 'data.mdb'))) indexes = openIndexesEnv(netdir, { readOnly: true });
      if (indexes) source.parts.indexes = indexes;
      return indexes;
    };
    const locate = (hash: Uint8Array) =>
      source.withSnapshot((v) => {
        const entry = v.entry(hash);
        return entry && { height: entry.height, active: v.isActive(entry) };
      });
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
        return indexesTxView(opened, () => storedIndexInfo(opened, INDEXES_META.txindexBest, locate, tipHash));
      },
      blockfilter: () => {
        const env = blockfilterEnabled ? openIndexes() : undefined;
        if (!env) return undefined;
        return blockFilterIndexView(env, () => storedIndexInfo(env, INDEXES_META.blockFilterBest, locate, tipHash));
      },
      coinstats: () => {
        const env = coinstatsEnabled ? openIndexes() : undefined;
        if (!env) return undefined;
        return coinStatsIndexView(env, () => storedIndexInfo(env, INDEXES_META.coinStatsBest, locate, tipHash));
      },
      addressIndex: () => {
        const env = addressIndexEnabled ? openIndexes() : undefined;
        if (!env) return undefined;
        return addressIndexView(env, (r) => r.meta(INDEXES_META.addressIndexBest), () => storedIndexInfo(env, INDEXES_META.addressIndexBest, locate, tipHash));
      },
      txoSpender: () => {
        const env = txoSpenderEnabled ? openIndexes() : undefined;
        if (!env) return undefined;
        return txoSpenderView(env, () => storedIndexInfo(env, INDEXES_META.txoSpenderBest, locate, tipHash));
      },
    });
    return source;
  }

  /** `fn` sees one committed state throughout, even if it is async. */
  withSnapshot<T>(fn: (view: SnapshotChainView) => T): T {
    return this.parts.env.withSnapshot((reader) => fn(this.viewOf(reader)));
  }

  /** The view of one snapshot's reader, with the node state and indexes as they are now. */
  private viewOf(reader: ChainstateReader): SnapshotChainView {
    const { params, blocks, node, txindex, blockfilter, coinstats, addressIndex, txoSpender } = this.parts;
    return new SnapshotChainView(params, reader, blocks, this.coinsDiskSize, node(), txindex(), blockfilter?.(), coinstats?.(), addressIndex?.(), txoSpender?.());
  }

  /** The snapshot every call of this event-loop turn shares (withTurnSnapshot). */
  private turn: TurnSnapshot | undefined;

  /**
   * Like withSnapshot, but calls made in the same event-loop turn share one snapshot: an
   * HTTP front-end answers the requests one poll of its sockets brought in one after
   * another in a turn, and opening a read transaction and a view for each was a tenth of
   * a small call. The state is the newest committed when the turn's first call came, as if
   * the later ones had arrived a few microseconds earlier; a client's next request comes
   * after its reply was written, in a later turn, so no client sees the chain go back. The
   * transaction ends with the turn, or when the last async call using it settles.
   */
  withTurnSnapshot<T>(fn: (view: SnapshotChainView) => T): T {
    let turn = this.turn;
    if (!turn) {
      const snapshot = this.parts.env.openSnapshot();
      const opened: TurnSnapshot = {
        view: this.viewOf(snapshot.reader),
        close: snapshot.close,
        users: 0,
        ended: false,
      };
      this.turn = turn = opened;
      setImmediate(() => {
        if (this.turn === opened) this.turn = undefined;
        opened.ended = true;
        if (opened.users === 0) opened.close();
      });
    }
    const shared = turn;
    const release = (): void => {
      shared.users--;
      if (shared.ended && shared.users === 0) shared.close();
    };
    shared.users++;
    let result: T;
    try {
      result = fn(shared.view);
    } catch (err) {
      release();
      throw err;
    }
    if (result instanceof Promise) return result.finally(release) as T;
    release();
    return result;
  }

  async close(): Promise<void> {
    if (!this.parts.owned) return;
    this.parts.blocks.close();
    await this.parts.env.close();
    await this.parts.indexes?.close();
  }
}
