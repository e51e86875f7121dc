/**
 * How Core's RPC helpers read JSON values inside handlers (rpc/util.cpp, univalue):
 * UniValue::getInt<T> ("JSON integer out of range"), getValStr, get_str/get_obj type
 * errors, ParseFixedPoint and AmountFromValue ("Amount is not a number or string",
 * "Invalid amount", "Amount out of range").
 */
import { MAX_MONEY } from '../consensus/index.js';
import { fromHex, isHex } from '../primitives/index.js';
import { RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RPC_TYPE_ERROR, RpcError } from './errors.js';
import { jsonTypeName, typeMismatchMessage, type Json, type JsonObject, type JsonTypeName } from './json.js';

/** UniValue::checkType: -3 "JSON value of type <got> is not of expected type <want>". */
export function checkJsonType(value: Json | undefined, want: JsonTypeName): void {
  const ok =
    want === 'string'
      ? typeof value === 'string'
      : want === 'number'
        ? typeof value === 'number'
        : want === 'bool'
          ? typeof value === 'boolean'
          : want === 'array'
            ? Array.isArray(value)
            : want === 'object'
              ? isJsonObject(value)
              : value === null || value === undefined;
  if (!ok) throw new RpcError(RPC_TYPE_ERROR, typeMismatchMessage(value ?? null, want));
}

export function isJsonObject(value: Json | undefined): value is JsonObject {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

/** UniValue::get_str. */
export function getStr(value: Json | undefined): string {
  checkJsonType(value, 'string');
  return value as string;
}

/** UniValue::get_bool. */
export function getBool(value: Json | undefined): boolean {
  checkJsonType(value, 'bool');
  return value as boolean;
}

/** UniValue::get_obj. */
export function getObj(value: Json | undefined): JsonObject {
  checkJsonType(value, 'object');
  return value as JsonObject;
}

/**
 * UniValue::getInt<T> for T's range [min, max]: a number whose text is an integer that
 * fits, else -1 "JSON integer out of range" (also for fractions, which from_chars stops at).
 */
export function getInt(value: Json | undefined, min: number, max: number): number {
  checkJsonType(value, 'number');
  const n = value as number;
  if (!Number.isInteger(n) || n < min || n > max) throw new RpcError(RPC_MISC_ERROR, 'JSON integer out of range');
  return n;
}

export const INT32_MIN = -0x80000000;
export const INT32_MAX = 0x7fffffff;
export const UINT32_MAX = 0xffffffff;
/** int64's range as doubles: -2^63, and the largest double below 2^63. */
export const INT64_MIN = -(2 ** 63);
export const INT64_MAX = 2 ** 63 - 1024;

/**
 * UniValue::getValStr: a string's text, a number's digits, "1" for true and "" for false,
 * null, objects and arrays. Numbers arrive here parsed, so their text is JavaScript's
 * shortest form (the same digits for every amount with at most 8 decimals).
 */
export function getValStr(value: Json | undefined): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value === true) return '1';
  return '';
}

const UPPER_BOUND = 10n ** 18n - 1n;
const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

/**
 * Core's ParseFixedPoint: a JSON-number-shaped decimal (optional sign, no leading zeros,
 * fraction, exponent) as an integer scaled by 10^decimals, or undefined when it is not
 * such text, needs more precision, or reaches 10^(18-decimals).
 */
