/** Money: satoshis per coin and the supply bound every amount must respect (Core's amount.h). */
export const COIN = 100_000_000n;
export const MAX_MONEY = 21_000_000n * COIN;

export function moneyRange(value: bigint): boolean {
  return value >= 0n && value <= MAX_MONEY;
}
