/**
 * The table of RPC methods. Every folder registers its methods here (one call per
 * method, or per list); `help` and dispatch read it. A name can be registered once.
 */
import { fullHelp, helpText } from './help.js';
import type { RpcMethod } from './spec.js';

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
