/**
 * -blockmaxweight and -blockreservedweight as Core v31 reads them: refused at start-up
 * above the consensus maximum (and the reserved weight below its safety minimum), then
 * held as size_t (a negative -blockmaxweight wraps, so the clamp makes it the maximum)
 * and the maximum clamped between the reserved weight and the consensus maximum
 * (BlockAssembler's ClampOptions).
 */
import { MAX_BLOCK_WEIGHT } from '../consensus/index.js';
import { DEFAULT_BLOCK_WEIGHT_LIMITS, type BlockWeightLimits } from '../mempool/index.js';
import type { Args } from './args.js';

/** Core's MINIMUM_BLOCK_RESERVED_WEIGHT. */
const MINIMUM_BLOCK_RESERVED_WEIGHT = 2000;

/** Core's AppInitParameterInteraction checks of the two options (the message, or undefined). */
export function blockWeightOptionsError(args: Args): string | undefined {
  const max = args.getIntArg('blockmaxweight');
  if (max !== undefined && max > MAX_BLOCK_WEIGHT) return `Specified -blockmaxweight (${max}) exceeds consensus maximum block weight (${MAX_BLOCK_WEIGHT})`;
  if (args.isArgSet('blockreservedweight')) {
    const reserved = args.getIntArg('blockreservedweight', DEFAULT_BLOCK_WEIGHT_LIMITS.reservedWeight);
    if (reserved > MAX_BLOCK_WEIGHT) return `Specified -blockreservedweight (${reserved}) exceeds consensus maximum block weight (${MAX_BLOCK_WEIGHT})`;
    if (reserved < MINIMUM_BLOCK_RESERVED_WEIGHT) return `Specified -blockreservedweight (${reserved}) is lower than minimum safety value of (${MINIMUM_BLOCK_RESERVED_WEIGHT})`;
  }
  return undefined;
}

export function blockWeightOptions(args: Args): BlockWeightLimits {
  const reservedWeight = args.getIntArg('blockreservedweight', DEFAULT_BLOCK_WEIGHT_LIMITS.reservedWeight);
  const asked = args.getIntArg('blockmaxweight', MAX_BLOCK_WEIGHT);
  // size_t: a negative value wraps to a huge one, which the clamp turns into the maximum.
  const maxWeight = asked < 0 ? MAX_BLOCK_WEIGHT : Math.min(Math.max(asked, reservedWeight), MAX_BLOCK_WEIGHT);
  return { maxWeight, reservedWeight };
}
