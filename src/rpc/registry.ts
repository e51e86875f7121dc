/**
 * The table of RPC methods. Every folder registers its methods here (one call per
 * method, or per list); `help` and dispatch read it. A name can be registered once.
 */
import { fullHelp, helpText } from './help.js';
import type { RpcArgSpec, RpcMethod } from './spec.js';

export class RpcRegistry {
  private readonly methods = new Map<string, RpcMethod>();

  register(...methods: readonly RpcMethod[]): void {
    for (const m of methods) {
      if (this.methods.has(m.name)) throw new Error(`RPC method ${m.name} is already registered`);
      this.methods.set(m.name, m);
    }
  }

  get(name: string): RpcMethod | undefined {
    return this.methods.get(name);
  }

  names(): string[] {
    return [...this.methods.keys()];
  }

  /** The `help` RPC's result for `command` ('' = the listing). */
  help(command: string): string {
    return helpText(this.methods.values(), command);
  }

  /**
   * Core's `help dump_all_command_conversions` (CRPCTable::dumpArgMap, for tests): every
   * method by name, hidden ones too, and for each argument name (aliases apart, the
   * members of a named-options object too) [method, position, name, whether it is a string].
   */
  argMap(): [string, number, string, boolean][] {
    const out: [string, number, string, boolean][] = [];
    const isString = (arg: RpcArgSpec) => arg.type === 'str' || arg.type === 'hex';
    for (const name of [...this.methods.keys()].sort()) {
      this.methods.get(name)!.args.forEach((arg, position) => {
        for (const alias of arg.name.split('|')) {
          out.push([name, position, alias, isString(arg)]);
          if (arg.type !== 'obj_named') continue;
          for (const inner of arg.inner ?? []) for (const innerAlias of inner.name.split('|')) out.push([name, position, innerAlias, isString(inner)]);
        }
      });
    }
    return out;
  }

  fullHelp(name: string): string {
    const m = this.methods.get(name);
    if (!m) throw new Error(`RPC method ${name} is not registered`);
    return fullHelp(m);
  }
}

/** Identity helper that gives a method literal its type where it is written. */
export function defineRpcMethod(method: RpcMethod): RpcMethod {
  return method;
}
