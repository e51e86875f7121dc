/** Opens a real Chainstate on LMDB in a temporary data directory, for in-process chain tests. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chainstate, LmdbChainStore, PoolScriptChecker, type ChainEvents, type PruneMode } from '../../src/chain/index.js';
import { selectParams, type ChainName, type ChainParams } from '../../src/consensus/index.js';

export interface OpenedChain {
  chain: Chainstate;
  store: LmdbChainStore;
  close(): Promise<void>;
}

export interface ChainFixture {
  dir: string;
  params: ChainParams;
  clock: { now: number };
  open(): Promise<OpenedChain>;
  openWith(options: { reindex?: boolean; reindexChainstate?: boolean; events?: ChainEvents }): Promise<OpenedChain>;
  remove(): void;
}

export interface FixtureOptions {
  /** -fastprune: 64 KiB block files and pruning after height 100. */
  fastprune?: boolean;
  prune?: PruneMode;
}

export function chainFixture(chainName: ChainName = 'regtest', startTime = 1_700_000_000, fixtureOptions: FixtureOptions = {}): ChainFixture {
  const dir = mkdtempSync(join(tmpdir(), 'tsbtcd-chain-'));
  const params = selectParams(chainName, fixtureOptions.fastprune ? { fastprune: true } : {});
  const clock = { now: startTime };
  return {
    dir,
    params,
    clock,
    open() {
      return this.openWith({});
    },
    async openWith(options) {
      const store = LmdbChainStore.open(dir, params, fixtureOptions.fastprune ? { maxBlockFileSize: 0x10000 } : {});
      const chain = new Chainstate({
        params,
        store,
        scripts: new PoolScriptChecker(null),
        assumeValid: null,
        coinsCacheBytes: 64 << 20,
        now: () => clock.now,
        log: () => undefined,
        ...(fixtureOptions.prune ? { prune: fixtureOptions.prune } : {}),
        ...(options.events ? { events: options.events } : {}),
      });
      await chain.load(options);
      return {
        chain,
        store,
        async close() {
          await chain.shutdown();
          await store.close();
        },
      };
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
