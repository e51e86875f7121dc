/**
 * From the request's `params` to checked positional arguments, in CRPCTable::execute's
 * order: named → positional (transformNamedArguments), then the argument count (too few
 * or too many → -1 with the full help text), then each argument's JSON type (-3 "Wrong
 * type passed" listing every mismatch).
 */
import { RPC_INVALID_PARAMETER, RPC_MISC_ERROR, RPC_TYPE_ERROR, RpcError } from './errors.js';
import { jsonTypeName, writePretty, type Json, type JsonObject, type JsonTypeName } from './json.js';
import { isOptionalArg, type RpcArgSpec, type RpcArgType } from './spec.js';

/**
 * Named parameters as an ordered list of entries, not an object: a JSON object with a
 * repeated key must fail with "specified multiple times", which an object cannot show.
 */
export interface RpcNamedParams {
  readonly named: readonly (readonly [string, Json])[];
}
export type RpcParams = readonly Json[] | RpcNamedParams;

export function isNamedParams(params: RpcParams): params is RpcNamedParams {
  return !Array.isArray(params);
}

/** Core's GetArgNames: options of an `obj_named` argument may be passed flat, by name only. */
function argNames(specs: readonly RpcArgSpec[]): [string, boolean][] {
  const out: [string, boolean][] = [];
  for (const spec of specs) {
    if (spec.type === 'obj_named') for (const inner of spec.inner ?? []) out.push([inner.name, true]);
    out.push([spec.name, false]);
  }
  return out;
}

export function namedToPositional(specs: readonly RpcArgSpec[], params: RpcNamedParams): Json[] {
  const given = new Map<string, Json>();
  for (const [key, value] of params.named) {
    if (given.has(key)) throw new RpcError(RPC_INVALID_PARAMETER, `Parameter ${key} specified multiple times`);
    given.set(key, value);
  }
  let out: Json[] = [];
  let hole = 0;
  let initialHole = 0;
  let initialParam: string | undefined;
  let options: [string, Json][] = [];
  for (const [pattern, namedOnly] of argNames(specs)) {
    const found = pattern.split('|').find((n) => given.has(n));
    if (namedOnly) {
      if (found !== undefined) {
        if (options.some(([k]) => k === found)) throw new RpcError(RPC_INVALID_PARAMETER, `Parameter ${found} specified multiple times`);
        options.push([found, given.get(found)!]);
        given.delete(found);
      }
      continue;
    }
    if (options.length > 0 || found !== undefined) {
      // Gaps between given arguments become nulls; trailing gaps are not sent, because
      // some handlers act on the number of arguments.
      for (; hole > 0; hole--) out.push(null);
      initialParam ??= pattern;
    } else {
      hole += 1;
      if (out.length === 0) initialHole = hole;
    }
    if (found !== undefined) {
      if (options.length > 0) {
        throw new RpcError(RPC_INVALID_PARAMETER, `Parameter ${found} conflicts with parameter ${options[0]![0]}`);
      }
      out.push(given.get(found)!);
      given.delete(found);
    }
    if (options.length > 0) {
      out.push(Object.fromEntries(options) as JsonObject);
      options = [];
    }
  }
  // `args`: leading positional values, with the named ones after them.
  if (given.has('args')) {
    const positional = given.get('args');
    given.delete('args');
    if (Array.isArray(positional)) {
      if (initialHole < positional.length && initialParam !== undefined) {
        throw new RpcError(RPC_INVALID_PARAMETER, `Parameter ${initialParam} specified twice both as positional and named argument`);
      }
      out = [...positional, ...out.slice(positional.length)];
    }
  }
  const leftover = given.keys().next();
  if (!leftover.done) throw new RpcError(RPC_INVALID_PARAMETER, `Unknown named parameter ${leftover.value}`);
  return out;
}

/** Core's IsValidNumArgs: hidden arguments count too. */
export function isValidArgCount(specs: readonly RpcArgSpec[], count: number): boolean {
  let required = 0;
  for (let n = specs.length; n > 0; n--) {
    if (!isOptionalArg(specs[n - 1]!)) {
      required = n;
      break;
    }
  }
  return required <= count && count <= specs.length;
}

const EXPECTED: Record<RpcArgType, JsonTypeName | undefined> = {
  str: 'string',
  hex: 'string',
  num: 'number',
  amount: undefined,
  range: undefined,
  bool: 'bool',
  obj: 'object',
  obj_named: 'object',
  obj_user_keys: 'object',
  arr: 'array',
};

/** Throws -3 "Wrong type passed" naming every argument whose JSON type is wrong. */
export function checkArgTypes(specs: readonly RpcArgSpec[], args: readonly Json[]): void {
  const mismatches: JsonObject = {};
  let any = false;
  specs.forEach((spec, i) => {
    const value = args[i] ?? null;
    if (spec.skipTypeCheck || (isOptionalArg(spec) && value === null)) return;
    const want = EXPECTED[spec.type];
    if (want === undefined) return;
    const got = jsonTypeName(value);
    if (got !== want) {
      mismatches[`Position ${i + 1} (${spec.name})`] = `JSON value of type ${got} is not of expected type ${want}`;
      any = true;
    }
  });
  if (any) throw new RpcError(RPC_TYPE_ERROR, `Wrong type passed:\n${writePretty(mismatches)}`);
}

/** The whole check: positional arguments ready for the handler, or the error Core gives. */
export function prepareArgs(specs: readonly RpcArgSpec[], params: RpcParams, helpText: () => string): Json[] {
  const positional = isNamedParams(params) ? namedToPositional(specs, params) : [...params];
  if (!isValidArgCount(specs, positional.length)) throw new RpcError(RPC_MISC_ERROR, helpText());
  checkArgTypes(specs, positional);
  return positional;
}
