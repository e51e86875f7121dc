/**
 * The string primitives Core's descriptor and miniscript parsers are built from (script/parsing.cpp's
 * Const, Func and Expr, util's Split, IsHex and ToIntegral). Core works on spans that it
 * advances as it consumes text; a Cursor plays that part here, so the parser can be a
 * line-by-line port and reach the same error for the same input.
 */

/** A view of the text still to be parsed. */
export class Cursor {
  constructor(public text: string) {}

  get empty(): boolean {
    return this.text.length === 0;
  }
}

/** Core's Const: if the text starts with `str`, consume it (unless skip is false) and return true. */
export function constant(str: string, cursor: Cursor, skip = true): boolean {
  if (!cursor.text.startsWith(str)) return false;
  if (skip) cursor.text = cursor.text.slice(str.length);
  return true;
}

/** Core's Func: if the text is exactly `name(...)`, narrow the cursor to the inside and return true. */
export function func(name: string, cursor: Cursor): boolean {
  const text = cursor.text;
  if (text.length >= name.length + 2 && text[name.length] === '(' && text.endsWith(')') && text.startsWith(name)) {
    cursor.text = text.slice(name.length + 1, text.length - 1);
    return true;
  }
  return false;
}

/**
 * Core's Expr: the leading expression, up to the first ',', ')' or '}' not enclosed in
 * brackets; the cursor moves past it.
 */
export function expr(cursor: Cursor): string {
  const text = cursor.text;
  let level = 0;
  let i = 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '(' || c === '{') {
      level++;
    } else if (level > 0 && (c === ')' || c === '}')) {
      level--;
    } else if (level === 0 && (c === ')' || c === '}' || c === ',')) {
      break;
    }
  }
  cursor.text = text.slice(i);
  return text.slice(0, i);
}

/** Core's Split: pieces between any of the separator characters; always at least one piece. */
export function split(text: string, separators: string, includeSeparator = false): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (separators.includes(text[i]!)) {
      out.push(text.slice(start, includeSeparator ? i + 1 : i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** Core's IsHex: a non-empty, even-length string of hex digits in either case. */
export function isHexText(text: string): boolean {
  return text.length > 0 && text.length % 2 === 0 && /^[0-9a-fA-F]*$/.test(text);
}

/** Core's ToIntegral<uint32_t>: decimal digits only (no sign, no spaces), value below 2^32. */
export function parseUint32(text: string): number | null {
  if (!/^[0-9]+$/.test(text)) return null;
  const value = Number(text);
  return value <= 0xffffffff ? value : null;
}

/** Core's IsSpace: the C locale's whitespace characters. */
export function isSpaceChar(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\v' || c === '\f' || c === '\r';
}

/** Core's ToIntegral<int64_t>: an optional '-' then decimal digits, within the int64 range. */
export function parseInt64(text: string): number | null {
  if (!/^-?[0-9]+$/.test(text)) return null;
  const value = BigInt(text);
  if (value < -(2n ** 63n) || value >= 2n ** 63n) return null;
  return Number(value);
}
