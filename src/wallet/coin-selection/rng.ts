/**
 * The randomness coin selection draws on (Core's FastRandomContext as the solvers use it):
 * Knapsack's and SRD's shuffles, ApproximateBestSubset's coin flips, the random change target.
 * It is injected everywhere so that a caller (or a test) decides whether it is secure or
 * repeatable; nothing in coin selection reaches for a global source.
 */
export interface SelectionRng {
  /** A uniform integer in [0, n); n is a positive safe integer. FastRandomContext::randrange. */
  randrange(n: number): number;
  /** A fair coin. FastRandomContext::randbool. */
  randbool(): boolean;
  /** Shuffles in place, every order equally likely. std::shuffle with the context. */
  shuffle<T>(items: T[]): void;
}

/** Fisher-Yates over `randrange`: the shuffle every SelectionRng here uses. */
export function shuffleWith<T>(randrange: (n: number) => number, items: T[]): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = randrange(i + 1);
    const held = items[i]!;
    items[i] = items[j]!;
    items[j] = held;
  }
}

/** A uniform integer in [0, n) from a source of uniform 32-bit words, by rejection (no modulo bias). */
export function rangeFromWords(nextWord: () => number, n: number): number {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`randrange: ${n} is not a positive safe integer`);
  if (n <= 0x1_0000_0000) {
    // Largest multiple of n that fits in 2^32: words at or above it would bias the result.
    const limit = 0x1_0000_0000 - (0x1_0000_0000 % n);
    for (;;) {
      const word = nextWord();
      if (word < limit) return word % n;
    }
  }
  // Up to 2^53: two words give 53 uniform bits; reject above the largest multiple of n.
  const span = 2 ** 53;
  const limit = span - (span % n);
  for (;;) {
    const value = (nextWord() >>> 11) * 0x1_0000_0000 + nextWord();
    if (value < limit) return value % n;
  }
}

/**
 * A repeatable SelectionRng (sfc32 seeded through splitmix32): the same seed gives the same
 * draws, so selections can be replayed and tests are deterministic. Not for privacy: the
 * wallet's send path should use cryptoSelectionRng.
 */
export function seededSelectionRng(seed: number): SelectionRng {
  let s = seed >>> 0;
  const splitmix32 = (): number => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
  let a = splitmix32();
  let b = splitmix32();
  let c = splitmix32();
  let d = splitmix32();
  const nextWord = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  // Warm up as sfc32's authors advise, so nearby seeds diverge at once.
  for (let i = 0; i < 12; i++) nextWord();
  return rngFromWords(nextWord);
}

/** A SelectionRng over a source of 32-bit words; coin flips take one bit each from a buffered word, as FastRandomContext::randbits does. */
export function rngFromWords(nextWord: () => number): SelectionRng {
  let bits = 0;
  let bitsLeft = 0;
  const randrange = (n: number): number => rangeFromWords(nextWord, n);
  return {
    randrange,
    randbool(): boolean {
      if (bitsLeft === 0) {
        bits = nextWord();
        bitsLeft = 32;
      }
      const bit = bits & 1;
      bits >>>= 1;
      bitsLeft--;
      return bit === 1;
    },
    shuffle<T>(items: T[]): void {
      shuffleWith(randrange, items);
    },
  };
}
