/**
 * The JSON-RPC protocol on one HTTP body, as Core's HTTPReq_JSONRPC and JSONRPCRequest
 * do it: parse errors (500, -32700), request-object errors (-32600, 400), 1.0/1.1 vs 2.0
 * envelopes and statuses, notifications (2.0 without id → 204), batches (200, elements
 * in order, 204 when every element was a notification, `[]` for an empty batch),
 * whitelist checks, and Core's reuse of the previous element's id and version when a
 * batch element is not an object.
 */
import {
  RPC_INVALID_REQUEST,
  RPC_METHOD_NOT_FOUND,
  RPC_PARSE_ERROR,
  typeMismatchMessage,
  writeJson,
  type Json,
  type RpcErrorObject,
  type RpcParams,
} from '../rpc/index.js';
import type { Whitelist } from './auth.js';
import { mayHoldSpelledNumbers, objectEntries, parseJsonKeepingEntries, requestNumberSpellings } from './json-entries.js';
import { emptyReply, jsonReply, textPiecesReply, type Reply } from './reply.js';

/** A call's outcome: the result already serialized as JSON text, or an error. */
export type CallOutcome = { readonly result: string } | { readonly error: RpcErrorObject };

export interface JsonRpcContext {
  readonly user: string;
  readonly whitelist: Whitelist;
  /** Synchronous for calls answered from a snapshot; a promise for the rest. */
  /** `spelled`: params holding integral numbers written as 1.0 or 1e3 (see requestNumberSpellings). */
  execute(method: string, params: RpcParams, spelled?: readonly (number | string)[]): CallOutcome | Promise<CallOutcome>;
  log(message: string): void;
}

type Version = 'legacy' | 'v2';

/** The request being parsed; Core reuses one such object across a batch. */
interface RequestState {
  /** undefined = the request has no `id` key. */
  id: Json | undefined;
  version: Version;
}

class RequestError extends Error {
  constructor(readonly error: RpcErrorObject) {
    super(error.message);
  }
}

const invalid = (message: string) => new RequestError({ code: RPC_INVALID_REQUEST, message });

interface ParsedRequest {
  readonly method: string;
  readonly params: RpcParams;
}

function isObject(v: unknown): v is Record<string, Json> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Number ids as the body spelled them, by request object (see requestNumberSpellings). */
const numberIdText = new WeakMap<object, Json>();
/** Params holding integral numbers spelled 1.0 or 1e3, by request object (see requestNumberSpellings). */
const spelledParams = new WeakMap<object, readonly (number | string)[]>();

/** JSONRPCRequest::parse: updates `state` as far as it gets, then throws on the first problem. */
function parseRequest(value: Json, state: RequestState): ParsedRequest {
  if (!isObject(value)) throw invalid('Invalid Request object');
  state.id = Object.hasOwn(value, 'id') ? (numberIdText.get(value) ?? value['id']) : undefined;
  state.version = 'legacy';
  const jsonrpc = value['jsonrpc'];
  if (jsonrpc !== undefined && jsonrpc !== null) {
    if (typeof jsonrpc !== 'string') throw invalid('jsonrpc field must be a string');
    if (jsonrpc === '2.0') state.version = 'v2';
    else if (jsonrpc !== '1.0') throw invalid('JSON-RPC version not supported');
  }
  const method = value['method'];
  if (method === undefined || method === null) throw invalid('Missing method');
  if (typeof method !== 'string') throw invalid('Method must be a string');
  const params = value['params'];
  if (params === undefined || params === null) return { method, params: [] };
  if (Array.isArray(params)) return { method, params };
  if (isObject(params)) return { method, params: { named: objectEntries(params) } };
  throw invalid('Params must be an array or object');
}

function isNotification(state: RequestState): boolean {
  return state.id === undefined && state.version === 'v2';
}

/** JSONRPCReplyObj: key order and which keys appear depend on the version. */
function envelope(state: RequestState, outcome: CallOutcome): string {
  if ('result' in outcome) {
    const [head, tail] = resultEnvelope(state);
    return `${head}${outcome.result}${tail}`;
  }
  const legacy = state.version === 'legacy';
  const body = `${legacy ? '"result":null,' : ''}"error":${writeJson(outcome.error)}`;
  return legacy ? `{${body}${idMember(state)}}` : `{"jsonrpc":"2.0",${body}${idMember(state)}}`;
}

/** A result's envelope: the text before the result and the text after it. */
function resultEnvelope(state: RequestState): [string, string] {
  const legacy = state.version === 'legacy';
  return [legacy ? '{"result":' : '{"jsonrpc":"2.0","result":', `${legacy ? ',"error":null' : ''}${idMember(state)}}`];
}

const idMember = (state: RequestState): string => (state.id === undefined ? '' : `,"id":${writeJson(state.id)}`);

/** Status of a single failed legacy request (and of request-object errors in any version). */
function errorStatus(code: number): number {
  if (code === RPC_INVALID_REQUEST) return 400;
  if (code === RPC_METHOD_NOT_FOUND) return 404;
  return 500;
}

