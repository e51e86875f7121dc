/**
 * The Blockchain family's block, transaction and state queries, each answered from one
 * LMDB snapshot (so in HTTP front-ends, without the coordinator): getblockchaininfo,
 * getblockheader, getblock, getblockstats, getdifficulty, getchaintxstats,
 * getdeploymentinfo, gettxout, getrawtransaction, getindexinfo. Texts are Core's.
 */
import { BASIC_FILTER_INDEX_NAME, type SnapshotChainView, type ViewEntry } from '../chain/index.js';
import { blockScriptFlags, deploymentInfo, getDifficulty, guessVerificationProgress, uint256Hex, deriveTarget, VersionBitsCache } from '../consensus/index.js';
import { ByteReader, DecodeError, HEADER_SIZE, bytesEqual, hashToHex, parseBlock, parseTransaction, readTransaction, toHex, type Transaction } from '../primitives/index.js';
import type { TxIndexEntry } from '../storage/index.js';
import { ALL_FLAG_NAMES, VerifyFlags } from '../script/index.js';
import { blockHeaderDoc, deploymentDoc, getblockResultDocs } from './blockchain-help.js';
import { blockOnDiskOrThrow, readBlockBytesOrThrow } from './block-checked.js';
import { memoizedChainInfo } from './blockchain-info-memo.js';
import { blockTailKey, keepBlockStats, keepBlockTail, keepTransaction, keptBlockStats, keptBlockTail, keptTransaction, transactionKey } from './rendered-blocks.js';
import { view, lookupViewBlock, parseHashOrHeight } from './blockchain-read.js';
import { RPC_INTERNAL_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RpcError } from './errors.js';
import {
  blockTailText,
  computeBlockStats,
  joinBlockText,
  headerToJson,
  parseStatNames,
  rawTransactionMembersText,
  scriptPubKeyJson,
  wrapRawTransactionText,
  type TxBlockContext,
  selectBlockStats,
  type HeaderJsonFields,
} from './format/index.js';
import { JsonText, jsonString, writeJson, type RawJsonNumber } from './json.js';
import { doubleJson, formatDouble } from './number-format.js';
import { parseVerbosity } from './value-parse.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { amountJson, parseHash } from './values.js';
import { MempoolView } from './mempool-view.js';
import { warningsForRpc, warningsResultDoc } from './node-facts.js';
import { verboseRawTransactionDocs } from './transaction-help.js';
import { MEMPOOL_HEIGHT } from '../mempool/index.js';

/** Deployment state caches are per block, so one per process serves every snapshot. */
const versionBits = new VersionBitsCache();

/** The header fields every block-describing result shares (getblockheader, getblock, REST headers and block). */
/**
 * getblock 1–3's JSON text for `entry` (REST's block JSON is the same text): what follows
 * the header fields is kept per block (rendered-blocks.ts); `block.read` gives the block's
 * bytes when it is not kept, `block.kept` checks what Core checks when it is.
 */
export function blockJsonText(snapshot: SnapshotChainView, entry: ViewEntry, level: 1 | 2 | 3, block: { read(): Uint8Array; kept(): void }): string {
  const key = blockTailKey(entry.hashHex, level, level >= 2 && entry.hasUndo);
  let tail = keptBlockTail(key);
  if (tail === undefined) {
    const parsed = parseBlock(block.read());
    const undo = level >= 2 ? blockJsonUndo(snapshot, entry) : undefined;
    tail = blockTailText(parsed, { chain: snapshot.params.name, verbosity: level, ...(undo ? { undo } : {}) });
    keepBlockTail(key, tail);
  } else {
    block.kept();
  }
  return joinBlockText(headerFields(snapshot, entry), tail);
}

export function headerFields(snapshot: SnapshotChainView, entry: ViewEntry): HeaderJsonFields {
  const active = snapshot.isActive(entry);
  const next = active ? snapshot.next(entry) : undefined;
  return {
    header: entry.header,
    height: entry.height,
    chainWork: entry.chainWork,
    medianTimePast: entry.medianTimePast(),
    txCount: entry.txCount,
    confirmations: active ? snapshot.height - entry.height + 1 : -1,
    ...(next ? { nextHash: next.hash } : {}),
    powLimit: snapshot.params.powLimit,
  };
}

/** Core's ParseHashOrHeight. */
/** Core's FormatScriptFlags as an array: the names of the set flags, in name order. */
function scriptFlagNames(flags: number): string[] {
  return ALL_FLAG_NAMES.filter((name) => (flags & VerifyFlags[name]) !== 0).sort();
}

function warnings(snapshot: SnapshotChainView): string | string[] {
  return warningsForRpc(snapshot.node.warnings, snapshot.node.deprecatedRpc.includes('warnings'));
}

/** Core's GuessVerificationProgress from the chain's transaction-count model. */
function verificationProgress(snapshot: SnapshotChainView, tip: ViewEntry): number {
  return guessVerificationProgress(snapshot.params.chainTxData, tip, snapshot.bestHeader().height, snapshot.params.targetSpacing, snapshot.node.now());
}

/** A tip's difficulty fields as getblockchaininfo and getchainstates print them. */
function difficultyFields(snapshot: SnapshotChainView, tip: ViewEntry): { bits: string; target: string; difficulty: unknown } {
  return {
    bits: tip.bits.toString(16).padStart(8, '0'),
    target: uint256Hex(deriveTarget(tip.bits, snapshot.params.powLimit) ?? 0n),
    difficulty: doubleJson(getDifficulty(tip.bits)),
  };
}

