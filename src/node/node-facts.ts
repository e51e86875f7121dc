/**
 * The node-level facts the mining RPCs read (rpc/node-facts.ts), from the configuration
 * and the running node: product name, -deprecatedrpc, -blockmintxfee, shutdown state.
 * Peers are counted by the P2P service; there is no warning source yet.
 */
import { DEFAULT_BLOCK_MIN_TX_FEE, type NodeFacts } from '../rpc/index.js';
import type { NodeConfig } from './config.js';
import { PRODUCT_NAME } from './coordinator.js';
import { parseMoney } from './money.js';

export function nodeFacts(config: NodeConfig, shuttingDown: () => boolean, peerCount: () => number = () => 0): NodeFacts {
  const deprecated = new Set(config.args.getArgs('deprecatedrpc'));
  const minFeeArg = config.args.getArg('blockmintxfee');
  // An unparsable value is an init error in Core; until config checks it, the default applies.
  const blockMinTxFee = (minFeeArg === undefined ? undefined : parseMoney(minFeeArg)) ?? DEFAULT_BLOCK_MIN_TX_FEE;
  return {
    productName: PRODUCT_NAME,
    deprecatedRpc: (name) => deprecated.has(name),
    warnings: () => [],
    peerCount,
    shuttingDown,
    blockMinTxFee,
  };
}
