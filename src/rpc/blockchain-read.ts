/**
 * The Blockchain family's read-only methods: answered from one LMDB snapshot per call,
 * by whichever process receives the call (an HTTP front-end, or the coordinator).
 */
import { computeUtxoStats, snapshotChainTips, type CoinStatsIndexView, type SnapshotChainView, type UtxoHashType, type ViewEntry } from '../chain/index.js';
import type { CoinStatsTotals } from '../storage/index.js';
import { hashToHex, MuHash3072 } from '../primitives/index.js';
import { RPC_INTERNAL_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_TYPE_ERROR, RpcError } from './errors.js';
import { typeMismatchMessage, type Json } from './json.js';
import { getInt, INT32_MAX, INT32_MIN } from './value-parse.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcCallContext, type RpcMethod } from './spec.js';
import { amountJson, parseHash } from './values.js';
import { CHAIN_TIP_STATUS_HELP } from './blockchain-help.js';

/** The call's snapshot (the dispatcher provides one for readsSnapshot methods). */
export function view(ctx: RpcCallContext): SnapshotChainView {
  if (!ctx.snapshot) throw new Error(`${ctx.method} needs a chain snapshot`);
  return ctx.snapshot;
}

/** Looks a block up by its hash argument in the snapshot; -5 "Block not found" as Core. */
export function lookupViewBlock(snapshot: SnapshotChainView, hashText: string, argName: string) {
  const entry = snapshot.entry(parseHash(hashText, argName));
  if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  return entry;
}

/** Core's ParseHashOrHeight: a height (getInt<int>) in the active chain, or a known block's hash. */
export function parseHashOrHeight(snapshot: SnapshotChainView, value: Json | undefined): ViewEntry {
  if (typeof value === 'number') {
    const height = getInt(value, INT32_MIN, INT32_MAX);
    if (height < 0) throw new RpcError(RPC_INVALID_PARAMETER, `Target block height ${height} is negative`);
    if (height > snapshot.height) throw new RpcError(RPC_INVALID_PARAMETER, `Target block height ${height} after current tip ${snapshot.height}`);
    return snapshot.activeEntry(height)!;
  }
  if (typeof value !== 'string') throw new RpcError(RPC_TYPE_ERROR, typeMismatchMessage(value, 'string'));
  return lookupViewBlock(snapshot, value, 'hash_or_height');
}

/**
 * gettxoutsetinfo from -coinstatsindex (Core's LookUpStats): the stats stored for `entry`,
 * and block_info as the difference from its parent's running totals.
 */
function indexedUtxoStats(snapshot: SnapshotChainView, index: CoinStatsIndexView, entry: ViewEntry, hashType: 'muhash' | 'none'): Json {
  const info = index.info();
  // A lagging index answers blocks it has reached; beyond them Core's -32603.
  if (!info.synced && entry.height > info.best_block_height) {
    throw new RpcError(RPC_INTERNAL_ERROR, `Unable to get data because coinstatsindex is still syncing. Current height: ${info.best_block_height}`);
  }
  const stats = index.stats(entry.hash);
  if (!stats) throw new RpcError(RPC_INTERNAL_ERROR, 'Unable to read UTXO set');
  const prevEntry = entry.height > 0 ? snapshot.entry(entry.header.prevHash) : undefined;
  const prev = prevEntry ? index.stats(prevEntry.hash) : undefined;
  if (entry.height > 0 && !prev) throw new RpcError(RPC_INTERNAL_ERROR, 'Unable to read UTXO set');
  const diff = (key: keyof CoinStatsTotals) => amountJson(stats[key] - (prev?.[key] ?? 0n));
  return {
    height: entry.height,
    bestblock: entry.hashHex,
    txouts: Number(stats.txouts),
    bogosize: Number(stats.bogosize),
    ...(hashType === 'muhash' ? { muhash: hashToHex(MuHash3072.deserialize(stats.muhashState).finalize()) } : {}),
    total_amount: amountJson(stats.totalAmount),
    total_unspendable_amount: amountJson(stats.totalUnspendable),
    block_info: {
      prevout_spent: diff('prevoutSpent'),
      coinbase: diff('coinbase'),
      new_outputs_ex_coinbase: diff('newOutputsExCoinbase'),
      unspendable: diff('totalUnspendable'),
      unspendables: {
        genesis_block: diff('unspendableGenesis'),
        bip30: diff('unspendableBip30'),
        scripts: diff('unspendableScripts'),
        unclaimed_rewards: diff('unspendableUnclaimed'),
      },
    },
  } as unknown as Json;
}

