/**
 * The Blockchain family, chain-management part: height and hash lookups, chain tips,
 * invalidate/reconsider/precious, and UTXO-set statistics. Texts are Core's.
 */
import { computeUtxoStats, DEFAULT_CHECKBLOCKS, DEFAULT_CHECKLEVEL, MIN_BLOCKS_TO_KEEP, verifyDb, type BlockIndexEntry, type UtxoHashType } from '../chain/index.js';
import { hashToHex } from '../primitives/index.js';
import type { ChainAccess } from './chain-access.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RpcError } from './errors.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { amountJson, parseHash } from './values.js';

const CHAIN_TIP_STATUS_HELP =
  'status of the chain, "active" for the main chain\n' +
  'Possible values for status:\n' +
  '1.  "invalid"               This branch contains at least one invalid block\n' +
  '2.  "headers-only"          Not all blocks for this branch are available, but the headers are valid\n' +
  '3.  "valid-headers"         All blocks are available for this branch, but they were never fully validated\n' +
  '4.  "valid-fork"            This branch is not part of the active chain, but is fully validated\n' +
  '5.  "active"                This is the tip of the active main chain, which is certainly valid';

/** Looks a block up by its hash argument; -5 "Block not found" as Core. */
export function lookupBlock(access: ChainAccess, hashText: string, argName: string): BlockIndexEntry {
  const hash = parseHash(hashText, argName);
  const entry = access.chain().tree.getByHash(hash);
  if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  return entry;
}