/** getblockchaininfo's last fields: pruned (with the prune state when pruning), signet_challenge, warnings. */
function pruningAndWarnings(snapshot: SnapshotChainView): Record<string, unknown> {
  const prune = snapshot.node.pruneTarget;
  const out: Record<string, unknown> = { pruned: prune !== 0 };
  if (prune !== 0) {
    const pruneHeight = snapshot.pruneHeight();
    out.pruneheight = pruneHeight === undefined ? 0 : pruneHeight + 1;
    out.automatic_pruning = prune !== 1;
    if (prune !== 1) out.prune_target_size = prune;
  }
  if (snapshot.params.signetChallenge) out.signet_challenge = toHex(snapshot.params.signetChallenge);
  out.warnings = warnings(snapshot);
  return out;
}

/** getblockchaininfo's verificationprogress as text, for the last tip, header count and second seen. */
let progressText: { tip: string; headers: number; now: number; text: string } | undefined;
/** The fields the tip block fixes (bits to mediantime, and chainwork), as text, for the last tip this process saw. */
let tipText: { hash: string; difficulty: string; chainwork: string } | undefined;

/**
 * getblockchaininfo's JSON written directly: the most frequent call of all, so
 * what the tip fixes is rendered once per tip and the rest (header count, progress, disk
 * size, IBD) per call, with no object for JSON.stringify to walk.
 */
export function blockchainInfoText(snapshot: SnapshotChainView): JsonText {
  const tip = snapshot.tip();
  const params = snapshot.params;
  if (tipText?.hash !== tip.hashHex) {
    const d = difficultyFields(snapshot, tip);
    tipText = {
      hash: tip.hashHex,
      difficulty: `"bits":"${d.bits}","target":"${d.target}","difficulty":${(d.difficulty as RawJsonNumber).text},"time":${tip.time},"mediantime":${tip.medianTimePast()}`,
      chainwork: `"chainwork":"${uint256Hex(tip.chainWork)}"`,
    };
  }
  const headers = snapshot.bestHeader().height;
  const now = snapshot.node.now();
  // The progress is a function of the tip, the header count and the second: formatted once per second.
  if (progressText?.tip !== tip.hashHex || progressText.headers !== headers || progressText.now !== now) {
    progressText = { tip: tip.hashHex, headers, now, text: formatDouble(guessVerificationProgress(params.chainTxData, tip, headers, params.targetSpacing, now)) };
  }
  const progress = progressText.text;
  let out = `{"chain":${jsonString(params.name)},"blocks":${tip.height},"headers":${headers},"bestblockhash":"${tip.hashHex}",${tipText.difficulty},"verificationprogress":${progress},"initialblockdownload":${snapshot.node.ibd},${tipText.chainwork},"size_on_disk":${snapshot.sizeOnDisk()}`;
  out += `,${writeJson(pruningAndWarnings(snapshot)).slice(1)}`;
  return new JsonText(out);
}

/** getblockchaininfo's JSON text (the RPC's and REST chaininfo's), rendered once per state it describes. */
export function blockchainInfoJson(snapshot: SnapshotChainView): string {
  return memoizedChainInfo(snapshot, () => blockchainInfoText(snapshot).text);
}

/**
 * The undo data getblock 2/3 (and REST block JSON) print fees and prevouts from: present
 * when the block has undo data; Core's internal error when that cannot be read.
 */
export function blockJsonUndo(snapshot: SnapshotChainView, entry: ViewEntry) {
  if (!entry.hasUndo) return undefined;
  const undo = snapshot.readUndo(entry);
  if (!undo) {
    throw new RpcError(RPC_INTERNAL_ERROR, "Undo data expected but can't be read. This could be due to disk corruption or a conflict with a pruning event.");
  }
  return undo;
}

/** getdeploymentinfo's object at `entry` (also REST deploymentinfo). */
export function deploymentInfoResult(snapshot: SnapshotChainView, entry: ViewEntry): Record<string, unknown> {
  const info = deploymentInfo(entry, snapshot.params, versionBits);
  // v31 writes script_flags between height and deployments (observed on bitcoind v31.0).
  return { hash: info.hash, height: info.height, script_flags: scriptFlagNames(blockScriptFlags(entry, snapshot.params)), deployments: info.deployments };
}

