/**
 * JSON values as JSON-RPC sees them, and Core's (UniValue's) type names, which appear
 * verbatim in type-error messages ("JSON value of type string is not of expected type
 * number").
 */
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
}

/** UniValue's string escaping: JSON's, plus DEL written as \u007f. */
function writeString(s: string): string {
  const out = JSON.stringify(s);
  return out.includes('\x7f') ? out.replace(/\x7f/g, '\\u007f') : out;
}

/**
 * Compact JSON as Core writes it (UniValue::write()): RawJsonNumber printed as is,
 * bigint as an integer, undefined object members left out, key order kept.
 */
export function writeJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return writeString(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'object': {
      if (value instanceof RawJsonNumber) return value.text;
      if (Array.isArray(value)) return `[${value.map(writeJson).join(',')}]`;
      const parts: string[] = [];
      for (const [k, v] of Object.entries(value)) {
        if (v !== undefined) parts.push(`${writeString(k)}:${writeJson(v)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default:
      return 'null';
  }
}
