/**
 * JSON values as Core's UniValue holds them, for a client that must print exactly what
 * bitcoin-cli prints: numbers keep the text they were read with (an amount stays
 * `0.00001000`, an exponent stays an exponent, no precision is lost), objects keep their
 * key order and duplicate keys, and reading is UniValue::read's strict grammar (any value
 * at the top, nothing after it, no leading zeros, no trailing commas, depth ≤ 512).
 * Writing is UniValue::write: compact, or pretty with Core's indentation and escapes.
 */

export type UniValue =
  | { readonly type: 'null' }
  | { readonly type: 'bool'; readonly value: boolean }
  /** `value` is the number's text, as read or as given. */
  | { readonly type: 'num'; readonly value: string }
  | { readonly type: 'str'; readonly value: string }
  | { readonly type: 'arr'; readonly values: UniValue[] }
  | { readonly type: 'obj'; readonly keys: string[]; readonly values: UniValue[] };

export type UniObject = Extract<UniValue, { type: 'obj' }>;
export type UniArray = Extract<UniValue, { type: 'arr' }>;

export const NULL: UniValue = Object.freeze({ type: 'null' });

/** The runtime errors UniValue's getters throw (printed by the client as `error: <text>`). */
export class UniValueTypeError extends Error {
  override readonly name = 'UniValueTypeError';
}

export function uvStr(value: string): UniValue {
  return { type: 'str', value };
}

export function uvNum(value: number | string): UniValue {
  return { type: 'num', value: String(value) };
}

export function uvBool(value: boolean): UniValue {
  return { type: 'bool', value };
}

export function uvArr(values: UniValue[] = []): UniArray {
  return { type: 'arr', values };
}

export function uvObj(entries: readonly (readonly [string, UniValue])[] = []): UniObject {
  return { type: 'obj', keys: entries.map(([k]) => k), values: entries.map(([, v]) => v) };
}

/** UniValue::pushKV: replaces the value of an existing key in place, else appends. */
export function pushKV(obj: UniObject, key: string, value: UniValue): void {
  const i = obj.keys.indexOf(key);
  if (i >= 0) obj.values[i] = value;
  else pushKVEnd(obj, key, value);
}

/** UniValue::pushKVEnd: appends, even when the key is already there. */
export function pushKVEnd(obj: UniObject, key: string, value: UniValue): void {
  obj.keys.push(key);
  obj.values.push(value);
}

/** UniValue::find_value / operator[](key): the first value under `key`, null when absent or not an object. */
export function findValue(v: UniValue, key: string): UniValue {
  if (v.type !== 'obj') return NULL;
  const i = v.keys.indexOf(key);
  return i < 0 ? NULL : v.values[i]!;
}

/** operator[](index): null when out of range or not a container. */
export function at(v: UniValue, index: number): UniValue {
  if (v.type !== 'obj' && v.type !== 'arr') return NULL;
  return v.values[index] ?? NULL;
}

export function isNull(v: UniValue): boolean {
  return v.type === 'null';
}

/** UniValue::getValStr: a string's text, a number's text, "1" for true; "" otherwise. */
export function getValStr(v: UniValue): string {
  if (v.type === 'str' || v.type === 'num') return v.value;
  if (v.type === 'bool') return v.value ? '1' : '';
  return '';
}

/** UniValue::getValues. */
export function getValues(v: UniValue): UniValue[] {
  if (v.type !== 'obj' && v.type !== 'arr') throw new UniValueTypeError('JSON value is not an object or array as expected');
  return v.values;
}

/** UniValue::getKeys. */
export function getKeys(v: UniValue): string[] {
  if (v.type !== 'obj') throw new UniValueTypeError('JSON value is not an object as expected');
  return v.keys;
}

/** UniValue::get_str. */
export function getStr(v: UniValue): string {
  if (v.type !== 'str') throw new UniValueTypeError('JSON value is not a string as expected');
  return v.value;
}

/** UniValue::get_bool. */
export function getBool(v: UniValue): boolean {
  if (v.type !== 'bool') throw new UniValueTypeError('JSON value is not a boolean as expected');
  return v.value;
}

/** UniValue::get_obj. */
export function getObj(v: UniValue): UniObject {
  if (v.type !== 'obj') throw new UniValueTypeError('JSON value is not an object as expected');
  return v;
}