export function parseFixedPoint(text: string, decimals: number): bigint | undefined {
  let mantissa = 0n;
  let exponent = 0n;
  let mantissaTrailingZeros = 0;
  let negative = false;
  let exponentNegative = false;
  let pointOffset = 0;
  let i = 0;
  const digit = (c: string): boolean => {
    if (c === '0') {
      mantissaTrailingZeros++;
      return true;
    }
    for (let k = 0; k <= mantissaTrailingZeros; k++) {
      if (mantissa > UPPER_BOUND / 10n) return false;
      mantissa *= 10n;
    }
    mantissa += BigInt(c.charCodeAt(0) - 48);
    mantissaTrailingZeros = 0;
    return true;
  };
  if (text[i] === '-') {
    negative = true;
    i++;
  }
  if (i >= text.length) return undefined;
  if (text[i] === '0') {
    i++;
  } else if (text[i]! >= '1' && text[i]! <= '9') {
    while (isDigit(text[i])) {
      if (!digit(text[i]!)) return undefined;
      i++;
    }
  } else {
    return undefined;
  }
  if (text[i] === '.') {
    i++;
    if (!isDigit(text[i])) return undefined;
    while (isDigit(text[i])) {
      if (!digit(text[i]!)) return undefined;
      i++;
      pointOffset++;
    }
  }
  if (text[i] === 'e' || text[i] === 'E') {
    i++;
    if (text[i] === '+') i++;
    else if (text[i] === '-') {
      exponentNegative = true;
      i++;
    }
    if (!isDigit(text[i])) return undefined;
    while (isDigit(text[i])) {
      if (exponent > UPPER_BOUND / 10n) return undefined;
      exponent = exponent * 10n + BigInt(text.charCodeAt(i) - 48);
      i++;
    }
  }
  if (i !== text.length) return undefined;
  if (exponentNegative) exponent = -exponent;
  exponent = exponent - BigInt(pointOffset) + BigInt(mantissaTrailingZeros) + BigInt(decimals);
  if (negative) mantissa = -mantissa;
  if (exponent < 0n || exponent >= 18n) return undefined;
  for (let k = 0n; k < exponent; k++) {
    if (mantissa > UPPER_BOUND / 10n || mantissa < -(UPPER_BOUND / 10n)) return undefined;
    mantissa *= 10n;
  }
  if (mantissa > UPPER_BOUND || mantissa < -UPPER_BOUND) return undefined;
  return mantissa;
}

/** Core's AmountFromValue: BTC as a number or string to satoshis, -3 on anything else. */
export function amountFromValue(value: Json | undefined, decimals = 8): bigint {
  if (typeof value !== 'number' && typeof value !== 'string') throw new RpcError(RPC_TYPE_ERROR, 'Amount is not a number or string');
  const amount = parseFixedPoint(getValStr(value), decimals);
  if (amount === undefined) throw new RpcError(RPC_TYPE_ERROR, 'Invalid amount');
  if (amount < 0n || amount > MAX_MONEY) throw new RpcError(RPC_TYPE_ERROR, 'Amount out of range');
  return amount;
}

/**
 * Core's ParseHexV: the text must be non-empty, even-length hex (IsHex), else
 * -8 "<name> must be hexadecimal string (not '<text>')". A non-string reads as "".
 */
export function parseHexV(value: Json | undefined, name: string): Uint8Array {
  const text = typeof value === 'string' ? value : '';
  if (text.length === 0 || !isHex(text)) throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${text}')`);
  return fromHex(text);
}

/**
 * Core's RPCTypeCheckObj: each expected key, in std::map (sorted) order, must be present
 * ("Missing <key>", unless nulls are allowed) with the expected type; with `strict`, any
 * other key is -3 "Unexpected key <key>".
 */
export function rpcTypeCheckObj(object: JsonObject, expected: Readonly<Record<string, JsonTypeName>>, allowNull: boolean, strict: boolean): void {
  for (const key of Object.keys(expected).sort()) {
    const value = Object.hasOwn(object, key) ? object[key] : null;
    if (!allowNull && value === null) throw new RpcError(RPC_TYPE_ERROR, `Missing ${key}`);
    const want = expected[key]!;
    if (value !== null && jsonTypeName(value) !== want) {
      throw new RpcError(RPC_TYPE_ERROR, `JSON value of type ${jsonTypeName(value)} for field ${key} is not of expected type ${want}`);
    }
  }
  if (!strict) return;
  for (const key of Object.keys(object)) if (!Object.hasOwn(expected, key)) throw new RpcError(RPC_TYPE_ERROR, `Unexpected key ${key}`);
}

/**
 * Core's ParseVerbosity: an integer (getInt<int>: within int32, written as an integer —
 * `spelled` says the request wrote it 1.0 or 1e3), or a boolean where allowed (true = 1).
 */
export function parseVerbosity(value: Json | undefined, fallback: number, allowBool: boolean, spelled = false): number {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') {
    if (!allowBool) throw new RpcError(RPC_TYPE_ERROR, 'Verbosity was boolean but only integer allowed');
    return value ? 1 : 0;
  }
  if (spelled && typeof value === 'number') throw new RpcError(RPC_MISC_ERROR, 'JSON integer out of range');
  return getInt(value, INT32_MIN, INT32_MAX);
}
