/**
 * Command-line words to JSON-RPC params, as bitcoin-cli does without asking the server
 * (Core's RPCConvertValues / RPCConvertNamedValues): a word is parsed as JSON only where
 * the conversion table lists its position or name, everything else is sent as a string.
 */
import { paramAtPosition, paramNamed, type ConvertParam } from './convert-table.js';
import { pushKV, pushKVEnd, readJson, uvArr, uvObj, uvStr, type UniArray, type UniObject, type UniValue } from './univalue.js';

/** A failure Core raises as std::runtime_error: the client prints `error: <message>` and exits 1. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/** Parse(): JSON, or for 'json-or-string' the word itself when it is not JSON. */
function parseJsonWord(raw: string, param: ConvertParam): UniValue {
  const parsed = readJson(raw);
  if (parsed !== undefined) return parsed;
  if (param.format === 'json-or-string') return uvStr(raw);
  throw new CliError(`Error parsing JSON: ${raw}`);
}

/** ParseParam(): only 'json' and 'json-or-string' rows are parsed. */
function convertWord(param: ConvertParam | undefined, raw: string): UniValue {
  return param !== undefined && param.format !== 'string' ? parseJsonWord(raw, param) : uvStr(raw);
}

/** Positional arguments (without -named): an array. */
export function rpcConvertValues(method: string, words: readonly string[]): UniArray {
  const params = uvArr();
  for (const word of words) params.values.push(convertWord(paramAtPosition(method, params.values.length), word));
  return params;
}

/**
 * -named arguments: an object. A word without '=' is positional and goes, with the others,
 * into an `args` array appended last. NAME=VALUE is named, except when NAME is not a
 * parameter name of the table and the next positional slot is a JSON one the whole word
 * parses as (`["key=value"]`) or a string one (`my=wallet`): then the whole word is that
 * positional argument. A later NAME replaces an earlier one; an explicit `args=` next to
 * positional words is sent twice, for the server to refuse.
 */
export function rpcConvertNamedValues(method: string, words: readonly string[]): UniObject {
  const params = uvObj();
  const positional = uvArr();
  for (const word of words) {
    const eq = word.indexOf('=');
    if (eq < 0) {
      positional.values.push(convertWord(paramAtPosition(method, positional.values.length), word));
      continue;
    }
    const name = word.slice(0, eq);
    const value = word.slice(eq + 1);
    const named = paramNamed(method, name);
    if (named === undefined) {
      const next = paramAtPosition(method, positional.values.length);
      const whole = next?.format === 'json' ? readJson(word) : undefined;
      if (whole !== undefined) {
        positional.values.push(whole);
        continue;
      }
      if (next?.format === 'string') {
        positional.values.push(uvStr(word));
        continue;
      }
    }
    pushKV(params, name, convertWord(named, value));
  }
  if (positional.values.length > 0) pushKVEnd(params, 'args', positional);
  return params;
}
