/** Amounts in configuration options (Core's ParseMoney). */
import { COIN, MAX_MONEY } from '../consensus/index.js';

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
