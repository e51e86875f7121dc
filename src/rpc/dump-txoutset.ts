/**
 * dumptxoutset (Core v31's rpc/blockchain.cpp): the UTXO set at the tip ("latest") or at an
 * earlier block of the active chain ("rollback", or the `rollback` option), written to
 * `<path>.incomplete` and renamed to `<path>` when complete. A rollback invalidates the
 * block after the target with the network suspended, dumps, and reconsiders it, as Core's
 * TemporaryRollback does; the node is back at its tip whether the dump succeeds or not.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { computeUtxoStats, utxoSnapshotCoins, utxoSnapshotHeader, type SnapshotChainView, type ViewEntry } from '../chain/index.js';
import { hashToHex } from '../primitives/index.js';
import type { ChainAccess } from './chain-access.js';
import { RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RpcError } from './errors.js';
import { defineRpcMethod } from './registry.js';
import type { SnapshotSource } from './server.js';
import { parseHashOrHeight } from './blockchain-read.js';
import { helpExampleCli, type RpcMethod } from './spec.js';
import { isJsonObject } from './value-parse.js';

/** The heights of the assumeutxo snapshots Core v31 ships per chain: "rollback" goes to the highest. */
const ASSUMEUTXO_HEIGHTS: Readonly<Record<string, readonly number[]>> = {
  main: [840_000, 880_000, 910_000, 935_000],
  test: [2_500_000, 4_840_000],
  testnet4: [90_000, 120_000],
  signet: [160_000, 290_000],
  regtest: [110, 200, 299],
};

export interface NetworkSwitch {
  readonly networkActive: boolean;
  setNetworkActive(active: boolean): void;
}

export interface DumpTxOutSetDeps {
  readonly access: ChainAccess;
  /** The network data directory relative paths are taken in. */
  readonly netDir: string;
  flush(): Promise<void>;
  snapshots(): SnapshotSource | undefined;
  /** The P2P network, suspended during a rollback (undefined without one). */
  network(): NetworkSwitch | undefined;
}

/** fsbridge::AbsPathJoin: an absolute path as given, a relative one under `base`. */
function absPathJoin(base: string, file: string): string {
  if (file === '') return base;
  return path.isAbsolute(file) ? file : `${base}/${file}`;
}

