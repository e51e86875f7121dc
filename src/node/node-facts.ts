/**
 * The node-level facts the mining RPCs read (rpc/node-facts.ts), from the configuration
 * and the running node: product name, -deprecatedrpc, -blockmintxfee, shutdown state.
 * There is no P2P layer and no warning source yet: no peers, no warnings.
 */
import { DEFAULT_BLOCK_MIN_TX_FEE, type NodeFacts } from '../rpc/index.js';
import type { NodeConfig } from './config.js';
import { PRODUCT_NAME } from './coordinator.js';

const COIN = 100_000_000n;
const MAX_MONEY = 21_000_000n * COIN;

/**
 * Core's ParseMoney: optional whitespace around digits with at most 10 whole and 8
 * fractional digits, within MAX_MONEY; undefined when the text is not an amount.
 */
export function parseMoney(text: string): bigint | undefined {
  const trimmed = text.replace(/^[ \f\n\r\t\v]+|[ \f\n\r\t\v]+$/g, '');
  const m = /^(\d{0,10})(?:\.(\d{0,8}))?$/.exec(trimmed);
  if (trimmed === '' || !m) return undefined;
  const value = BigInt(m[1] || '0') * COIN + BigInt((m[2] ?? '').padEnd(8, '0') || '0');
  return value <= MAX_MONEY ? value : undefined;
}

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
