/**
 * What the mining RPCs need to know about the node outside the chainstate: its product
 * name (Core's CLIENT_NAME in messages), -deprecatedrpc, the node's warnings, peers,
 * whether shutdown has begun (Core's IsRPCRunning), and the block-assembly options.
 */
import { DEFAULT_BLOCK_WEIGHT_LIMITS, type BlockWeightLimits } from '../mempool/index.js';
import type { RpcResultSpec } from './spec.js';

/** Core's DEFAULT_BLOCK_MIN_TX_FEE (v30+): 1 sat/kvB. */
export const DEFAULT_BLOCK_MIN_TX_FEE = 1n;

export interface NodeFacts {
  /** Where Core writes CLIENT_NAME ("Bitcoin Core ... is not connected!"). */
  readonly productName: string;
  /** -deprecatedrpc=<name> was given (Core's IsDeprecatedRPCEnabled). */
  deprecatedRpc(name: string): boolean;
  /** The node's warnings, oldest first. */
  warnings(): readonly string[];
  /** Connected peers, both directions (Core's CConnman::GetNodeCount). */
  peerCount(): number;
  /** True once shutdown has begun: long polls give up (Core's !IsRPCRunning()). */
  shuttingDown(): boolean;
  /** -blockmintxfee in satoshis per kvB. */
  readonly blockMinTxFee: bigint;
  /** -blockmaxweight and -blockreservedweight, clamped as Core's BlockAssembler does. */
  readonly blockWeights: BlockWeightLimits;
}

/** A node without P2P, warnings or options: what the RPCs assume when nothing is supplied. */
export const DEFAULT_NODE_FACTS: NodeFacts = {
  productName: 'tsbtcd',
  deprecatedRpc: () => false,
  warnings: () => [],
  peerCount: () => 0,
  shuttingDown: () => false,
  blockMinTxFee: DEFAULT_BLOCK_MIN_TX_FEE,
  blockWeights: DEFAULT_BLOCK_WEIGHT_LIMITS,
};

/** How getblockchaininfo, getmininginfo and getnetworkinfo describe the warningsJson field. */
export function warningsResultDoc(deprecatedWarnings: boolean): RpcResultSpec {
  return deprecatedWarnings
    ? { type: 'str', key: 'warnings', description: 'any network and blockchain warnings (DEPRECATED)' }
    : {
        type: 'arr',
        key: 'warnings',
        description: 'any network and blockchain warnings (run with `-deprecatedrpc=warnings` to return the latest warning as a single string)',
        inner: [{ type: 'str', description: 'warning' }],
      };
}

/** Core's GetWarningsForRpc: an array of all warnings, or with -deprecatedrpc=warnings the latest one as a string. */
export function warningsForRpc(all: readonly string[], deprecated: boolean): string | string[] {
  if (deprecated) return all.length === 0 ? '' : all[all.length - 1]!;
  return [...all];
}

export function warningsJson(facts: NodeFacts): string | string[] {
  return warningsForRpc(facts.warnings(), facts.deprecatedRpc('warnings'));
}
