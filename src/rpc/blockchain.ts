/**
 * The Blockchain family's chain-management methods (they change or walk the live chain,
 * so they run in the coordinator): preciousblock, pruneblockchain, verifychain,
 * invalidateblock, reconsiderblock. Texts are Core's.
 */
import { DEFAULT_CHECKBLOCKS, DEFAULT_CHECKLEVEL, MIN_BLOCKS_TO_KEEP, verifyDb, type BlockIndexEntry } from '../chain/index.js';
import type { ChainAccess } from './chain-access.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RpcError } from './errors.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { parseHash } from './values.js';

/** Looks a block up by its hash argument; -5 "Block not found" as Core. */
export function lookupBlock(access: ChainAccess, hashText: string, argName: string): BlockIndexEntry {
  const hash = parseHash(hashText, argName);
  const entry = access.chain().tree.getByHash(hash);
  if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  return entry;
}

/** Blockchain methods that change chain state: they run in the coordinator. */
export function blockchainMethods(access: ChainAccess): RpcMethod[] {




  const invalidateblock = defineRpcMethod({
    name: 'invalidateblock',
    category: 'hidden',
    description: 'Permanently marks a block as invalid, as if it violated a consensus rule.\n',
    args: [{ name: 'blockhash', type: 'hex', description: 'the hash of the block to mark as invalid' }],
    results: [{ type: 'none', description: '' }],
    examples: helpExampleCli('invalidateblock', '"blockhash"') + helpExampleRpc('invalidateblock', '"blockhash"'),
    handler: async (args) => {
      const entry = lookupBlock(access, args.string('blockhash'), 'blockhash');
      await access.chain().invalidateBlock(entry);
      return null;
    },
  });

  const reconsiderblock = defineRpcMethod({
    name: 'reconsiderblock',
    category: 'hidden',
    description:
      'Removes invalidity status of a block, its ancestors and its descendants, reconsider them for activation.\n' +
      'This can be used to undo the effects of invalidateblock.\n',
    args: [{ name: 'blockhash', type: 'hex', description: 'the hash of the block to reconsider' }],
    results: [{ type: 'none', description: '' }],
    examples: helpExampleCli('reconsiderblock', '"blockhash"') + helpExampleRpc('reconsiderblock', '"blockhash"'),
    handler: async (args) => {
      const entry = lookupBlock(access, args.string('blockhash'), 'blockhash');
      await access.chain().reconsiderBlock(entry);
      return null;
    },
  });

  const preciousblock = defineRpcMethod({
    name: 'preciousblock',
    category: 'blockchain',
    description:
      'Treats a block as if it were received before others with the same work.\n\n' +
      'A later preciousblock call can override the effect of an earlier one.\n\n' +
      'The effects of preciousblock are not retained across restarts.\n',
    args: [{ name: 'blockhash', type: 'hex', description: 'the hash of the block to mark as precious' }],
    results: [{ type: 'none', description: '' }],
    examples: helpExampleCli('preciousblock', '"blockhash"') + helpExampleRpc('preciousblock', '"blockhash"'),
    handler: async (args) => {
      const entry = lookupBlock(access, args.string('blockhash'), 'blockhash');
      await access.chain().preciousBlock(entry);
      return null;
    },
  });


  const pruneblockchain = defineRpcMethod({
    name: 'pruneblockchain',
    category: 'blockchain',
    description: 'Attempts to delete block and undo data up to a specified height or timestamp, if eligible for pruning.\nRequires `-prune` to be enabled at startup. While pruned data may be re-fetched in some cases (e.g., via `getblockfrompeer`), local deletion is irreversible.\n',
    args: [
      {
        name: 'height',
        type: 'num',
        description:
          'The block height to prune up to. May be set to a discrete height, or to a UNIX epoch time\nto prune blocks whose block time is at least 2 hours older than the provided timestamp.',
      },
    ],
    results: [{ type: 'num', description: 'Height of the last block pruned' }],
    examples: helpExampleCli('pruneblockchain', '1000') + helpExampleRpc('pruneblockchain', '1000'),
    handler: async (args) => {
      const chain = access.chain();
      if (chain.pruneMode === 'off') throw new RpcError(RPC_MISC_ERROR, 'Cannot prune blocks because node is not in prune mode.');
      let height = args.int('height');
      if (height < 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Negative block height.');
      // Above a billion it is a timestamp: the first block at least 2 hours (TIMESTAMP_WINDOW) before it.
      if (height > 1_000_000_000) {
        const target = height - 7200;
        let found: BlockIndexEntry | undefined;
        for (let h = 0; h <= chain.chain.height; h++) {
          const e = chain.chain.at(h)!;
          if (e.time >= target) {
            found = e;
            break;
          }
        }
        if (!found) throw new RpcError(RPC_INVALID_PARAMETER, 'Could not find block with at least the specified timestamp.');
        height = found.height;
      }
      const chainHeight = chain.chain.height;
      if (chainHeight < access.network.pruneAfterHeight) throw new RpcError(RPC_MISC_ERROR, 'Blockchain is too short for pruning.');
      if (height > chainHeight) throw new RpcError(RPC_INVALID_PARAMETER, 'Blockchain is shorter than the attempted prune height.');
      // Core keeps the last MIN_BLOCKS_TO_KEEP blocks whatever was asked.
      if (height > chainHeight - MIN_BLOCKS_TO_KEEP) height = chainHeight - MIN_BLOCKS_TO_KEEP;
      return (await chain.pruneBlockchain(height)) ?? -1;
    },
  });

  const verifychain = defineRpcMethod({
    name: 'verifychain',
    category: 'blockchain',
    description: 'Verifies blockchain database.\n',
    args: [
      {
        name: 'checklevel',
        type: 'num',
        defaultHint: `${DEFAULT_CHECKLEVEL}, range=0-4`,
        description:
          'How thorough the block verification is:\n' +
          ' - level 0 reads the blocks from disk\n' +
          ' - level 1 verifies block validity\n' +
          ' - level 2 verifies undo data\n' +
          ' - level 3 checks disconnection of tip blocks\n' +
          ' - level 4 tries to reconnect the blocks\n' +
          ' - each level includes the checks of the previous levels',
      },
      { name: 'nblocks', type: 'num', defaultHint: `${DEFAULT_CHECKBLOCKS}, 0=all`, description: 'The number of blocks to check.' },
    ],
    results: [{ type: 'bool', description: 'Verification finished successfully. If false, check debug.log for reason.' }],
    examples: helpExampleCli('verifychain', '') + helpExampleRpc('verifychain', ''),
    handler: async (args) => {
      const level = args.optInt('checklevel') ?? DEFAULT_CHECKLEVEL;
      const depth = args.optInt('nblocks') ?? DEFAULT_CHECKBLOCKS;
      const chain = access.chain();
      const result = await chain.exclusive(() => verifyDb(chain, level, depth, access.log));
      return result === 'success';
    },
  });

  return [preciousblock, pruneblockchain, verifychain, invalidateblock, reconsiderblock];
}
