/**
 * Opens consistent read snapshots of the stored chain: the coordinator over its own
 * writer environment, HTTP front-end processes over a read-only one. Each call gets a
 * fresh view of the newest committed state.
 */
import { join } from 'node:path';
import type { ChainParams } from '../consensus/index.js';
import { BlockFileStore, openChainstateEnv, type ChainstateEnv } from '../storage/index.js';
import { existsSync } from 'node:fs';
import { SnapshotChainView } from './snapshot-view.js';

export class ChainSnapshotSource {
  constructor(
    readonly params: ChainParams,
    private readonly env: ChainstateEnv,
    private readonly blocks: BlockFileStore,
    private readonly owned: boolean,
  ) {}

  /** A read-only source for another process; undefined until the coordinator has created the chainstate. */
  static openReadOnly(netdir: string, params: ChainParams): ChainSnapshotSource | undefined {
    if (!existsSync(join(netdir, 'chainstate', 'data.mdb'))) return undefined;
    const env = openChainstateEnv(netdir, { readOnly: true });
    const blocks = BlockFileStore.open(join(netdir, 'blocks'), params.messageStart, { readOnly: true });
    return new ChainSnapshotSource(params, env, blocks, true);
  }

  /** `fn` sees one committed state throughout, even if it is async. */
  withSnapshot<T>(fn: (view: SnapshotChainView) => T): T {
    return this.env.withSnapshot((reader) => fn(new SnapshotChainView(this.params, reader, this.blocks, () => this.env.lmdb.tableSizeOnDisk('coins'))));
  }

  async close(): Promise<void> {
    if (!this.owned) return;
    this.blocks.close();
    await this.env.close();
  }
}