export function blockchainMethods(access: ChainAccess): RpcMethod[] {
  const getblockcount = defineRpcMethod({
    name: 'getblockcount',
    category: 'blockchain',
    description: 'Returns the height of the most-work fully-validated chain.\nThe genesis block has height 0.\n',
    args: [],
    results: [{ type: 'num', description: 'The current block count' }],
    examples: helpExampleCli('getblockcount', '') + helpExampleRpc('getblockcount', ''),
    handler: () => access.chain().chain.height,
  });

  const getbestblockhash = defineRpcMethod({
    name: 'getbestblockhash',
    category: 'blockchain',
    description: 'Returns the hash of the best (tip) block in the most-work fully-validated chain.\n',
    args: [],
    results: [{ type: 'str_hex', description: 'the block hash, hex-encoded' }],
    examples: helpExampleCli('getbestblockhash', '') + helpExampleRpc('getbestblockhash', ''),
    handler: () => access.chain().tip!.hashHex,
  });

  const getblockhash = defineRpcMethod({
    name: 'getblockhash',
    category: 'blockchain',
    description: 'Returns hash of block in best-block-chain at height provided.\n',
    args: [{ name: 'height', type: 'num', description: 'The height index' }],
    results: [{ type: 'str_hex', description: 'The block hash' }],
    examples: helpExampleCli('getblockhash', '1000') + helpExampleRpc('getblockhash', '1000'),
    handler: (args) => {
      const height = args.int('height');
      const entry = access.chain().chain.at(height);
      if (!entry) throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
      return entry.hashHex;
    },
  });

  const getchaintips = defineRpcMethod({
    name: 'getchaintips',
    category: 'blockchain',
    description:
      'Return information about all known tips in the block tree, including the main chain as well as orphaned branches.\n',
    args: [],
    results: [
      {
        type: 'arr',
        inner: [
          {
            type: 'obj',
            inner: [
              { type: 'num', key: 'height', description: 'height of the chain tip' },
              { type: 'str_hex', key: 'hash', description: 'block hash of the tip' },
              { type: 'num', key: 'branchlen', description: 'zero for main chain, otherwise length of branch connecting the tip to the main chain' },
              { type: 'str', key: 'status', description: CHAIN_TIP_STATUS_HELP },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('getchaintips', '') + helpExampleRpc('getchaintips', ''),
    handler: () => access.chain().chainTips().map((t) => ({ height: t.height, hash: t.hash, branchlen: t.branchlen, status: t.status })),
  });

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

  const gettxoutsetinfo = defineRpcMethod({
    name: 'gettxoutsetinfo',
    category: 'blockchain',
    description: 'Returns statistics about the unspent transaction output set.\nNote this call may take some time if you are not using coinstatsindex.\n',
    args: [
      {
        name: 'hash_type',
        type: 'str',
        default: 'hash_serialized_3',
        description: "Which UTXO set hash should be calculated. Options: 'hash_serialized_3' (the legacy algorithm), 'muhash', 'none'.",
      },
      {
        name: 'hash_or_height',
        type: 'num',
        defaultHint: 'the current best block',
        skipTypeCheck: true,
        description: 'The block hash or height of the target block (only available with coinstatsindex).',
        typeStr: ['', 'string or numeric'],
      },
      { name: 'use_index', type: 'bool', default: true, description: 'Use coinstatsindex, if available.' },
    ],
    results: [
      {
        type: 'obj',
        inner: [
          { type: 'num', key: 'height', description: 'The block height (index) of the returned statistics' },
          { type: 'str_hex', key: 'bestblock', description: 'The hash of the block at which these statistics are calculated' },
          { type: 'num', key: 'txouts', description: 'The number of unspent transaction outputs' },
          { type: 'num', key: 'bogosize', description: 'Database-independent, meaningless metric indicating the UTXO set size' },
          { type: 'str_hex', key: 'hash_serialized_3', optional: true, description: 'The serialized hash (only present if \'hash_serialized_3\' hash_type is chosen)' },
          { type: 'str_hex', key: 'muhash', optional: true, description: 'The serialized hash (only present if \'muhash\' hash_type is chosen)' },
          { type: 'str_amount', key: 'total_amount', description: 'The total amount of coins in the UTXO set' },
          { type: 'num', key: 'transactions', optional: true, description: 'The number of transactions with unspent outputs (not available when coinstatsindex is used)' },
          { type: 'num', key: 'disk_size', optional: true, description: 'The estimated size of the chainstate on disk (not available when coinstatsindex is used)' },
        ],
      },
    ],
    examples:
      helpExampleCli('gettxoutsetinfo', '') +
      helpExampleCli('gettxoutsetinfo', '"none"') +
      helpExampleCli('gettxoutsetinfo', '"none" 1000') +
      helpExampleCli('gettxoutsetinfo', '"none" \'"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"\'') +
      helpExampleRpc('gettxoutsetinfo', '') +
      helpExampleRpc('gettxoutsetinfo', '"none"') +
      helpExampleRpc('gettxoutsetinfo', '"none", 1000') +
      helpExampleRpc('gettxoutsetinfo', '"none", "00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"'),
    handler: async (args) => {
      const hashType = args.string('hash_type');
      if (hashType !== 'hash_serialized_3' && hashType !== 'muhash' && hashType !== 'none') {
        throw new RpcError(RPC_INVALID_PARAMETER, `'${hashType}' is not a valid hash_type`);
      }
      if (args.has('hash_or_height')) {
        if (hashType === 'hash_serialized_3') throw new RpcError(RPC_INVALID_PARAMETER, 'hash_serialized_3 hash type cannot be queried for a specific block');
        if (args.optBoolean('use_index') === false) throw new RpcError(RPC_INVALID_PARAMETER, 'Cannot set use_index to false when querying for a specific block');
        throw new RpcError(RPC_INVALID_PARAMETER, 'Querying specific block heights requires coinstatsindex');
      }
      const chain = access.chain();
      // The stored coins must describe the tip: flush whatever the cache holds first, as Core does.
      await chain.flushNow();
      const result = chain.snapshot((reader) => {
        const tipHash = reader.tip();
        const entry = tipHash ? chain.tree.getByHash(tipHash) : undefined;
        const stats = computeUtxoStats(reader.coins(), hashType as UtxoHashType);
        return { entry, stats, diskSize: reader.coinsDiskSize() };
      });
      const { entry, stats } = result;
      return {
        height: entry?.height ?? 0,
        bestblock: entry ? entry.hashHex : hashToHex(new Uint8Array(32)),
        txouts: stats.txouts,
        bogosize: stats.bogosize,
        ...(hashType === 'hash_serialized_3' ? { hash_serialized_3: hashToHex(stats.hash!) } : {}),
        ...(hashType === 'muhash' ? { muhash: hashToHex(stats.hash!) } : {}),
        total_amount: amountJson(stats.totalAmount),
        transactions: stats.transactions,
        disk_size: result.diskSize,
      };
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

  return [getblockcount, getbestblockhash, getblockhash, getchaintips, gettxoutsetinfo, preciousblock, pruneblockchain, verifychain, invalidateblock, reconsiderblock];
}
