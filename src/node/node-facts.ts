/**
 * The node-level facts the mining RPCs read (rpc/node-facts.ts), from the configuration
 * and the running node: product name, -deprecatedrpc, -blockmintxfee, shutdown state.
 * There is no P2P layer and no warning source yet: no peers, no warnings.
 */
import { DEFAULT_BLOCK_MIN_TX_FEE, type NodeFacts } from '../rpc/index.js';
import type { NodeConfig } from './config.js';
import { PRODUCT_NAME } from './coordinator.js';
import { parseMoney } from './money.js';

export function nodeFacts(config: NodeConfig, shuttingDown: () => boolean): NodeFacts {
  const deprecated = new Set(config.args.getArgs('deprecatedrpc'));
  const minFeeArg = config.args.getArg('blockmintxfee');
  // An unparsable value is an init error in Core; until config checks it, the default applies.
  const blockMinTxFee = (minFeeArg === undefined ? undefined : parseMoney(minFeeArg)) ?? DEFAULT_BLOCK_MIN_TX_FEE;
  return {
    productName: PRODUCT_NAME,
    deprecatedRpc: (name) => deprecated.has(name),
    warnings: () => [],
    peerCount: () => 0,
    shuttingDown,
    blockMinTxFee,
  };
}
