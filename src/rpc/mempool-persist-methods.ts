/**
 * savemempool and importmempool (Core's rpc/mempool.cpp): mempool.dat written from, and
 * read into, the coordinator's pool, with Core's arguments, results and errors.
 */
import type { ImportMempoolOptions } from '../mempool/index.js';
import { RPC_CLIENT_IN_INITIAL_DOWNLOAD, RPC_MISC_ERROR, RpcError } from './errors.js';
import type { Json } from './json.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { checkJsonType } from './value-parse.js';

/** The node's mempool.dat handling, as the two calls need it. */
export interface MempoolPersistence {
  /** Core's GetLoadTried: start-up's load has run. */
  loaded(): boolean;
  initialBlockDownload(): boolean;
  /** Core's DumpMempool to <netdir>/mempool.dat: the path, or undefined when it failed. */
  save(): Promise<string | undefined>;
  /** Core's LoadMempool of `path`: false when the file could not be used. */
  import(path: string, options: ImportMempoolOptions): Promise<boolean>;
}

const UNTRUSTED_METADATA = 'Warning: Importing untrusted metadata may lead to unexpected issues and undesirable behavior.';

/** A boolean option: its default when absent or null, else it must be a boolean (UniValue::get_bool). */
function boolOption(value: Json | undefined, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  checkJsonType(value, 'bool');
  return value as boolean;
}

export function mempoolPersistMethods(persistence: MempoolPersistence): RpcMethod[] {
  const savemempool = defineRpcMethod({
    name: 'savemempool',
    category: 'blockchain',
    description: '\nDumps the mempool to disk. It will fail until the previous dump is fully loaded.\n',
    args: [],
    results: [{ type: 'obj', inner: [{ type: 'str', key: 'filename', description: 'the directory and file where the mempool was saved' }] }],
    examples: helpExampleCli('savemempool', '') + helpExampleRpc('savemempool', ''),
    handler: async () => {
      if (!persistence.loaded()) throw new RpcError(RPC_MISC_ERROR, 'The mempool was not loaded yet');
      const filename = await persistence.save();
      if (filename === undefined) throw new RpcError(RPC_MISC_ERROR, 'Unable to dump mempool to disk');
      return { filename };
    },
  });

  const importmempool = defineRpcMethod({
    name: 'importmempool',
    category: 'blockchain',
    description: 'Import a mempool.dat file and attempt to add its contents to the mempool.\nWarning: Importing untrusted files is dangerous, especially if metadata from the file is taken over.',
    args: [
      { name: 'filepath', type: 'str', description: 'The mempool file' },
      {
        name: 'options',
        type: 'obj_named',
        optional: true,
        onelineDescription: 'options',
        description: '',
        inner: [
          {
            name: 'use_current_time',
            type: 'bool',
            default: true,
            description: `Whether to use the current system time or use the entry time metadata from the mempool file.\n${UNTRUSTED_METADATA}`,
          },
          {
            name: 'apply_fee_delta_priority',
            type: 'bool',
            default: false,
            description:
              'Whether to apply the fee delta metadata from the mempool file.\n' +
              'It will be added to any existing fee deltas.\n' +
              'The fee delta can be set by the prioritisetransaction RPC.\n' +
              `${UNTRUSTED_METADATA}\n` +
              'Only set this bool if you understand what it does.',
          },
          {
            name: 'apply_unbroadcast_set',
            type: 'bool',
            default: false,
            description: `Whether to apply the unbroadcast set metadata from the mempool file.\n${UNTRUSTED_METADATA}`,
          },
        ],
      },
    ],
    results: [{ type: 'obj', inner: [] }],
    examples: helpExampleCli('importmempool', '/path/to/mempool.dat') + helpExampleRpc('importmempool', '/path/to/mempool.dat'),
    handler: async (args) => {
      if (persistence.initialBlockDownload()) {
        throw new RpcError(RPC_CLIENT_IN_INITIAL_DOWNLOAD, 'Can only import the mempool after the block download and sync is done.');
      }
      const path = args.string('filepath');
      const options = args.optObject('options') ?? {};
      const importOptions: ImportMempoolOptions = {
        useCurrentTime: boolOption(options['use_current_time'], true),
        applyFeeDeltaPriority: boolOption(options['apply_fee_delta_priority'], false),
        applyUnbroadcastSet: boolOption(options['apply_unbroadcast_set'], false),
      };
      if (!(await persistence.import(path, importOptions))) throw new RpcError(RPC_MISC_ERROR, 'Unable to import mempool file, see debug.log for details.');
      return {};
    },
  });

  return [savemempool, importmempool];
}
