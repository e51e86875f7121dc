/**
 * The node-level facts the mining RPCs read (rpc/node-facts.ts), from the configuration
 * and the running node: product name, -deprecatedrpc, -blockmintxfee, shutdown state.
 * Peers are counted by the P2P service; the warnings are the coordinator's (NodeWarnings).
 */
import type { NodeFacts } from '../rpc/index.js';
import type { NodeConfig } from './config.js';
import { PRODUCT_NAME } from './coordinator.js';
import { blockWeightOptions } from './block-weight-options.js';
import { blockMinTxFeeOption } from './mempool-options.js';

export function nodeFacts(config: NodeConfig, shuttingDown: () => boolean, peerCount: () => number = () => 0, warnings: () => readonly string[] = () => []): NodeFacts {
  const deprecated = new Set(config.args.getArgs('deprecatedrpc'));
  const blockMinTxFee = blockMinTxFeeOption(config.args);
  const blockWeights = blockWeightOptions(config.args);
  return {
    productName: PRODUCT_NAME,
    deprecatedRpc: (name) => deprecated.has(name),
    warnings,
    peerCount,
    shuttingDown,
    blockMinTxFee,
    blockWeights,
  };
}
