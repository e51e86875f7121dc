/**
 * The block subsidy and the coinbase's limit (Core's GetBlockSubsidy and the
 * "bad-cb-amount" check of ConnectBlock): new coins halve every
 * subsidyHalvingInterval blocks, which caps the supply below 21 million.
 */
import type { Transaction } from '../primitives/index.js';
import { COIN } from './amounts.js';
import type { ChainParams } from './params.js';
import { BLOCK_OK, blockFailure, type BlockCheck } from './validation-result.js';

/** Core's GetBlockSubsidy: 50 BTC shifted right once per halving; zero from the 64th halving, where C++'s shift is undefined. */
export function blockSubsidy(height: number, params: ChainParams): bigint {
  const halvings = Math.floor(height / params.subsidyHalvingInterval);
  if (halvings >= 64) return 0n;
  return (50n * COIN) >> BigInt(halvings);
}

/**
 * ConnectBlock's coinbase limit: the coinbase may claim at most the subsidy plus the
 * block's fees (it may claim less; the rest is destroyed).
 */
export function checkCoinbaseAmount(coinbase: Transaction, fees: bigint, height: number, params: ChainParams): BlockCheck {
  const reward = fees + blockSubsidy(height, params);
  let paid = 0n;
  for (const out of coinbase.outputs) paid += out.value;
  if (paid > reward) return blockFailure('consensus', 'bad-cb-amount', `coinbase pays too much (actual=${paid} vs limit=${reward})`);
  return BLOCK_OK;
}
