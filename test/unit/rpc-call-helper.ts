/** Runs RPC methods through the real dispatcher (argument mapping, type checks, help) without a node. */
import { RpcRegistry, RpcServer, writeJson, type RpcMethod, type RpcParams } from '../../src/rpc/index.js';

export interface Caller {
  readonly registry: RpcRegistry;
  /** The result as a client sees it (JSON text parsed back), or throws the RPC error object. */
  result(method: string, params?: RpcParams, wallet?: string): Promise<any>;
  /** The error object of a call that must fail. */
  error(method: string, params?: RpcParams, wallet?: string): Promise<{ code: number; message: string }>;
  /** The result's exact JSON text, as a reply carries it. */
  text(method: string, params?: RpcParams): Promise<string>;
}

export function caller(...methods: RpcMethod[]): Caller {
  const registry = new RpcRegistry();
  registry.register(...methods);
  const server = new RpcServer(registry);
  server.setWarmupFinished();
  const run = (method: string, params: RpcParams = [], wallet?: string) => server.execute({ method, params, user: 'test', wallet });
  return {
    registry,
    async result(method, params, wallet) {
      const outcome = await run(method, params, wallet);
      if ('error' in outcome) throw new Error(`${method}: ${outcome.error.code} ${outcome.error.message}`);
      return JSON.parse(writeJson(outcome.result));
    },
    async error(method, params, wallet) {
      const outcome = await run(method, params, wallet);
      if (!('error' in outcome)) throw new Error(`${method} succeeded: ${writeJson(outcome.result)}`);
      return outcome.error;
    },
    async text(method, params) {
      const outcome = await run(method, params);
      if ('error' in outcome) throw new Error(`${method}: ${outcome.error.code} ${outcome.error.message}`);
      return writeJson(outcome.result);
    },
  };
}
