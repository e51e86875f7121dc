/**
 * getmininginfo and getnetworkhashps as Core v31 answers them: the tip's and the next
 * block's bits, difficulty and target, the network hash rate estimate over the last 120
 * blocks, the last assembled template's weight and transaction count, the block minimum
 * fee rate, and the node's warnings (an array, or the latest as a string with
 * -deprecatedrpc=warnings).
 */
import { deriveTarget, getDifficulty, getNextWorkRequired, uint256Hex } from '../consensus/index.js';
import { lastAssemblyStats, networkHashPerSecond, updateBlockTime } from '../mining/index.js';
import { toHex } from '../primitives/index.js';
import type { ChainAccess } from './chain-access.js';
import { RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RpcError } from './errors.js';
import { bitsHex } from './gbt-result.js';
import { DEFAULT_NODE_FACTS, warningsJson, warningsResultDoc } from './node-facts.js';
import { doubleJson } from './number-format.js';
import type { RpcArgs } from './args.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod, type RpcResultSpec } from './spec.js';
import { amountJson } from './values.js';
import type { RawJsonNumber } from './json.js';

/** UniValue::getInt<int>: an integer that fits in 32 bits, else "JSON integer out of range". */
function int32Arg(args: RpcArgs, name: string): number {
  const value = args.int(name);
  if (value < -2147483648 || value > 2147483647) throw new RpcError(RPC_MISC_ERROR, 'JSON integer out of range');
  return value;
}

/** Core's GetNetworkHashPS with its argument checks. */
function networkHashPs(access: ChainAccess, lookup: number, height: number): RawJsonNumber {
  if (lookup < -1 || lookup === 0) throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid nblocks. Must be a positive number or -1.');
  const active = access.chain().chain;
  if (height < -1 || height > active.height) throw new RpcError(RPC_INVALID_PARAMETER, 'Block does not exist at specified height');
  const end = height === -1 ? active.tip! : active.at(height)!;
  return doubleJson(networkHashPerSecond(end, lookup, access.network.difficultyAdjustmentInterval));
}

function miningInfoResult(deprecatedWarnings: boolean): RpcResultSpec {
  return {
    type: 'obj',
    inner: [
      { type: 'num', key: 'blocks', description: 'The current block' },
      {
        type: 'num',
        key: 'currentblockweight',
        optional: true,
        description:
          'The block weight (including reserved weight for block header, txs count and coinbase tx) of the last assembled block (only present if a block was ever assembled)',
      },
      {
        type: 'num',
        key: 'currentblocktx',
        optional: true,
        description: 'The number of block transactions (excluding coinbase) of the last assembled block (only present if a block was ever assembled)',
      },
      { type: 'str_hex', key: 'bits', description: 'The current nBits, compact representation of the block difficulty target' },
      { type: 'num', key: 'difficulty', description: 'The current difficulty' },
      { type: 'str_hex', key: 'target', description: 'The current target' },
      { type: 'num', key: 'networkhashps', description: 'The network hashes per second' },
      { type: 'num', key: 'pooledtx', description: 'The size of the mempool' },
      { type: 'str_amount', key: 'blockmintxfee', description: 'Minimum feerate of packages selected for block inclusion in BTC/kvB' },
      { type: 'str', key: 'chain', description: 'current network name (main, test, testnet4, signet, regtest)' },
      {
        type: 'str_hex',
        key: 'signet_challenge',
        optional: true,
        description: 'The block challenge (aka. block script), in hexadecimal (only present if the current network is a signet)',
      },
      {
        type: 'obj',
        key: 'next',
        description: 'The next block',
        inner: [
          { type: 'num', key: 'height', description: 'The next height' },
          { type: 'str_hex', key: 'bits', description: 'The next target nBits' },
          { type: 'num', key: 'difficulty', description: 'The next difficulty' },
          { type: 'str_hex', key: 'target', description: 'The next target' },
        ],
      },
      warningsResultDoc(deprecatedWarnings),
    ],
  };
}

export function miningInfoMethods(access: ChainAccess): RpcMethod[] {
  const node = access.node ?? DEFAULT_NODE_FACTS;

  const getnetworkhashps = defineRpcMethod({
    name: 'getnetworkhashps',
    category: 'mining',
    description:
      'Returns the estimated network hashes per second based on the last n blocks.\n' +
      'Pass in [blocks] to override # of blocks, -1 specifies since last difficulty change.\n' +
      'Pass in [height] to estimate the network speed at the time when a certain block was found.\n',
    args: [
      {
        name: 'nblocks',
        type: 'num',
        default: 120,
        description: 'The number of previous blocks to calculate estimate from, or -1 for blocks since last difficulty change.',
      },
      { name: 'height', type: 'num', default: -1, description: 'To estimate at the time of the given height.' },
    ],
    results: [{ type: 'num', description: 'Hashes per second estimated' }],
    examples: helpExampleCli('getnetworkhashps', '') + helpExampleRpc('getnetworkhashps', ''),
    handler: (args) => networkHashPs(access, int32Arg(args, 'nblocks'), int32Arg(args, 'height')),
  });

  const getmininginfo = defineRpcMethod({
    name: 'getmininginfo',
    category: 'mining',
    description: 'Returns a json object containing mining-related information.',
    args: [],
    results: [miningInfoResult(node.deprecatedRpc('warnings'))],
    examples: helpExampleCli('getmininginfo', '') + helpExampleRpc('getmininginfo', ''),
    handler: () => {
      const chain = access.chain();
      const params = chain.params;
      const tip = chain.tip!;
      const assembled = lastAssemblyStats(chain);
      // Core's NextEmptyBlockIndex: the next block's time from UpdateTime, its bits for that time.
      const { time } = updateBlockTime(tip, params, chain.now(), { time: 0, bits: 0 });
      const nextBits = getNextWorkRequired(tip, time, params);
      return {
        blocks: chain.chain.height,
        currentblockweight: assembled?.weight,
        currentblocktx: assembled?.txCount,
        bits: bitsHex(tip.bits),
        difficulty: doubleJson(getDifficulty(tip.bits)),
        target: uint256Hex(deriveTarget(tip.bits, params.powLimit)!),
        networkhashps: networkHashPs(access, 120, -1),
        pooledtx: access.mempool?.()?.pool.size ?? 0,
        blockmintxfee: amountJson(node.blockMinTxFee),
        chain: params.name,
        next: {
          height: tip.height + 1,
          bits: bitsHex(nextBits),
          difficulty: doubleJson(getDifficulty(nextBits)),
          target: uint256Hex(deriveTarget(nextBits, params.powLimit)!),
        },
        signet_challenge: params.signetBlocks && params.signetChallenge ? toHex(params.signetChallenge) : undefined,
        warnings: warningsJson(node),
      };
    },
  });

  return [getnetworkhashps, getmininginfo];
}