/** UniValue::get_real (strtod of the number's text). */
export function getReal(v: UniValue): number {
  if (v.type !== 'num') throw new UniValueTypeError('JSON value is not a number as expected');
  return Number(v.value);
}

const INT_LIMITS = { int: [-(2 ** 31), 2 ** 31 - 1], int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] } as const;

/** UniValue::getInt<int> (or int64_t): a plain decimal integer in range. */
export function getInt(v: UniValue, width: keyof typeof INT_LIMITS = 'int'): number {
  if (v.type !== 'num') throw new UniValueTypeError('JSON value is not an integer as expected');
  const [min, max] = INT_LIMITS[width];
  if (!/^-?\d+$/.test(v.value)) throw new UniValueTypeError('JSON integer out of range');
  const n = Number(v.value);
  if (n < min || n > max) throw new UniValueTypeError('JSON integer out of range');
  return n;
}

// ---------------------------------------------------------------------------------------
// Reading (univalue_read.cpp)

/** Core's MAX_JSON_DEPTH. */
const MAX_JSON_DEPTH = 512;

class JsonSyntaxError extends Error {}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

class Reader {
  pos = 0;
  constructor(readonly text: string) {}

  fail(): never {
    throw new JsonSyntaxError();
  }

  skipSpace(): void {
    while (this.pos < this.text.length && isSpace(this.text.charCodeAt(this.pos))) this.pos++;
  }

  value(depth: number): UniValue {
    this.skipSpace();
    const c = this.text.charCodeAt(this.pos);
    if (c === 0x7b /* { */) return this.object(depth + 1);
    if (c === 0x5b /* [ */) return this.array(depth + 1);
    if (c === 0x22 /* " */) return { type: 'str', value: this.string() };
    if (c === 0x2d /* - */ || isDigit(c)) return { type: 'num', value: this.number() };
    for (const [word, v] of LITERALS) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return v;
      }
    }
    return this.fail();
  }

  object(depth: number): UniValue {
    if (depth > MAX_JSON_DEPTH) this.fail();
    this.pos++; // {
    const out = uvObj();
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) === 0x7d /* } */) {
      this.pos++;
      return out;
    }
    for (;;) {
      this.skipSpace();
      if (this.text.charCodeAt(this.pos) !== 0x22) this.fail();
      const key = this.string();
      this.skipSpace();
      if (this.text.charCodeAt(this.pos) !== 0x3a /* : */) this.fail();
      this.pos++;
      pushKVEnd(out, key, this.value(depth));
      this.skipSpace();
      const c = this.text.charCodeAt(this.pos++);
      if (c === 0x7d) return out;
      if (c !== 0x2c /* , */) this.fail();
    }
  }

  array(depth: number): UniValue {
    if (depth > MAX_JSON_DEPTH) this.fail();
    this.pos++; // [
    const out = uvArr();
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) === 0x5d /* ] */) {
      this.pos++;
      return out;
    }
    for (;;) {
      out.values.push(this.value(depth));
      this.skipSpace();
      const c = this.text.charCodeAt(this.pos++);
      if (c === 0x5d) return out;
      if (c !== 0x2c) this.fail();
    }
  }

  /** A number token: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?, kept as text. */
  number(): string {
    const t = this.text;
    const start = this.pos;
    if (t.charCodeAt(this.pos) === 0x2d) this.pos++;
    if (!isDigit(t.charCodeAt(this.pos))) this.fail();
    if (t.charCodeAt(this.pos) === 0x30 && isDigit(t.charCodeAt(this.pos + 1))) this.fail();
    while (isDigit(t.charCodeAt(this.pos))) this.pos++;
    if (t.charCodeAt(this.pos) === 0x2e /* . */) {
      this.pos++;
      if (!isDigit(t.charCodeAt(this.pos))) this.fail();
      while (isDigit(t.charCodeAt(this.pos))) this.pos++;
    }
    const e = t.charCodeAt(this.pos);
    if (e === 0x65 || e === 0x45) {
      this.pos++;
      const sign = t.charCodeAt(this.pos);
      if (sign === 0x2b || sign === 0x2d) this.pos++;
      if (!isDigit(t.charCodeAt(this.pos))) this.fail();
      while (isDigit(t.charCodeAt(this.pos))) this.pos++;
    }
    return t.slice(start, this.pos);
  }

  /** A string token; raw control characters, bad escapes and lone surrogates are errors. */
  string(): string {
    const t = this.text;
    this.pos++; // "
    let out = '';
    let pendingHigh = -1;
    const push = (s: string) => {
      if (pendingHigh >= 0) this.fail();
      out += s;
    };
    for (;;) {
      if (this.pos >= t.length) this.fail();
      const c = t.charCodeAt(this.pos);
      if (c < 0x20) this.fail();
      if (c === 0x22) {
        this.pos++;
        if (pendingHigh >= 0) this.fail();
        return out;
      }
      if (c !== 0x5c /* \ */) {
        // A lone surrogate code unit in the input is not valid UTF-8 either.
        if (c >= 0xd800 && c <= 0xdbff) {
          const d = t.charCodeAt(this.pos + 1);
          if (!(d >= 0xdc00 && d <= 0xdfff)) this.fail();
          push(t.slice(this.pos, this.pos + 2));
          this.pos += 2;
          continue;
        }
        if (c >= 0xdc00 && c <= 0xdfff) this.fail();
        push(t[this.pos]!);
        this.pos++;
        continue;
      }
      const esc = t[this.pos + 1];
      this.pos += 2;
      const simple = ESCAPES_IN[esc ?? ''];
      if (simple !== undefined) {
        push(simple);
        continue;
      }
      if (esc !== 'u') this.fail();
      const hex = t.slice(this.pos, this.pos + 4);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail();
      this.pos += 4;
      const cp = parseInt(hex, 16);
      if (cp >= 0xd800 && cp <= 0xdbff) {
        if (pendingHigh >= 0) this.fail();
        pendingHigh = cp;
      } else if (cp >= 0xdc00 && cp <= 0xdfff) {
        if (pendingHigh < 0) this.fail();
        out += String.fromCharCode(pendingHigh, cp);
        pendingHigh = -1;
      } else {
        push(String.fromCharCode(cp));
      }
    }
  }
}