/** `deprecatedRpc` is Core's IsDeprecatedRPCEnabled: it shapes getblockchaininfo's help. */
export function blockchainBlockMethods(deprecatedRpc: (name: string) => boolean): RpcMethod[] {
  const getblockchaininfo = defineRpcMethod({
    name: 'getblockchaininfo',
    category: 'blockchain',
    description: 'Returns an object containing various state info regarding blockchain processing.',
    args: [],
    results: [
      {
        type: 'obj',
        inner: [
          { type: 'str', key: 'chain', description: 'current network name (main, test, testnet4, signet, regtest)' },
          { type: 'num', key: 'blocks', description: 'the height of the most-work fully-validated chain. The genesis block has height 0' },
          { type: 'num', key: 'headers', description: 'the current number of headers we have validated' },
          { type: 'str', key: 'bestblockhash', description: 'the hash of the currently best block' },
          { type: 'str_hex', key: 'bits', description: 'nBits: compact representation of the block difficulty target' },
          { type: 'str_hex', key: 'target', description: 'The difficulty target' },
          { type: 'num', key: 'difficulty', description: 'the current difficulty' },
          { type: 'num_time', key: 'time', description: 'The block time expressed in UNIX epoch time' },
          { type: 'num_time', key: 'mediantime', description: 'The median block time expressed in UNIX epoch time' },
          { type: 'num', key: 'verificationprogress', description: 'estimate of verification progress [0..1]' },
          { type: 'bool', key: 'initialblockdownload', description: '(debug information) estimate of whether this node is in Initial Block Download mode' },
          { type: 'str_hex', key: 'chainwork', description: 'total amount of work in active chain, in hexadecimal' },
          { type: 'num', key: 'size_on_disk', description: 'the estimated size of the block and undo files on disk' },
          { type: 'bool', key: 'pruned', description: 'if the blocks are subject to pruning' },
          {
            type: 'num',
            key: 'pruneheight',
            optional: true,
            description: 'the first block unpruned, all previous blocks were pruned (only present if pruning is enabled)',
          },
          { type: 'bool', key: 'automatic_pruning', optional: true, description: 'whether automatic pruning is enabled (only present if pruning is enabled)' },
          {
            type: 'num',
            key: 'prune_target_size',
            optional: true,
            description: 'the target size used by pruning (only present if automatic pruning is enabled)',
          },
          {
            type: 'str_hex',
            key: 'signet_challenge',
            optional: true,
            description: 'the block challenge (aka. block script), in hexadecimal (only present if the current network is a signet)',
          },
          warningsResultDoc(deprecatedRpc('warnings')),
        ],
      },
    ],
    examples: helpExampleCli('getblockchaininfo', '') + helpExampleRpc('getblockchaininfo', ''),
    readsSnapshot: true,
    handler: (_args, ctx) => new JsonText(blockchainInfoJson(view(ctx))),
  });

  const getdifficulty = defineRpcMethod({
    name: 'getdifficulty',
    category: 'blockchain',
    description: 'Returns the proof-of-work difficulty as a multiple of the minimum difficulty.\n',
    args: [],
    results: [{ type: 'num', description: 'the proof-of-work difficulty as a multiple of the minimum difficulty.' }],
    examples: helpExampleCli('getdifficulty', '') + helpExampleRpc('getdifficulty', ''),
    readsSnapshot: true,
    handler: (_args, ctx) => doubleJson(getDifficulty(view(ctx).tip().bits)),
  });

  const getblockheader = defineRpcMethod({
    name: 'getblockheader',
    category: 'blockchain',
    description:
      "If verbose is false, returns a string that is serialized, hex-encoded data for blockheader 'hash'.\n" +
      "If verbose is true, returns an Object with information about blockheader <hash>.\n",
    args: [
      { name: 'blockhash', type: 'hex', description: 'The block hash' },
      { name: 'verbose', type: 'bool', default: true, description: 'true for a json object, false for the hex-encoded data' },
    ],
    results: [
      { type: 'obj', cond: 'for verbose = true', inner: blockHeaderDoc('Expected number of hashes required to produce the current chain') },
      { type: 'str_hex', cond: 'for verbose=false', description: "A string that is serialized, hex-encoded data for block 'hash'" },
    ],
    examples:
      helpExampleCli('getblockheader', '"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"') +
      helpExampleRpc('getblockheader', '"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const snapshot = view(ctx);
      const entry = lookupViewBlock(snapshot, args.string('blockhash'), 'hash');
      if (!args.boolean('verbose')) return hexText(entry.header.toBytes());
      return headerToJson(headerFields(snapshot, entry));
    },
  });

  const getblock = defineRpcMethod({
    name: 'getblock',
    category: 'blockchain',
    description:
      "If verbosity is 0, returns a string that is serialized, hex-encoded data for block 'hash'.\n" +
      "If verbosity is 1, returns an Object with information about block <hash>.\n" +
      "If verbosity is 2, returns an Object with information about block <hash> and information about each transaction.\n" +
      "If verbosity is 3, returns an Object with information about block <hash> and information about each transaction, including prevout information for inputs (only for unpruned blocks in the current best chain).\n",
    args: [
      { name: 'blockhash', type: 'hex', description: 'The block hash' },
      {
        name: 'verbosity|verbose',
        type: 'num',
        default: 1,
        skipTypeCheck: true,
        description: '0 for hex-encoded data, 1 for a JSON object, 2 for JSON object with transaction data, and 3 for JSON object with transaction data including prevout information for inputs',
      },
    ],
    results: getblockResultDocs(),
    examples:
      helpExampleCli('getblock', '"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"') +
      helpExampleRpc('getblock', '"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const snapshot = view(ctx);
      const entry = lookupViewBlock(snapshot, args.string('blockhash'), 'blockhash');
      const verbosity = parseVerbosity(args.raw[1], 1, true, args.spelledAt(1));
      if (verbosity <= 0) {
        const key = blockTailKey(entry.hashHex, 0, false);
        const kept = keptBlockTail(key);
        if (kept === undefined) {
          const text = hexText(readBlockBytesOrThrow(snapshot, entry));
          keepBlockTail(key, text.text);
          return text;
        }
        blockOnDiskOrThrow(snapshot, entry);
        return new JsonText(kept);
      }
      const level = verbosity === 1 ? 1 : verbosity === 2 ? 2 : 3;
      return new JsonText(
        blockJsonText(snapshot, entry, level, {
          read: () => readBlockBytesOrThrow(snapshot, entry),
          kept: () => blockOnDiskOrThrow(snapshot, entry),
        }),
      );
    },
  });

  const getblockstats = defineRpcMethod({
    name: 'getblockstats',
    category: 'blockchain',
    description: 'Compute per block statistics for a given window. All amounts are in satoshis.\nIt won\'t work for some heights with pruning.\n',
    args: [
      {
        name: 'hash_or_height',
        type: 'num',
        skipTypeCheck: true,
        typeStr: ['', 'string or numeric'],
        description: 'The block hash or height of the target block',
      },
      {
        name: 'stats',
        type: 'arr',
        defaultHint: 'all values',
        description: 'Values to plot (see result below)',
        onelineDescription: 'stats',
        inner: [
          { name: 'height', type: 'str', optional: true, description: 'Selected statistic' },
          { name: 'time', type: 'str', optional: true, description: 'Selected statistic' },
        ],
      },
    ],
    results: [
      {
        type: 'obj',
        inner: [
          { type: 'num', key: 'avgfee', optional: true, description: 'Average fee in the block' },
          { type: 'num', key: 'avgfeerate', optional: true, description: 'Average feerate (in satoshis per virtual byte)' },
          { type: 'num', key: 'avgtxsize', optional: true, description: 'Average transaction size' },
          { type: 'str_hex', key: 'blockhash', optional: true, description: 'The block hash (to check for potential reorgs)' },
          {
            type: 'arr_fixed',
            key: 'feerate_percentiles',
            optional: true,
            description: 'Feerates at the 10th, 25th, 50th, 75th, and 90th percentile weight unit (in satoshis per virtual byte)',
            inner: ['10th', '25th', '50th', '75th', '90th'].map((p) => ({ type: 'num' as const, description: `The ${p} percentile feerate` })),
          },
          { type: 'num', key: 'height', optional: true, description: 'The height of the block' },
          { type: 'num', key: 'ins', optional: true, description: 'The number of inputs (excluding coinbase)' },
          { type: 'num', key: 'maxfee', optional: true, description: 'Maximum fee in the block' },
          { type: 'num', key: 'maxfeerate', optional: true, description: 'Maximum feerate (in satoshis per virtual byte)' },
          { type: 'num', key: 'maxtxsize', optional: true, description: 'Maximum transaction size' },
          { type: 'num', key: 'medianfee', optional: true, description: 'Truncated median fee in the block' },
          { type: 'num', key: 'mediantime', optional: true, description: 'The block median time past' },
          { type: 'num', key: 'mediantxsize', optional: true, description: 'Truncated median transaction size' },
          { type: 'num', key: 'minfee', optional: true, description: 'Minimum fee in the block' },
          { type: 'num', key: 'minfeerate', optional: true, description: 'Minimum feerate (in satoshis per virtual byte)' },
          { type: 'num', key: 'mintxsize', optional: true, description: 'Minimum transaction size' },
          { type: 'num', key: 'outs', optional: true, description: 'The number of outputs' },
          { type: 'num', key: 'subsidy', optional: true, description: 'The block subsidy' },
          { type: 'num', key: 'swtotal_size', optional: true, description: 'Total size of all segwit transactions' },
          { type: 'num', key: 'swtotal_weight', optional: true, description: 'Total weight of all segwit transactions' },
          { type: 'num', key: 'swtxs', optional: true, description: 'The number of segwit transactions' },
          { type: 'num', key: 'time', optional: true, description: 'The block time' },
          {
            type: 'num',
            key: 'total_out',
            optional: true,
            description: 'Total amount in all outputs (excluding coinbase and thus reward [ie subsidy + totalfee])',
          },
          { type: 'num', key: 'total_size', optional: true, description: 'Total size of all non-coinbase transactions' },
          { type: 'num', key: 'total_weight', optional: true, description: 'Total weight of all non-coinbase transactions' },
          { type: 'num', key: 'totalfee', optional: true, description: 'The fee total' },
          { type: 'num', key: 'txs', optional: true, description: 'The number of transactions (including coinbase)' },
          {
            type: 'num',
            key: 'utxo_increase',
            optional: true,
            description: 'The increase/decrease in the number of unspent outputs (not discounting op_return and similar)',
          },
          {
            type: 'num',
            key: 'utxo_size_inc',
            optional: true,
            description: 'The increase/decrease in size for the utxo index (not discounting op_return and similar)',
          },
          {
            type: 'num',
            key: 'utxo_increase_actual',
            optional: true,
            description: 'The increase/decrease in the number of unspent outputs, not counting unspendables',
          },
          {
            type: 'num',
            key: 'utxo_size_inc_actual',
            optional: true,
            description: 'The increase/decrease in size for the utxo index, not counting unspendables',
          },
        ],
      },
    ],
    examples:
      helpExampleCli('getblockstats', '\'"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09"\' \'["minfeerate","avgfeerate"]\'') +
      helpExampleCli('getblockstats', '1000 \'["minfeerate","avgfeerate"]\'') +
      helpExampleRpc('getblockstats', '"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09", ["minfeerate","avgfeerate"]') +
      helpExampleRpc('getblockstats', '1000, ["minfeerate","avgfeerate"]'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const snapshot = view(ctx);
      const entry = parseHashOrHeight(snapshot, args.raw[0]);
      const names = parseStatNames(args.optArray('stats'));
      let stats = keptBlockStats(entry.hashHex);
      if (stats) {
        blockOnDiskOrThrow(snapshot, entry);
        if (entry.height > 0 && !entry.hasUndo) throw blockStatsUndoMissing(snapshot, entry);
      } else {
        const block = parseBlock(readBlockBytesOrThrow(snapshot, entry));
        const undo = entry.height === 0 ? [] : snapshot.readUndo(entry);
        if (!undo) throw blockStatsUndoMissing(snapshot, entry);
        stats = computeBlockStats({ block, undo, height: entry.height, medianTimePast: entry.medianTimePast(), params: snapshot.params });
        keepBlockStats(entry.hashHex, stats);
      }
      return selectBlockStats(stats, names);
    },
  });

  const getchaintxstats = defineRpcMethod({
    name: 'getchaintxstats',
    category: 'blockchain',
    description: 'Compute statistics about the total number and rate of transactions in the chain.\n',
    args: [
      { name: 'nblocks', type: 'num', defaultHint: 'one month', description: 'Size of the window in number of blocks' },
      { name: 'blockhash', type: 'hex', defaultHint: 'chain tip', description: 'The hash of the block that ends the window.' },
    ],
    results: [
      {
        type: 'obj',
        inner: [
          { type: 'num_time', key: 'time', description: 'The timestamp for the final block in the window, expressed in UNIX epoch time' },
          {
            type: 'num',
            key: 'txcount',
            optional: true,
            description: 'The total number of transactions in the chain up to that point, if known. It may be unknown when using assumeutxo.',
          },
          { type: 'str_hex', key: 'window_final_block_hash', description: 'The hash of the final block in the window' },
          { type: 'num', key: 'window_final_block_height', description: 'The height of the final block in the window.' },
          { type: 'num', key: 'window_block_count', description: 'Size of the window in number of blocks' },
          {
            type: 'num',
            key: 'window_interval',
            optional: true,
            description: 'The elapsed time in the window in seconds. Only returned if "window_block_count" is > 0',
          },
          {
            type: 'num',
            key: 'window_tx_count',
            optional: true,
            description:
              'The number of transactions in the window. Only returned if "window_block_count" is > 0 and if txcount exists for the start and end of the window.',
          },
          {
            type: 'num',
            key: 'txrate',
            optional: true,
            description: 'The average rate of transactions per second in the window. Only returned if "window_interval" is > 0 and if window_tx_count exists.',
          },
        ],
      },
    ],
    examples: helpExampleCli('getchaintxstats', '') + helpExampleRpc('getchaintxstats', '2016'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const snapshot = view(ctx);
      let entry: ViewEntry;
      if (args.has('blockhash')) {
        entry = lookupViewBlock(snapshot, args.string('blockhash'), 'blockhash');
        if (!snapshot.isActive(entry)) throw new RpcError(RPC_INVALID_PARAMETER, 'Block is not in main chain');
      } else {
        entry = snapshot.tip();
      }
      let blockcount = (30 * 24 * 60 * 60) / snapshot.params.targetSpacing;
      if (!args.has('nblocks')) {
        blockcount = Math.max(0, Math.min(blockcount, entry.height - 1));
      } else {
        blockcount = args.int('nblocks');
        if (blockcount < 0 || (blockcount > 0 && blockcount >= entry.height)) {
          throw new RpcError(RPC_INVALID_PARAMETER, "Invalid block count: should be between 0 and the block's height - 1");
        }
      }
      const past = entry.ancestor(entry.height - blockcount)!;
      const timeDiff = entry.medianTimePast() - past.medianTimePast();
      const out: Record<string, unknown> = { time: entry.time };
      if (entry.chainTxCount) out.txcount = entry.chainTxCount;
      out.window_final_block_hash = entry.hashHex;
      out.window_final_block_height = entry.height;
      out.window_block_count = blockcount;
      if (blockcount > 0) {
        out.window_interval = timeDiff;
        if (entry.chainTxCount !== 0 && past.chainTxCount !== 0) {
          const windowTxCount = entry.chainTxCount - past.chainTxCount;
          out.window_tx_count = windowTxCount;
          if (timeDiff > 0) out.txrate = doubleJson(windowTxCount / timeDiff);
        }
      }
      return out;
    },
  });

  const getdeploymentinfo = defineRpcMethod({
    name: 'getdeploymentinfo',
    category: 'blockchain',
    description: 'Returns an object containing various state info regarding deployments of consensus changes.',
    args: [{ name: 'blockhash', type: 'hex', default: 'hash of current chain tip', description: 'The block hash at which to query deployment state' }],
    results: [
      {
        type: 'obj',
        inner: [
          { type: 'str', key: 'hash', description: 'requested block hash (or tip)' },
          { type: 'num', key: 'height', description: 'requested block height (or tip)' },
          { type: 'arr', key: 'script_flags', description: 'script verify flags for the block', inner: [{ type: 'str', description: 'a script verify flag' }] },
          { type: 'obj_dyn', key: 'deployments', inner: [{ type: 'obj', key: 'xxxx', description: 'name of the deployment', inner: deploymentDoc() }] },
        ],
      },
    ],
    examples: helpExampleCli('getdeploymentinfo', '') + helpExampleRpc('getdeploymentinfo', ''),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const snapshot = view(ctx);
      const entry = args.has('blockhash') ? lookupViewBlock(snapshot, args.string('blockhash'), 'blockhash') : snapshot.tip();
      return deploymentInfoResult(snapshot, entry);
    },
  });

  const gettxout = defineRpcMethod({
    name: 'gettxout',
    category: 'blockchain',
    description: 'Returns details about an unspent transaction output.\n',
    args: [
      { name: 'txid', type: 'hex', description: 'The transaction id' },
      { name: 'n', type: 'num', description: 'vout number' },
      { name: 'include_mempool', type: 'bool', default: true, description: 'Whether to include the mempool. Note that an unspent output that is spent in the mempool won\'t appear.' },
    ],
    results: [
      { type: 'none', cond: 'If the UTXO was not found' },
      {
        type: 'obj',
        cond: 'Otherwise',
        inner: [
          { type: 'str_hex', key: 'bestblock', description: 'The hash of the block at the tip of the chain' },
          { type: 'num', key: 'confirmations', description: 'The number of confirmations' },
          { type: 'str_amount', key: 'value', description: 'The transaction value in BTC' },
          {
            type: 'obj',
            key: 'scriptPubKey',
            inner: [
              { type: 'str', key: 'asm', description: 'Disassembly of the output script' },
              { type: 'str', key: 'desc', description: 'Inferred descriptor for the output' },
              { type: 'str_hex', key: 'hex', description: 'The raw output script bytes, hex-encoded' },
              { type: 'str', key: 'type', description: 'The type, eg pubkeyhash' },
              { type: 'str', key: 'address', optional: true, description: 'The Bitcoin address (only if a well-defined address exists)' },
            ],
          },
          { type: 'bool', key: 'coinbase', description: 'Coinbase or not' },
        ],
      },
    ],
    examples:
      '\nGet unspent transactions\n' +
      helpExampleCli('listunspent', '') +
      '\nView the details\n' +
      helpExampleCli('gettxout', '"txid" 1') +
      '\nAs a JSON-RPC call\n' +
      helpExampleRpc('gettxout', '"txid", 1'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const snapshot = view(ctx);
      const txid = parseHash(args.string('txid'), 'txid');
      const n = args.int('n');
      if (n < 0 || n > 0xffffffff) throw new RpcError(RPC_MISC_ERROR, 'JSON integer out of range');
      const outpoint = { txid, vout: n };
      let coin;
      if (args.boolean('include_mempool')) {
        // Core's CCoinsViewMemPool: a pooled transaction's outputs, else the UTXO set; spent in the pool is gone.
        const pool = MempoolView.of(snapshot);
        const pooled = pool.output(outpoint);
        coin = pooled === undefined ? snapshot.coin(outpoint) : pooled && { ...pooled, coinbase: false };
        if (coin && pool.isSpent(outpoint)) coin = undefined;
      } else {
        coin = snapshot.coin(outpoint);
      }
      if (!coin) return null;
      const tip = snapshot.tip();
      return {
        bestblock: tip.hashHex,
        confirmations: coin.height === MEMPOOL_HEIGHT ? 0 : tip.height - coin.height + 1,
        value: amountJson(coin.output.value),
        scriptPubKey: scriptPubKeyJson(coin.output.scriptPubKey, snapshot.params.name),
        coinbase: coin.coinbase,
      };
    },
  });

  const getrawtransaction = defineRpcMethod({
    name: 'getrawtransaction',
    category: 'rawtransactions',
    description:
      '\nBy default, this call only returns a transaction if it is in the mempool. If -txindex is enabled\n' +
      'and no blockhash argument is passed, it will return the transaction if it is in the mempool or any block.\n' +
      'If a blockhash argument is passed, it will return the transaction if\n' +
      'the specified block is available and the transaction is in that block.\n\n' +
      'Hint: Use gettransaction for wallet transactions.\n\n' +
      'If verbosity is 0 or omitted, returns the serialized transaction as a hex-encoded string.\n' +
      'If verbosity is 1, returns a JSON Object with information about the transaction.\n' +
      'If verbosity is 2, returns a JSON Object with information about the transaction, including fee and prevout information.',
    args: [
      { name: 'txid', type: 'hex', description: 'The transaction id' },
      {
        name: 'verbosity|verbose',
        type: 'num',
        default: 0,
        skipTypeCheck: true,
        description: '0 for hex-encoded data, 1 for a JSON object, and 2 for JSON object with fee and prevout',
      },
      { name: 'blockhash', type: 'hex', optional: true, description: 'The block in which to look for the transaction' },
    ],
    results: [
      { type: 'str', cond: 'if verbosity is not set or set to 0', description: "The serialized transaction as a hex-encoded string for 'txid'" },
      ...verboseRawTransactionDocs(),
    ],
    examples:
      helpExampleCli('getrawtransaction', '"mytxid"') +
      helpExampleCli('getrawtransaction', '"mytxid" 1') +
      helpExampleRpc('getrawtransaction', '"mytxid", 1') +
      helpExampleCli('getrawtransaction', '"mytxid" 0 "myblockhash"') +
      helpExampleCli('getrawtransaction', '"mytxid" 1 "myblockhash"') +
      helpExampleCli('getrawtransaction', '"mytxid" 2 "myblockhash"'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const snapshot = view(ctx);
      const txid = parseHash(args.string('txid'), 'parameter 1');
      if (bytesEqual(txid, snapshot.params.genesis.header.merkleRoot)) {
        throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved');
      }
      const verbosity = parseVerbosity(args.raw[1], 0, true, args.spelledAt(1));
      let given: ViewEntry | undefined;
      if (args.has('blockhash')) {
        given = snapshot.entry(parseHash(args.string('blockhash'), 'parameter 3'));
        if (!given) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block hash not found');
      }
      let tx: Transaction | undefined;
      let blockEntry: ViewEntry | undefined;
      let txIndexReady = false;
      let position: TxIndexEntry | undefined;
      let pooled;
      // A transaction looked up in a given block is kept by block and txid.
      const givenKey = given && `${hashToHex(txid)}:in:${given.hashHex}:${verbosity >= 2 ? 2 : 1}`;
      if (given) {
        if (given.hasData && verbosity >= 1) {
          const kept = keptTransaction(givenKey!);
          if (kept && kept.withUndo === undoReadable(given)) {
            return new JsonText(wrapRawTransactionText(kept.members, { inActiveChain: snapshot.isActive(given), block: txBlockContext(snapshot, given) }));
          }
        }
        if (given.hasData) {
          const block = snapshot.readBlock(given);
          tx = block.transactions.find((t) => bytesEqual(t.txid, txid));
          if (tx) blockEntry = given;
        }
      } else if ((pooled = snapshot.reader.mempoolEntry(txid))) {
        tx = parseTransaction(pooled.tx);
      } else if (snapshot.txindex) {
        const info = snapshot.txindex.info();
        txIndexReady = info.synced;
        position = snapshot.txindex.lookup(txid);
        if (position && verbosity >= 1) {
          const kept = keptTransaction(transactionKey(hashToHex(txid), position, verbosity));
          const keptBlock = kept && snapshot.entry(kept.blockHash);
          if (kept && keptBlock && kept.withUndo === undoReadable(keptBlock)) {
            return new JsonText(wrapRawTransactionText(kept.members, { block: txBlockContext(snapshot, keptBlock) }));
          }
        }
        if (position) {
          tx = parseTransaction(snapshot.readTxBytes(position));
          blockEntry = findBlockAt(snapshot, position);
        }
      }
      if (!tx) {
        let message: string;
        if (given) {
          if (!given.hasData) throw new RpcError(RPC_MISC_ERROR, 'Block not available');
          message = 'No such transaction found in the provided block';
        } else if (!snapshot.txindex) {
          message = 'No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries';
        } else if (!txIndexReady) {
          message = 'No such mempool transaction. Blockchain transactions are still in the process of being indexed';
        } else {
          message = 'No such mempool or blockchain transaction';
        }
        throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `${message}. Use gettransaction for wallet transactions.`);
      }
      if (verbosity <= 0) return hexText(tx.toBytes());
      let undo;
      if (verbosity >= 2 && blockEntry && !tx.isCoinbase() && undoReadable(blockEntry)) {
        const blockUndo = snapshot.readUndo(blockEntry);
        const index = txIndexInBlock(snapshot, blockEntry, txid, position);
        if (blockUndo && index > 0) undo = blockUndo[index - 1];
      }
      const members = rawTransactionMembersText(tx, { chain: snapshot.params.name, ...(undo ? { undo } : {}) });
      if (blockEntry) {
        const key = given ? givenKey : position && transactionKey(hashToHex(txid), position, verbosity);
        if (key) keepTransaction(key, { blockHash: blockEntry.hash, withUndo: undoReadable(blockEntry), members });
      }
      return new JsonText(
        wrapRawTransactionText(members, {
          ...(given ? { inActiveChain: snapshot.isActive(given) } : {}),
          ...(blockEntry ? { block: txBlockContext(snapshot, blockEntry) } : {}),
        }),
      );
    },
  });

  const getindexinfo = defineRpcMethod({
    name: 'getindexinfo',
    category: 'util',
    description: 'Returns the status of one or all available indices currently running in the node.\n',
    args: [{ name: 'index_name', type: 'str', optional: true, description: 'Filter results for an index with a specific name.' }],
    results: [
      {
        type: 'obj_dyn',
        inner: [
          {
            type: 'obj',
            key: 'name',
            description: 'The name of the index',
            inner: [
              { type: 'bool', key: 'synced', description: 'Whether the index is synced or not' },
              { type: 'num', key: 'best_block_height', description: 'The block height to which the index is synced' },
            ],
          },
        ],
      },
    ],
    examples:
      helpExampleCli('getindexinfo', '') + helpExampleRpc('getindexinfo', '') + helpExampleCli('getindexinfo', 'txindex') + helpExampleRpc('getindexinfo', 'txindex'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const snapshot = view(ctx);
      const name = args.optString('index_name') ?? '';
      const out: Record<string, unknown> = {};
      if (snapshot.txindex && (name === '' || name === 'txindex')) out.txindex = snapshot.txindex.info();
      // Core's order: txindex, coinstatsindex, txospenderindex, then the filter indexes.
      if (snapshot.coinstats && (name === '' || name === 'coinstatsindex')) out.coinstatsindex = snapshot.coinstats.info();
      if (snapshot.txoSpender && (name === '' || name === 'txospenderindex')) out.txospenderindex = snapshot.txoSpender.info();
      if (snapshot.blockfilter && (name === '' || name === BASIC_FILTER_INDEX_NAME)) out[BASIC_FILTER_INDEX_NAME] = snapshot.blockfilter.info();
      // tsbtcd's own index, after Core's.
      if (snapshot.addressIndex && (name === '' || name === 'addressindex')) out.addressindex = snapshot.addressIndex.info();
      return out;
    },
  });

  const getchainstates = defineRpcMethod({
    name: 'getchainstates',
    category: 'blockchain',
    description: 'Return information about chainstates.\n',
    args: [],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'num', key: 'headers', description: 'the number of headers seen so far' },
          {
            type: 'arr',
            key: 'chainstates',
            description: 'list of the chainstates ordered by work, with the most-work (active) chainstate last',
            inner: [
              {
                type: 'obj',
                description: '',
                inner: [
                  { type: 'num', key: 'blocks', description: 'number of blocks in this chainstate' },
                  { type: 'str_hex', key: 'bestblockhash', description: 'blockhash of the tip' },
                  { type: 'str_hex', key: 'bits', description: 'nBits: compact representation of the block difficulty target' },
                  { type: 'str_hex', key: 'target', description: 'The difficulty target' },
                  { type: 'num', key: 'difficulty', description: 'difficulty of the tip' },
                  { type: 'num', key: 'verificationprogress', description: 'progress towards the network tip' },
                  { type: 'str_hex', key: 'snapshot_blockhash', optional: true, description: 'the base block of the snapshot this chainstate is based on, if any' },
                  { type: 'num', key: 'coins_db_cache_bytes', description: 'size of the coinsdb cache' },
                  { type: 'num', key: 'coins_tip_cache_bytes', description: 'size of the coinstip cache' },
                  {
                    type: 'bool',
                    key: 'validated',
                    description:
                      'whether the chainstate is fully validated. True if all blocks in the chainstate were validated, false if the chain is based on a snapshot and the snapshot has not yet been validated.',
                  },
                ],
              },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('getchainstates', '') + helpExampleRpc('getchainstates', ''),
    readsSnapshot: true,
    handler: (_args, ctx) => {
      // One chainstate: tsbtcd has no assumeutxo snapshots, so it is always fully validated.
      const snapshot = view(ctx);
      const tip = snapshot.tip();
      const cache = snapshot.node.coinsCacheBytes;
      return {
        headers: snapshot.bestHeader().height,
        chainstates: [
          {
            blocks: tip.height,
            bestblockhash: tip.hashHex,
            ...difficultyFields(snapshot, tip),
            verificationprogress: doubleJson(verificationProgress(snapshot, tip)),
            coins_db_cache_bytes: cache.db,
            coins_tip_cache_bytes: cache.tip,
            validated: true,
          },
        ],
      };
    },
  });

  return [
    getchainstates,
    getblockchaininfo,
    getblockheader,
    getblock,
    getblockstats,
    getchaintxstats,
    getdeploymentinfo,
    getdifficulty,
    gettxout,
    getrawtransaction,
    getindexinfo,
  ];
}