function errorReply(state: RequestState, error: RpcErrorObject): Reply {
  return jsonReply(errorStatus(error.code), envelope(state, { error }));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The whole body: any JSON-RPC outcome becomes a Reply; nothing is thrown. A single
 * request whose call completes synchronously is answered synchronously.
 */
export function handleJsonRpc(body: Uint8Array, ctx: JsonRpcContext): Reply | Promise<Reply> {
  const state: RequestState = { id: null, version: 'legacy' };
  let text: string;
  let value: Json;
  try {
    text = utf8.decode(body);
    value = JSON.parse(text) as Json;
  } catch {
    return errorReply(state, { code: RPC_PARSE_ERROR, message: 'Parse error' });
  }
  if (hasNamedParams(value) || hasObjectParams(value)) {
    try {
      value = parseJsonKeepingEntries(text);
    } catch {
      // JSON.parse accepted it; keep its (last-key-wins) reading.
    }
  }

  const requests = Array.isArray(value) ? value : [value];
  // One more parse, keeping number text, only for a body with a number spelled 1.0 / 1e3 or
  // an id JSON.parse did not keep exactly (beyond 2^53, or -0). Without a fraction or an
  // exponent in the body, a safe integer id was written as its canonical digits.
  if (mayHoldSpelledNumbers(text) || requests.some((r) => isObject(r) && typeof r['id'] === 'number' && !exactInteger(r['id']))) {
    const spellings = requestNumberSpellings(text);
    requests.forEach((r, i) => {
      const found = spellings[i];
      if (!isObject(r) || !found) return;
      if (found.id !== undefined) numberIdText.set(r, found.id as unknown as Json);
      if (found.spelledParams.length > 0) spelledParams.set(r, found.spelledParams);
    });
  }

  if (ctx.whitelist.deniedEverything(ctx.user)) {
    ctx.log(`RPC User ${ctx.user} not allowed to call any methods`);
    return emptyReply(403);
  }
  if (isObject(value)) return single(value, state, ctx);
  if (Array.isArray(value)) return batch(value, state, ctx);
  return errorReply(state, { code: RPC_PARSE_ERROR, message: 'Top-level object parse error' });
}

const exactInteger = (n: number): boolean => Number.isSafeInteger(n) && !Object.is(n, -0);

const holdsObject = (p: Json): boolean => isObject(p) || (Array.isArray(p) && p.some(isObject));
const positionalHoldObjects = (v: Json): boolean => isObject(v) && Array.isArray(v['params']) && v['params'].some(holdsObject);
const namedParams = (v: Json): boolean => isObject(v) && isObject(v['params']);

/** Positional params holding objects (createrawtransaction's outputs): their repeated keys matter too. */
function hasObjectParams(value: Json): boolean {
  return Array.isArray(value) ? value.some(positionalHoldObjects) : positionalHoldObjects(value);
}

function hasNamedParams(value: Json): boolean {
  return Array.isArray(value) ? value.some(namedParams) : namedParams(value);
}

function single(value: Json, state: RequestState, ctx: JsonRpcContext): Reply | Promise<Reply> {
  let req: ParsedRequest;
  try {
    req = parseRequest(value, state);
  } catch (err) {
    return errorReply(state, (err as RequestError).error);
  }
  if (!ctx.whitelist.allows(ctx.user, req.method)) {
    ctx.log(`RPC User ${ctx.user} not allowed to call method ${req.method}`);
    return emptyReply(403);
  }
  const outcome = ctx.execute(req.method, req.params, isObject(value) ? spelledParams.get(value) : undefined);
  if (outcome instanceof Promise) return outcome.then((settled) => singleReply(state, settled));
  return singleReply(state, outcome);
}

function singleReply(state: RequestState, outcome: CallOutcome): Reply {
  if (isNotification(state)) return emptyReply(204);
  // 2.0 reports method errors inside a 200 reply; legacy maps them to HTTP statuses.
  if ('error' in outcome && state.version === 'legacy') return errorReply(state, outcome.error);
  if ('error' in outcome) return jsonReply(200, envelope(state, outcome));
  // A large result (a block's hex or JSON) is not copied into a new string with its envelope.
  const [head, tail] = resultEnvelope(state);
  return textPiecesReply(200, 'application/json', [head, outcome.result, `${tail}\n`]);
}

async function batch(items: Json[], state: RequestState, ctx: JsonRpcContext): Promise<Reply> {
  if (ctx.whitelist.hasList(ctx.user)) {
    for (const item of items) {
      if (!isObject(item)) return errorReply(state, { code: RPC_INVALID_REQUEST, message: 'Invalid Request object' });
      const method = item['method'];
      if (typeof method !== 'string') {
        // Core reads the method with get_str(); its type error becomes a parse error.
        return errorReply(state, { code: RPC_PARSE_ERROR, message: typeMismatchMessage(method, 'string') });
      }
      if (!ctx.whitelist.allows(ctx.user, method)) {
        ctx.log(`RPC User ${ctx.user} not allowed to call method ${method}`);
        return emptyReply(403);
      }
    }
  }
  const replies: string[] = [];
  // One after another, as Core runs them: later elements may depend on earlier ones.
  for (const item of items) {
    let outcome: CallOutcome;
    try {
      const req = parseRequest(item, state);
      outcome = await ctx.execute(req.method, req.params, isObject(item) ? spelledParams.get(item) : undefined);
    } catch (err) {
      if (!(err instanceof RequestError)) throw err;
      outcome = { error: err.error };
    }
    if (!isNotification(state)) replies.push(envelope(state, outcome));
  }
  if (items.length > 0 && replies.length === 0) return emptyReply(204);
  return jsonReply(200, `[${replies.join(',')}]`);
}
