/**
 * Executes calls against the registry the way CRPCTable::execute does: warm-up first
 * (-28 with the current init message, even for unknown methods), then method lookup
 * (-32601), argument mapping and checks, then the handler. Tracks running commands for
 * getrpcinfo.
 */
import { RpcArgs } from './args.js';
import type { RpcArgSpec } from './spec.js';
import { RPC_IN_WARMUP, RPC_METHOD_NOT_FOUND, RPC_MISC_ERROR, RpcError, toRpcErrorObject, type RpcErrorObject } from './errors.js';
import type { SnapshotChainView } from '../chain/index.js';
import { prepareArgs, type RpcParams } from './params.js';
import type { RpcRegistry } from './registry.js';

export interface RpcCall {
  readonly method: string;
  readonly params: RpcParams;
  readonly user: string;
  readonly wallet: string | undefined;
  /**
   * Params (positions, or names when passed by name) holding an integral number the
   * request spelled with a fraction or exponent (1.0, 1e3): integer arguments refuse them.
   */
  readonly spelled?: readonly (number | string)[];
}

export type RpcOutcome = { readonly result: unknown } | { readonly error: RpcErrorObject };

interface ActiveCommand {
  readonly method: string;
  /** performance.now() at the start, in milliseconds. */
  readonly startMs: number;
}

/** Where snapshot-reading methods get their view of the chain. */
export interface SnapshotSource {
  withSnapshot<T>(fn: (view: SnapshotChainView) => T): T;
}

/** The argument positions of `spelled` (names resolved through the spec's names and aliases). */
function spelledPositions(specs: readonly RpcArgSpec[], spelled: readonly (number | string)[] | undefined): ReadonlySet<number> | undefined {
  if (!spelled || spelled.length === 0) return undefined;
  const positions = new Set<number>();
  for (const p of spelled) {
    if (typeof p === 'number') positions.add(p);
    else {
      const i = specs.findIndex((s) => s.name.split('|').includes(p));
      if (i >= 0) positions.add(i);
    }
  }
  return positions;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

// A handler's result is JSON-encoded by the front-end: undefined would vanish.
const succeeded = (result: unknown): RpcOutcome => ({ result: result === undefined ? null : result });
const failed = (err: unknown): RpcOutcome => ({ error: toRpcErrorObject(err) });

export class RpcServer {
  /** Current init message while warming up; undefined once start-up is done. */
  private warmup: string | undefined = 'RPC server started';
  private readonly active = new Set<ActiveCommand>();
  private snapshots: SnapshotSource | undefined;

  /**
   * `tracksActiveCommands: false` for a server whose commands getrpcinfo cannot see (an
   * HTTP front-end's: getrpcinfo runs on the coordinator), so none pays for the tracking.
   */
  constructor(
    readonly registry: RpcRegistry,
    private readonly options: { readonly tracksActiveCommands: boolean } = { tracksActiveCommands: true },
  ) {}

  /** Set once the chainstate exists; snapshot-reading methods fail with -1 before that. */
  setSnapshotSource(source: SnapshotSource | undefined): void {
    this.snapshots = source;
  }

  get warmupStatus(): string | undefined {
    return this.warmup;
  }

  setWarmupStatus(message: string): void {
    if (this.warmup !== undefined) this.warmup = message;
  }

  setWarmupFinished(): void {
    this.warmup = undefined;
  }

  /**
   * Lists a command among this server's active commands from now until the returned
   * function is called: its own calls (dispatch) and those another process runs for it
   * (an HTTP front-end's long poll).
   */
  trackCommand(method: string): () => void {
    const entry: ActiveCommand = { method, startMs: performance.now() };
    this.active.add(entry);
    return () => this.active.delete(entry);
  }

  /** getrpcinfo's active_commands: method and running time in microseconds. */
  activeCommands(): { method: string; duration: number }[] {
    const now = performance.now();
    return [...this.active].map((c) => ({ method: c.method, duration: Math.floor((now - c.startMs) * 1000) }));
  }

  async execute(call: RpcCall): Promise<RpcOutcome> {
    return this.dispatch(call);
  }

  /**
   * Runs a call; the outcome is returned synchronously when the handler is synchronous
   * (every snapshot read), so a front-end answers those without a promise or a microtask
   * turn per request, and as a promise otherwise.
   */
  dispatch(call: RpcCall): RpcOutcome | Promise<RpcOutcome> {
    /** Unlists the call; set while this function still owns that duty. */
    let untrack: (() => void) | undefined;
    try {
      if (this.warmup !== undefined) throw new RpcError(RPC_IN_WARMUP, this.warmup);
      const method = this.registry.get(call.method);
      if (!method) throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found');
      if (this.options.tracksActiveCommands) untrack = this.trackCommand(call.method);
      const positional = prepareArgs(method.args, call.params, () => this.registry.fullHelp(method.name));
      const args = new RpcArgs(method.args, positional, spelledPositions(method.args, call.spelled));
      let result: unknown;
      if (method.readsSnapshot) {
        const source = this.snapshots;
        if (!source) throw new RpcError(RPC_MISC_ERROR, 'Chainstate not available');
        // The snapshot stays open until the handler's promise settles.
        result = source.withSnapshot((snapshot) => method.handler(args, { method: call.method, user: call.user, wallet: call.wallet, snapshot }));
      } else {
        result = method.handler(args, { method: call.method, user: call.user, wallet: call.wallet });
      }
      if (isPromiseLike(result)) {
        // The call is listed until its promise settles, not until this returns.
        const settled = Promise.resolve(result).then(succeeded, failed);
        const done = untrack;
        untrack = undefined;
        return done ? settled.finally(done) : settled;
      }
      return succeeded(result);
    } catch (err) {
      return failed(err);
    } finally {
      untrack?.();
    }
  }
}
