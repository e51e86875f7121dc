/**
 * The wallet's spendable coins by output type (Core's CoinsResult, what AvailableCoins returns):
 * selection first tries to fund a transaction from one output type, so that inputs do not
 * reveal a mix of address types, and mixes them only when it must.
 */
import type { OutPoint } from '../../primitives/index.js';
import { outpointKey, type SelectableCoin } from './coin.js';
import type { SelectionRng } from './rng.js';

/** Core's OutputType, in enum order: std::map iterates types in this order, which breaks ties. */
export const COIN_OUTPUT_TYPES = ['legacy', 'p2sh-segwit', 'bech32', 'bech32m', 'unknown'] as const;
export type CoinOutputType = (typeof COIN_OUTPUT_TYPES)[number];

/** Map entries in Core's OutputType order. */
export function entriesByOutputType<T>(map: ReadonlyMap<CoinOutputType, T>): [CoinOutputType, T][] {
  const entries: [CoinOutputType, T][] = [];
  for (const type of COIN_OUTPUT_TYPES) {
    const value = map.get(type);
    if (value !== undefined) entries.push([type, value]);
  }
  return entries;
}

export class AvailableCoins {
  readonly #coins = new Map<CoinOutputType, SelectableCoin[]>();
  #totalAmount = 0n;
  #totalEffectiveAmount: bigint | undefined = 0n;

  /** CoinsResult::Add. */
  add(type: CoinOutputType, coin: SelectableCoin): void {
    let list = this.#coins.get(type);
    if (list === undefined) {
      list = [];
      this.#coins.set(type, list);
    }
    list.push(coin);
    this.#totalAmount += coin.value;
    if (coin.hasEffectiveValue()) {
      this.#totalEffectiveAmount = (this.#totalEffectiveAmount ?? 0n) + coin.effectiveValue;
    }
  }

  /** The coins of each type, types in Core's order. */
  byType(): [CoinOutputType, readonly SelectableCoin[]][] {
    return entriesByOutputType(this.#coins);
  }

  /** CoinsResult::All: every coin, types in order. */
  all(): SelectableCoin[] {
    return this.byType().flatMap(([, coins]) => coins);
  }

  /** CoinsResult::Size. */
  size(): number {
    let size = 0;
    for (const list of this.#coins.values()) size += list.length;
    return size;
  }

  /** GetTotalAmount: summed values. */
  get totalAmount(): bigint {
    return this.#totalAmount;
  }

  /** GetEffectiveTotalAmount: summed effective values of the coins that have one. */
  get totalEffectiveAmount(): bigint | undefined {
    return this.#totalEffectiveAmount;
  }

  /** CoinsResult::Erase: drops the given outpoints, keeping the totals in step. */
  erase(outpoints: Iterable<OutPoint>): void {
    const remove = new Set<string>();
    for (const outpoint of outpoints) remove.add(outpointKey(outpoint));
    for (const [type, list] of this.#coins) {
      const kept = list.filter((coin) => {
        if (!remove.has(outpointKey(coin.outpoint))) return true;
        this.#totalAmount -= coin.value;
        if (coin.hasEffectiveValue()) this.#totalEffectiveAmount = (this.#totalEffectiveAmount ?? 0n) - coin.effectiveValue;
        return false;
      });
      this.#coins.set(type, kept);
    }
  }

  /** CoinsResult::Shuffle: each type's coins in random order. */
  shuffle(rng: SelectionRng): void {
    for (const [, list] of entriesByOutputType(this.#coins)) rng.shuffle(list);
  }

  /**
   * CoinsResult::Clear. Core's Clear empties the coins but keeps the running totals; here they
   * are reset too, so a cleared set really is empty (the send path never clears one).
   */
  clear(): void {
    this.#coins.clear();
    this.#totalAmount = 0n;
    this.#totalEffectiveAmount = 0n;
  }
}