const LITERALS: readonly (readonly [string, UniValue])[] = [
  ['null', NULL],
  ['true', uvBool(true)],
  ['false', uvBool(false)],
];

const ESCAPES_IN: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/** UniValue::read: the value, or undefined when the text is not exactly one JSON value. */
export function readJson(text: string): UniValue | undefined {
  const r = new Reader(text);
  try {
    const v = r.value(0);
    r.skipSpace();
    if (r.pos !== text.length) return undefined;
    return v;
  } catch (err) {
    if (err instanceof JsonSyntaxError) return undefined;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------
// Writing (univalue_write.cpp, univalue_escapes.h)

/** json_escape: the short escapes, \u00XX (lower-case hex) for other controls and DEL; all else raw. */
export function jsonEscape(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c && c !== 0x7f) {
      out += s[i];
      continue;
    }
    out += ESCAPES_OUT[c] ?? `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return out;
}

const ESCAPES_OUT: Readonly<Record<number, string>> = { 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r', 0x22: '\\"', 0x5c: '\\\\' };

/**
 * UniValue::write(prettyIndent, indentLevel): compact with prettyIndent 0; otherwise one
 * member a line, `"key": value`, and an empty container still opened and closed on two lines.
 */
export function writeJson(v: UniValue, prettyIndent = 0, indentLevel = 0): string {
  const level = indentLevel === 0 ? 1 : indentLevel;
  switch (v.type) {
    case 'null':
      return 'null';
    case 'bool':
      return v.value ? 'true' : 'false';
    case 'num':
      return v.value;
    case 'str':
      return `"${jsonEscape(v.value)}"`;
    case 'arr':
    case 'obj': {
      const [open, close] = v.type === 'arr' ? ['[', ']'] : ['{', '}'];
      const nl = prettyIndent ? '\n' : '';
      let s = open + nl;
      v.values.forEach((item, i) => {
        if (prettyIndent) s += ' '.repeat(prettyIndent * level);
        if (v.type === 'obj') s += `"${jsonEscape(v.keys[i]!)}":${prettyIndent ? ' ' : ''}`;
        s += writeJson(item, prettyIndent, level + 1);
        if (i !== v.values.length - 1) s += ',';
        s += nl;
      });
      if (prettyIndent) s += ' '.repeat(prettyIndent * (level - 1));
      return s + close;
    }
  }
}
