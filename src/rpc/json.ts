/**
 * JSON values as JSON-RPC sees them, and Core's (UniValue's) type names, which appear
 * verbatim in type-error messages ("JSON value of type string is not of expected type
 * number").
 */
import { randomBytes } from 'node:crypto';

export type Json = null | boolean | number | string | Json[] | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}

export type JsonTypeName = 'null' | 'bool' | 'object' | 'array' | 'string' | 'number';

export function jsonTypeName(value: unknown): JsonTypeName {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number' || typeof value === 'bigint') return 'number';
  if (typeof value === 'string') return 'string';
  if (Array.isArray(value)) return 'array';
  return 'object';
}

/** UniValue::checkType's message, used wherever a value has the wrong JSON type. */
export function typeMismatchMessage(value: unknown, expected: JsonTypeName): string {
  return `JSON value of type ${jsonTypeName(value)} is not of expected type ${expected}`;
}

/**
 * UniValue::write(4): pretty JSON with 4-space indentation, the form Core puts inside
 * "Wrong type passed" messages. Empty containers print as `{}` / `[]`.
 */
export function writePretty(value: Json, indent = 4, level = 0): string {
  const pad = ' '.repeat(indent * (level + 1));
  const close = ' '.repeat(indent * level);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((v) => pad + writePretty(v, indent, level + 1)).join(',\n')}\n${close}]`;
  }
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 0) return '{}';
    const body = keys.map((k) => `${pad}${JSON.stringify(k)}: ${writePretty(value[k] as Json, indent, level + 1)}`);
    return `{\n${body.join(',\n')}\n${close}}`;
  }
  return JSON.stringify(value);
}

/**
 * A number written exactly as given (e.g. an amount "0.00010000", which a JS number
 * would print as 0.0001). Results may contain these anywhere.
 */
export class RawJsonNumber {
  constructor(readonly text: string) {
    if (!/^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/.test(text)) throw new Error(`not a JSON number: ${text}`);
  }

  /** What JSON.stringify writes for it: the marked text writeJson unwraps (see markRaw). */
  toJSON(): string {
    return markRaw(this.text);
  }
}

/**
 * A whole result already serialized as Core would write it (rendered once and kept, see
 * mempool-rendered.ts): writeJson passes it through. Only a handler's entire result may be
 * one; nested inside another value it refuses to be written rather than print wrongly.
 */
export class JsonText {
  constructor(readonly text: string) {}

  toJSON(): never {
    throw new Error('JsonText is only written as a whole result');
  }
}

/** 128 random bits drawn per process: no string a client or a block supplies carries them. */
const RAW_NONCE = randomBytes(16).toString('hex');

/**
 * Number text the native serializer cannot write as such (bigints, RawJsonNumbers) goes
 * through it as a string between NUL characters and the nonce, and is unwrapped after.
 */
function markRaw(text: string): string {
  return `\u0000${RAW_NONCE}:${text}\u0000`;
}

/** A marked string as JSON.stringify writes it (NUL as \u0000), quotes included. */
const RAW_WRITTEN_START = `"\\u0000${RAW_NONCE}:`;
const RAW_WRITTEN = new RegExp(`"\\\\u0000${RAW_NONCE}:([^"\\\\]*)\\\\u0000"`, 'g');

/** Bigints, which JSON.stringify refuses, as marked integers (RawJsonNumbers mark themselves). */
function bigintAware(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? markRaw(value.toString()) : value;
}

function stringify(value: unknown): string | undefined {
  try {
    // The common case, with no JS call per value.
    return JSON.stringify(value);
  } catch (err) {
    if (!(err instanceof TypeError)) throw err;
    // A bigint somewhere (or a cycle, which the second pass reports again).
    return JSON.stringify(value, bigintAware);
  }
}

/**
 * Compact JSON as Core writes it (UniValue::write()): RawJsonNumber printed as is,
 * bigint as an integer, undefined object members left out, key order kept, non-finite
 * numbers as null, and DEL written as \u007f (UniValue escapes it; JSON.stringify does
 * not). V8's native serializer does the walk: a JS walker building the string piece by
 * piece took a fifth of a 3 MB getblock verbosity 2.
 */
export function writeJson(value: unknown): string {
  if (value instanceof JsonText) return value.text;
  // A lone string (getblockhash's result, most ids) cannot hold the raw marker's nonce.
  if (typeof value === 'string') return escapeDel(JSON.stringify(value));
  let out = stringify(value) ?? 'null';
  if (out.includes(RAW_WRITTEN_START)) out = out.replace(RAW_WRITTEN, '$1');
  return escapeDel(out);
}

/** Strings JSON.stringify writes between quotes as they are (no escape, no DEL, no lone surrogate half). */
const PLAIN_STRING = /^[^"\\\u0000-\u001f\u007f\ud800-\udfff]*$/;

/** A string as writeJson writes it, for renderers that write JSON text directly. */
export function jsonString(text: string): string {
  return PLAIN_STRING.test(text) ? `"${text}"` : escapeDel(JSON.stringify(text));
}

/** DEL can only occur inside strings (keys included): escaping it everywhere is exact. */
function escapeDel(json: string): string {
  return json.includes('\x7f') ? json.replace(/\x7f/g, '\\u007f') : json;
}