/**
 * Where the transaction `txid` stands in `entry`'s block. With its txindex position, the
 * transactions before it are walked to that offset (nothing hashed, nothing after it
 * read); otherwise the block is parsed and searched by txid. -1 when it is not there.
 */
function txIndexInBlock(snapshot: SnapshotChainView, entry: ViewEntry, txid: Uint8Array, position: TxIndexEntry | undefined): number {
  if (position) {
    const reader = new ByteReader(snapshot.readBlockRange(entry, 0, position.offset));
    reader.offset = HEADER_SIZE;
    try {
      const count = reader.compactSize();
      for (let i = 0; i < count; i++) {
        if (reader.offset === position.offset) return i;
        readTransaction(reader);
      }
    } catch (err) {
      // A position that is no transaction boundary: search by txid below.
      if (!(err instanceof DecodeError)) throw err;
    }
  }
  return snapshot.readBlock(entry).transactions.findIndex((t) => bytesEqual(t.txid, txid));
}

function blockStatsUndoMissing(snapshot: SnapshotChainView, entry: ViewEntry): RpcError {
  return new RpcError(RPC_MISC_ERROR, snapshot.havePruned() && !entry.hasData ? 'Undo data not available (pruned data)' : 'Undo data not available');
}

/** Hex of `bytes` as a whole result: a hex string needs no escaping, so JSON.stringify need not scan it. */
function hexText(bytes: Uint8Array): JsonText {
  return new JsonText(`"${toHex(bytes)}"`);
}

/** Whether getrawtransaction 2 reads the block's undo data (a kept rendering is only valid while this holds). */
function undoReadable(entry: ViewEntry): boolean {
  return entry.hasUndo && entry.hasData;
}

/** Core's TxToJSON: a block off the active chain gives confirmations 0 and no time. */
function txBlockContext(snapshot: SnapshotChainView, entry: ViewEntry): TxBlockContext {
  return {
    hash: entry.hashHex,
    index: snapshot.isActive(entry) ? { confirmations: snapshot.height - entry.height + 1, time: entry.time } : { confirmations: 0 },
  };
}

/** The block a txindex position points into: the active block whose data sits there. */
function findBlockAt(snapshot: SnapshotChainView, position: { file: number; pos: number }): ViewEntry | undefined {
  const header = snapshot.readBlockHeaderAt(position);
  return snapshot.entry(header.hash);
}

