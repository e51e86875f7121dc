/**
 * A handler's view of its positional arguments, with the spec's defaults applied and
 * typed getters that fail the way UniValue's getters do (-3 with Core's type text).
 */
import { RPC_MISC_ERROR, RPC_TYPE_ERROR, RpcError } from './errors.js';
import { typeMismatchMessage, type Json, type JsonObject, type JsonTypeName } from './json.js';
import { firstArgName, type RpcArgSpec } from './spec.js';

export class RpcArgs {
  constructor(
    private readonly specs: readonly RpcArgSpec[],
    /** Positional values after named-parameter mapping (trailing omitted ones absent). */
    readonly raw: readonly Json[],
    /** Positions whose integral number was spelled 1.0 or 1e3: not an integer to Core. */
    private readonly spelled?: ReadonlySet<number>,
  ) {}

  private indexOf(name: string): number {
    const i = this.specs.findIndex((s) => s.name === name || s.name.split('|').includes(name));
    if (i < 0) throw new Error(`RPC argument ${name} is not declared`);
    return i;
  }

  /** Whether the number at this position was an integral one spelled 1.0 or 1e3. */
  spelledAt(position: number): boolean {
    return this.spelled?.has(position) === true;
  }

  /** True when the caller passed a non-null value. */
  has(name: string): boolean {
    const v = this.raw[this.indexOf(name)];
    return v !== undefined && v !== null;
  }

  /** The value passed, else the declared default, else undefined. */
  value(name: string): Json | undefined {
    const i = this.indexOf(name);
    const v = this.raw[i];
    if (v !== undefined && v !== null) return v;
    return this.specs[i]!.default;
  }

  private typed<T>(name: string, want: JsonTypeName, test: (v: Json) => boolean): T | undefined {
    const v = this.value(name);
    if (v === undefined) return undefined;
    if (!test(v)) throw new RpcError(RPC_TYPE_ERROR, typeMismatchMessage(v, want));
    return v as T;
  }

  private present<T>(name: string, v: T | undefined): T {
    // Required arguments are guaranteed by the count and type checks before a handler
    // runs; reaching here means the spec gives an optional argument no default.
    if (v === undefined) throw new Error(`RPC argument ${firstArgName(this.specs[this.indexOf(name)]!)} has no value`);
    return v;
  }

  optString(name: string): string | undefined {
    return this.typed<string>(name, 'string', (v) => typeof v === 'string');
  }
  string(name: string): string {
    return this.present(name, this.optString(name));
  }

  optNumber(name: string): number | undefined {
    return this.typed<number>(name, 'number', (v) => typeof v === 'number');
  }
  number(name: string): number {
    return this.present(name, this.optNumber(name));
  }

  /**
   * An integer within the safe range, written as one; Core says "JSON integer out of
   * range" otherwise (its getInt parses the number's text, so 1.0 and 1e3 fail too).
   */
  optInt(name: string): number | undefined {
    const n = this.optNumber(name);
    const spelled = n !== undefined && this.spelled?.has(this.indexOf(name)) === true;
    if (n !== undefined && (!Number.isSafeInteger(n) || spelled)) throw new RpcError(RPC_MISC_ERROR, 'JSON integer out of range');
    return n;
  }
  int(name: string): number {
    return this.present(name, this.optInt(name));
  }

  optBoolean(name: string): boolean | undefined {
    return this.typed<boolean>(name, 'bool', (v) => typeof v === 'boolean');
  }
  boolean(name: string): boolean {
    return this.present(name, this.optBoolean(name));
  }

  optArray(name: string): Json[] | undefined {
    return this.typed<Json[]>(name, 'array', (v) => Array.isArray(v));
  }
  array(name: string): Json[] {
    return this.present(name, this.optArray(name));
  }

  optObject(name: string): JsonObject | undefined {
    return this.typed<JsonObject>(name, 'object', (v) => v !== null && typeof v === 'object' && !Array.isArray(v));
  }
  object(name: string): JsonObject {
    return this.present(name, this.optObject(name));
  }
}
