/**
 * How an RPC method describes itself: arguments and results in the vocabulary of Core's
 * RPCHelpMan (RPCArg / RPCResult types), so that named-parameter mapping, type errors and
 * `help` text all come from one description, as in Core.
 */
import type { Json } from './json.js';
import type { RpcArgs } from './args.js';
import type { SnapshotChainView } from '../chain/index.js';

/**
 * Argument types (RPCArg::Type): `str` and `hex` expect a JSON string, `num` a number,
 * `bool` a boolean, `obj` / `obj_named` / `obj_user_keys` an object, `arr` an array;
 * `amount` (number or string) and `range` (number or array) are not type-checked.
 */
export type RpcArgType = 'str' | 'hex' | 'num' | 'amount' | 'range' | 'bool' | 'obj' | 'obj_named' | 'obj_user_keys' | 'arr';

export interface RpcArgSpec {
  /** `name`, or aliases `first|second` (the first is the one help prints). */
  readonly name: string;
  readonly type: RpcArgType;
  readonly description: string;
  /** Optional without a default (RPCArg::Optional::OMITTED). */
  readonly optional?: boolean;
  /** Default value (RPCArg::Default); help prints it as JSON. Implies optional. */
  readonly default?: Json;
  /** Default described in words (RPCArg::DefaultHint); help prints it as is. Implies optional. */
  readonly defaultHint?: string;
  /** Members of an object, or the element of an array. */
  readonly inner?: readonly RpcArgSpec[];
  /** Hidden arguments, and every argument after one, are left out of help. */
  readonly hidden?: boolean;
  /** Arguments whose type the handler checks itself (Core: skip_type_check). */
  readonly skipTypeCheck?: boolean;
  /** Replaces the generated form in the one-line synopsis. */
  readonly onelineDescription?: string;
  /** [name in a nested listing, type in the description] (Core: type_str). */
  readonly typeStr?: readonly [string, string];
}

/** Result types (RPCResult::Type). */
export type RpcResultType =
  | 'obj'
  | 'obj_dyn'
  | 'arr'
  | 'arr_fixed'
  | 'str'
  | 'str_hex'
  | 'str_amount'
  | 'num'
  | 'num_time'
  | 'bool'
  | 'none'
  | 'any'
  | 'elision';

export interface RpcResultSpec {
  readonly type: RpcResultType;
  /** Key inside an object (empty at the top level and inside arrays). */
  readonly key?: string;
  readonly description?: string;
  readonly optional?: boolean;
  readonly inner?: readonly RpcResultSpec[];
  /** Condition under which this shape is returned: prints "Result (cond):". */
  readonly cond?: string;
}

/** Per-call facts a handler may need besides its arguments. */
export interface RpcCallContext {
  readonly method: string;
  /** The authenticated user (`__cookie__` for cookie logins). */
  readonly user: string;
  /** Wallet name from a `/wallet/<name>` URI, undefined for `/`. */
  readonly wallet: string | undefined;
  /** For methods that read the chain: one consistent snapshot for the whole call. */
  readonly snapshot?: SnapshotChainView;
}

export type RpcHandler = (args: RpcArgs, ctx: RpcCallContext) => unknown;

export interface RpcMethod {
  readonly name: string;
  /** Help group: blockchain, control, mining, network, rawtransactions, util, wallet, ... or `hidden`. */
  readonly category: string;
  readonly description: string;
  readonly args: readonly RpcArgSpec[];
  readonly results: readonly RpcResultSpec[];
  /** Example lines, built with helpExampleCli / helpExampleRpc. */
  readonly examples: string;
  readonly handler: RpcHandler;
  /**
   * The handler only reads the chain, from ctx.snapshot: HTTP front-end processes run it
   * themselves against their own LMDB snapshot instead of forwarding it.
   */
  readonly readsSnapshot?: boolean;
}

export function isOptionalArg(arg: RpcArgSpec): boolean {
  return arg.optional === true || arg.default !== undefined || arg.defaultHint !== undefined;
}

export function firstArgName(arg: RpcArgSpec): string {
  const bar = arg.name.indexOf('|');
  return bar < 0 ? arg.name : arg.name.slice(0, bar);
}

/** "> bitcoin-cli method args\n", Core's HelpExampleCli. */
export function helpExampleCli(method: string, args: string): string {
  return `> bitcoin-cli ${method} ${args}\n`;
}

/** The curl example line, Core's HelpExampleRpc. */
export function helpExampleRpc(method: string, args: string): string {
  return (
    `> curl --user myusername --data-binary '{"jsonrpc": "2.0", "id": "curltest", "method": "${method}", ` +
    `"params": [${args}]}' -H 'content-type: application/json' http://127.0.0.1:8332/\n`
  );
}
