/**
 * The default SelectionRng for the wallet's send path: node:crypto's CSPRNG. Core draws coin
 * selection's randomness from FastRandomContext, itself seeded from the strong RNG, because
 * shuffles and the change target are privacy features (they make the wallet's transactions
 * harder to fingerprint), so a predictable source would leak.
 */
import { randomFillSync } from 'node:crypto';
import { rngFromWords, type SelectionRng } from './rng.js';

/** Random words come from a refilled buffer: ApproximateBestSubset flips up to ~10^6 coins a call. */
const BUFFER_WORDS = 1024;

export function cryptoSelectionRng(): SelectionRng {
  const words = new Uint32Array(BUFFER_WORDS);
  let next = BUFFER_WORDS;
  const nextWord = (): number => {
    if (next === BUFFER_WORDS) {
      randomFillSync(words);
      next = 0;
    }
    return words[next++]!;
  };
  return rngFromWords(nextWord);
}