export function blockchainReadMethods(): RpcMethod[] {
  const getblockcount = defineRpcMethod({
    name: 'getblockcount',
    category: 'blockchain',
    description: 'Returns the height of the most-work fully-validated chain.\nThe genesis block has height 0.\n',
    args: [],
    results: [{ type: 'num', description: 'The current block count' }],
    examples: helpExampleCli('getblockcount', '') + helpExampleRpc('getblockcount', ''),
    readsSnapshot: true,
    handler: (_args, ctx) => view(ctx).height,
  });

  const getbestblockhash = defineRpcMethod({
    name: 'getbestblockhash',
    category: 'blockchain',
    description: 'Returns the hash of the best (tip) block in the most-work fully-validated chain.\n',
    args: [],
    results: [{ type: 'str_hex', description: 'the block hash, hex-encoded' }],
    examples: helpExampleCli('getbestblockhash', '') + helpExampleRpc('getbestblockhash', ''),
    readsSnapshot: true,
    handler: (_args, ctx) => view(ctx).tip().hashHex,
  });

  const getblockhash = defineRpcMethod({
    name: 'getblockhash',
    category: 'blockchain',
    description: 'Returns hash of block in best-block-chain at height provided.\n',
    args: [{ name: 'height', type: 'num', description: 'The height index' }],
    results: [{ type: 'str_hex', description: 'The block hash' }],
    examples: helpExampleCli('getblockhash', '1000') + helpExampleRpc('getblockhash', '1000'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const height = args.int('height');
      // One read: the active table holds exactly the heights 0..tip.
      const hash = view(ctx).activeHashAt(height);
      if (!hash) throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
      return hashToHex(hash);
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
    readsSnapshot: true,
    handler: (_args, ctx) => snapshotChainTips(view(ctx)),
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
        description: 'The block hash or height of the target height (only available with coinstatsindex).',
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
          { type: 'num', key: 'transactions', optional: true, description: 'The number of transactions with unspent outputs (not available when coinstatsindex is used)' },
          { type: 'num', key: 'disk_size', optional: true, description: 'The estimated size of the chainstate on disk (not available when coinstatsindex is used)' },
          { type: 'str_amount', key: 'total_amount', description: 'The total amount of coins in the UTXO set' },
          {
            type: 'str_amount',
            key: 'total_unspendable_amount',
            optional: true,
            description: 'The total amount of coins permanently excluded from the UTXO set (only available if coinstatsindex is used)',
          },
          {
            type: 'obj',
            key: 'block_info',
            optional: true,
            description: 'Info on amounts in the block at this block height (only available if coinstatsindex is used)',
            inner: [
              { type: 'str_amount', key: 'prevout_spent', description: 'Total amount of all prevouts spent in this block' },
              { type: 'str_amount', key: 'coinbase', description: 'Coinbase subsidy amount of this block' },
              { type: 'str_amount', key: 'new_outputs_ex_coinbase', description: 'Total amount of new outputs created by this block' },
              { type: 'str_amount', key: 'unspendable', description: 'Total amount of unspendable outputs created in this block' },
              {
                type: 'obj',
                key: 'unspendables',
                description: 'Detailed view of the unspendable categories',
                inner: [
                  { type: 'str_amount', key: 'genesis_block', description: 'The unspendable amount of the Genesis block subsidy' },
                  { type: 'str_amount', key: 'bip30', description: 'Transactions overridden by duplicates (no longer possible with BIP30)' },
                  {
                    type: 'str_amount',
                    key: 'scripts',
                    description: 'Amounts sent to scripts that are unspendable (for example OP_RETURN outputs)',
                  },
                  { type: 'str_amount', key: 'unclaimed_rewards', description: 'Fee rewards that miners did not claim in their coinbase transaction' },
                ],
              },
            ],
          },
        ],
      },
    ],
    examples:
      helpExampleCli('gettxoutsetinfo', '') +
      helpExampleCli('gettxoutsetinfo', '"none"') +
      helpExampleCli('gettxoutsetinfo', '"none" 1000') +
      helpExampleCli('gettxoutsetinfo', '"none" \'"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"\'') +
      helpExampleCli('-named gettxoutsetinfo', "hash_type='muhash' use_index='false'") +
      helpExampleRpc('gettxoutsetinfo', '') +
      helpExampleRpc('gettxoutsetinfo', '"none"') +
      helpExampleRpc('gettxoutsetinfo', '"none", 1000') +
      helpExampleRpc('gettxoutsetinfo', '"none", "00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const hashType = args.string('hash_type');
      if (hashType !== 'hash_serialized_3' && hashType !== 'muhash' && hashType !== 'none') {
        throw new RpcError(RPC_INVALID_PARAMETER, `'${hashType}' is not a valid hash_type`);
      }
      const useIndex = args.optBoolean('use_index') ?? true;
      const snapshot = view(ctx);
      let entry = snapshot.tip();
      if (args.has('hash_or_height')) {
        // Without a coinstatsindex Core refuses any block query with this first, whatever the
        // hash type or use_index (observed on bitcoind v31.0).
        if (!snapshot.coinstats) throw new RpcError(RPC_INVALID_PARAMETER, 'Querying specific block heights requires coinstatsindex');
        if (hashType === 'hash_serialized_3') throw new RpcError(RPC_INVALID_PARAMETER, 'hash_serialized_3 hash type cannot be queried for a specific block');
        if (!useIndex) throw new RpcError(RPC_INVALID_PARAMETER, 'Cannot set use_index to false when querying for a specific block');
        entry = parseHashOrHeight(snapshot, args.value('hash_or_height'));
      }
      // Core's GetUTXOStats: the index answers muhash and none when asked to (the default).
      if (snapshot.coinstats && useIndex && hashType !== 'hash_serialized_3') return indexedUtxoStats(snapshot, snapshot.coinstats, entry, hashType);
      // The stored coins describe the stored tip: both come from this one snapshot.
      const stats = computeUtxoStats(snapshot.reader.allCoins(), hashType as UtxoHashType);
      const result = { diskSize: snapshot.coinsDiskSize() };
      return {
        height: entry.height,
        bestblock: entry.hashHex,
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

  return [getblockcount, getbestblockhash, getblockhash, getchaintips, gettxoutsetinfo];
}
