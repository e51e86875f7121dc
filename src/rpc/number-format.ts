/**
 * Doubles as UniValue writes them (a stream with precision 16, i.e. printf "%.16g"):
 * 16 significant digits, trailing zeros dropped, exponent form below 1e-4 and from
 * 1e16 on with at least two exponent digits. JavaScript's own number printing differs
 * (shortest round-trip digits, other exponent thresholds), so difficulty and hash rates
 * must go through here to print the digits Core prints.
 */
import { RawJsonNumber } from './json.js';

const PRECISION = 16;

/** printf("%.16g", value). */
export function formatDouble(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`cannot format ${value} as a JSON number`);
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const sign = value < 0 ? '-' : '';
  // toExponential rounds to PRECISION significant digits exactly as %e would.
  const [mantissa, exp] = Math.abs(value).toExponential(PRECISION - 1).split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exponent = Number(exp);
  if (exponent < -4 || exponent >= PRECISION) {
    const body = trimFraction(`${digits[0]}.${digits.slice(1)}`);
    const e = Math.abs(exponent).toString().padStart(2, '0');
    return `${sign}${body}e${exponent < 0 ? '-' : '+'}${e}`;
  }
  const fixed = exponent >= 0 ? `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}` : `0.${'0'.repeat(-exponent - 1)}${digits}`;
  return sign + trimFraction(fixed);
}

function trimFraction(text: string): string {
  if (!text.includes('.')) return text;
  return text.replace(/0+$/, '').replace(/\.$/, '');
}

/** A double result (difficulty, networkhashps) with Core's digits. */
export function doubleJson(value: number): RawJsonNumber {
  return new RawJsonNumber(formatDouble(value));
}
