/** Money: satoshis per coin and the supply bound every amount must respect (Core's amount.h). */
export const COIN = 100_000_000n;
export const MAX_MONEY = 21_000_000n * COIN;

export function moneyRange(value: bigint): boolean {
  return value >= 0n && value <= MAX_MONEY;
}

/**
 * Core's FormatMoney: BTC with up to eight decimals, trailing zeros trimmed but at least
 * two kept ("1.00", "0.00000001", "-0.50"). Reject messages such as bad-txns-in-belowout
 * print amounts this way.
 */
export function formatMoney(value: bigint): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  let text = `${abs / COIN}.${(abs % COIN).toString().padStart(8, '0')}`;
  while (text.endsWith('0') && /[0-9]/.test(text[text.length - 3]!)) text = text.slice(0, -1);
  return negative ? '-' + text : text;
}