export function dumpTxOutSetMethods(deps: DumpTxOutSetDeps): RpcMethod[] {
  const { access } = deps;
  const withView = <T>(fn: (view: SnapshotChainView) => T): T => {
    const source = deps.snapshots();
    if (!source) throw new RpcError(RPC_MISC_ERROR, 'Chainstate not available');
    return source.withSnapshot(fn);
  };

  /** Writes the snapshot of the stored chain's tip to `fd` (open on `temp`); the result as Core prints it. */
  async function writeSnapshot(fd: number, temp: string, file: string): Promise<Record<string, unknown>> {
    await deps.flush();
    return withView((view) => {
      const tip = view.tip();
      const stats = computeUtxoStats(view.reader.allCoins(), 'hash_serialized_3');
      access.log(`WriteUTXOSnapshot: writing UTXO snapshot at height ${tip.height} (${tip.hashHex}) to file ${file} (via ${temp}) started`);
      const started = performance.now();
      fs.writeSync(fd, utxoSnapshotHeader(access.network.messageStart, tip.hash, stats.txouts));
      for (const chunk of utxoSnapshotCoins(view.reader.allCoins())) fs.writeSync(fd, chunk);
      fs.fsyncSync(fd);
      fs.renameSync(temp, file);
      access.log(`WriteUTXOSnapshot: writing UTXO snapshot at height ${tip.height} (${tip.hashHex}) to file ${file} (via ${temp}) completed (${((performance.now() - started) / 1000).toFixed(2)}s)`);
      return {
        coins_written: stats.txouts,
        base_hash: tip.hashHex,
        base_height: tip.height,
        path: file,
        txoutset_hash: hashToHex(stats.hash!),
        nchaintx: tip.chainTxCount,
      };
    });
  }

  /** Core's TemporaryRollback and NetworkDisable around `dump`. */
  async function rolledBack<T>(target: ViewEntry, tipHeight: number, dump: () => Promise<T>): Promise<T> {
    if (target.height === tipHeight) return dump();
    const chain = access.chain();
    const next = chain.tree.getByHash(withView((view) => view.activeEntry(target.height + 1)!.hash))!;
    const network = deps.network();
    const reenable = network?.networkActive ?? false;
    if (reenable) {
      network!.setNetworkActive(false);
      if (network!.networkActive) throw new RpcError(RPC_MISC_ERROR, 'Network activity could not be suspended.');
    }
    try {
      await chain.invalidateBlock(next);
      try {
        return await dump();
      } finally {
        await chain.reconsiderBlock(next);
      }
    } finally {
      if (reenable) network!.setNetworkActive(true);
    }
  }

  const dumptxoutset = defineRpcMethod({
    name: 'dumptxoutset',
    category: 'blockchain',
    description:
      'Write the serialized UTXO set to a file. This can be used in loadtxoutset afterwards if this snapshot height is supported in the chainparams as well.\n\n' +
      'Unless the "latest" type is requested, the node will roll back to the requested height and network activity will be suspended during this process. ' +
      'Because of this it is discouraged to interact with the node in any other way during the execution of this call to avoid inconsistent results and race conditions, particularly RPCs that interact with blockstorage.\n\n' +
      'This call may take several minutes. Make sure to use no RPC timeout (bitcoin-cli -rpcclienttimeout=0)',
    args: [
      { name: 'path', type: 'str', description: 'Path to the output file. If relative, will be prefixed by datadir.' },
      {
        name: 'type',
        type: 'str',
        default: '',
        description:
          'The type of snapshot to create. Can be "latest" to create a snapshot of the current UTXO set or "rollback" to temporarily roll back the state of the node to a historical block before creating the snapshot of a historical UTXO set. ' +
          'This parameter can be omitted if a separate "rollback" named parameter is specified indicating the height or hash of a specific historical block. ' +
          'If "rollback" is specified and separate "rollback" named parameter is not specified, this will roll back to the latest valid snapshot block that can currently be loaded with loadtxoutset.',
      },
      {
        name: 'options',
        type: 'obj_named',
        optional: true,
        description: '',
        inner: [
          {
            name: 'rollback',
            type: 'num',
            optional: true,
            skipTypeCheck: true,
            typeStr: ['', 'string or numeric'],
            description:
              'Height or hash of the block to roll back to before creating the snapshot. Note: The further this number is from the tip, the longer this process will take. Consider setting a higher -rpcclienttimeout value in this case.',
          },
        ],
      },
    ],
    results: [
      {
        type: 'obj',
        inner: [
          { type: 'num', key: 'coins_written', description: 'the number of coins written in the snapshot' },
          { type: 'str_hex', key: 'base_hash', description: 'the hash of the base of the snapshot' },
          { type: 'num', key: 'base_height', description: 'the height of the base of the snapshot' },
          { type: 'str', key: 'path', description: 'the absolute path that the snapshot was written to' },
          { type: 'str_hex', key: 'txoutset_hash', description: 'the hash of the UTXO set contents' },
          { type: 'num', key: 'nchaintx', description: 'the number of transactions in the chain up to and including the base block' },
        ],
      },
    ],
    examples:
      helpExampleCli('-rpcclienttimeout=0 dumptxoutset', 'utxo.dat latest') +
      helpExampleCli('-rpcclienttimeout=0 dumptxoutset', 'utxo.dat rollback') +
      helpExampleCli('-rpcclienttimeout=0 -named dumptxoutset', 'utxo.dat rollback=853456'),
    handler: async (args) => {
      const snapshotType = args.string('type');
      const options = args.raw[2];
      const rollback = isJsonObject(options) && Object.hasOwn(options, 'rollback') ? { value: options['rollback'] } : undefined;
      const { target, tipHeight } = withView((view) => {
        let target: ViewEntry;
        if (rollback) {
          if (snapshotType !== '' && snapshotType !== 'rollback') throw new RpcError(RPC_INVALID_PARAMETER, `Invalid snapshot type "${snapshotType}" specified with rollback option`);
          target = parseHashOrHeight(view, rollback.value);
        } else if (snapshotType === 'rollback') {
          target = parseHashOrHeight(view, Math.max(...(ASSUMEUTXO_HEIGHTS[access.network.name] ?? [])));
        } else if (snapshotType === 'latest') {
          target = view.tip();
        } else {
          throw new RpcError(RPC_INVALID_PARAMETER, `Invalid snapshot type "${snapshotType}" specified. Please specify "rollback" or "latest"`);
        }
        return { target, tipHeight: view.height };
      });
      const file = absPathJoin(deps.netDir, args.string('path'));
      if (fs.existsSync(file)) throw new RpcError(RPC_INVALID_PARAMETER, `${file} already exists. If you are sure this is what you want, move it out of the way first`);
      const temp = absPathJoin(deps.netDir, `${args.string('path')}.incomplete`);
      let fd: number;
      try {
        fd = fs.openSync(temp, 'w', 0o600);
      } catch {
        throw new RpcError(RPC_INVALID_PARAMETER, `Couldn't open file ${temp} for writing.`);
      }
      try {
        return await rolledBack(target, tipHeight, () => writeSnapshot(fd, temp, file));
      } finally {
        fs.closeSync(fd);
      }
    },
  });
  return [dumptxoutset];
}
