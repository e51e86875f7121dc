/**
 * Sending one request as bitcoin-cli does (CallRPC, ConnectAndCallRPC): host and port
 * from -rpcconnect/-rpcport, credentials from the cookie or -rpcuser/-rpcpassword, the
 * /wallet/<name> endpoint for -rpcwallet, Core's texts for every way the exchange can
 * fail, and -rpcwait's retry of connection failures and warm-up answers.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Args } from '../node/args.js';
import { CliError } from './convert.js';
import { HttpTransportError, httpErrorString, type Transport } from './http-client.js';
import { DEFAULT_HTTP_CLIENT_TIMEOUT, DEFAULT_RPCCONNECT, DEFAULT_WAIT_CLIENT_TIMEOUT } from './options.js';
import { findValue, getInt, getObj, isNull, pushKV, readJson, uvNum, uvObj, uvStr, writeJson, type UniValue } from './univalue.js';

/** Core's RPC_IN_WARMUP. */
const RPC_IN_WARMUP = -28;
const HTTP_BAD_REQUEST = 400;
const HTTP_UNAUTHORIZED = 401;
const HTTP_NOT_FOUND = 404;
const HTTP_INTERNAL_SERVER_ERROR = 500;
const HTTP_SERVICE_UNAVAILABLE = 503;

/** CConnectionFailed: the failures -rpcwait retries. */
export class ConnectionFailed extends CliError {}

/** What a request needs from the client's setup and from the process. */
export interface RpcContext {
  readonly args: Args;
  /** The selected chain's default RPC port. */
  readonly defaultRpcPort: number;
  /** <datadir>/<network folder>: relative cookie paths are resolved against it. */
  readonly netDir: string;
  /** The configuration file's path, for the missing-credentials message. */
  readonly confFilePath: string;
  readonly transport: Transport;
  readonly sleep: (ms: number) => Promise<void>;
  readonly now: () => number;
  /** Warnings Core prints on stderr while sending (a port given twice). */
  readonly warn: (text: string) => void;
}

/** Turns command-line words into a request and the server's reply into what is printed. */
export interface RequestHandler {
  prepareRequest(method: string, args: readonly string[]): UniValue;
  processReply(reply: UniValue): UniValue;
}

/** JSONRPCRequestObj: bitcoin-cli sends JSON-RPC 2.0 requests. */
export function jsonRpcRequest(method: string, params: UniValue, id: number): UniValue {
  return uvObj([
    ['method', uvStr(method)],
    ['params', params],
    ['id', uvNum(id)],
    ['jsonrpc', uvStr('2.0')],
  ]);
}

/** JSONRPCReplyObj for a 2.0 reply made up on the client side. */
export function jsonRpcReply(result: UniValue, error: UniValue, id: number): UniValue {
  const reply = uvObj([['jsonrpc', uvStr('2.0')]]);
  if (isNull(error)) pushKV(reply, 'result', result);
  else pushKV(reply, 'error', error);
  pushKV(reply, 'id', uvNum(id));
  return reply;
}

/** ToIntegral<uint16_t>: plain decimal digits in 0..65535, else undefined. */
export function toUint16(s: string): number | undefined {
  if (!/^\d+$/.test(s)) return undefined;
  const n = Number(s);
  return n <= 0xffff ? n : undefined;
}

/**
 * SplitHostPort: a trailing `:port` is split off when the colon follows `[...]` or is the
 * only one; brackets around the host are removed. `valid` is false for a port that is not
 * a number in 1..65535.
 */
export function splitHostPort(input: string): { host: string; port: number; valid: boolean } {
  let rest = input;
  let port = 0;
  let valid = false;
  const colon = input.lastIndexOf(':');
  const haveColon = colon >= 0;
  const bracketed = haveColon && input[0] === '[' && input[colon - 1] === ']';
  const multiColon = haveColon && colon !== 0 && input.lastIndexOf(':', colon - 1) >= 0;
  if (haveColon && (colon === 0 || bracketed || !multiColon)) {
    const n = toUint16(input.slice(colon + 1));
    if (n !== undefined) {
      rest = input.slice(0, colon);
      port = n;
      valid = port !== 0;
    }
  } else {
    valid = true;
  }
  const host = rest.length > 0 && rest[0] === '[' && rest[rest.length - 1] === ']' ? rest.slice(1, -1) : rest;
  return { host, port, valid };
}

/** evhttp_uriencode without space-as-plus: everything but ALPHA DIGIT - . _ ~ as %XX of its UTF-8 bytes. */
export function uriEncode(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** RpcWalletName: -norpcwallet is no wallet, not a wallet called "0". */
export function rpcWalletName(args: Args): string | undefined {
  if (args.isArgNegated('rpcwallet')) return undefined;
  return args.getArg('rpcwallet');
}

/** The host and port to connect to, with Core's preference: -rpcport, then a port in -rpcconnect, then the chain's. */
export function rpcEndpoint(ctx: RpcContext): { host: string; port: number } {
  const connect = ctx.args.getArg('rpcconnect') ?? DEFAULT_RPCCONNECT;
  const split = splitHostPort(connect);
  if (!split.valid) throw new CliError(`Invalid port provided in -rpcconnect: ${connect}`);
  let port = split.port !== 0 ? split.port : ctx.defaultRpcPort;
  const portArg = ctx.args.getArg('rpcport');
  if (portArg !== undefined) {
    const n = toUint16(portArg) ?? 0;
    if (n === 0) throw new CliError(`Invalid port provided in -rpcport: ${portArg}`);
    port = n;
    if (split.port !== 0) ctx.warn(`Warning: Port specified in both -rpcconnect and -rpcport. Using -rpcport ${port}\n`);
  }
  return { host: split.host, port };
}

/**
 * GetAuthCookie: the first line of the cookie file, '' with -norpccookiefile, undefined
 * when the file cannot be read.
 */
function readAuthCookie(ctx: RpcContext): string | undefined {
  const file = ctx.args.getPathArg('rpccookiefile', '.cookie');
  if (file === undefined) return '';
  try {
    const text = fs.readFileSync(path.isAbsolute(file) ? file : path.join(ctx.netDir, file), 'utf8');
    const nl = text.indexOf('\n');
    return nl < 0 ? text : text.slice(0, nl);
  } catch {
    return undefined;
  }
}

/** CallRPC: one request and its reply, or Core's error for the way it failed. */
export async function callRpc(ctx: RpcContext, handler: RequestHandler, method: string, words: readonly string[], endpoint: string): Promise<UniValue> {
  const { host, port } = rpcEndpoint(ctx);
  const timeout = ctx.args.getIntArg('rpcclienttimeout', DEFAULT_HTTP_CLIENT_TIMEOUT);

  let credentials: string;
  let failedToGetAuthCookie = false;
  const password = ctx.args.getArg('rpcpassword') ?? '';
  if (password === '') {
    const cookie = readAuthCookie(ctx);
    failedToGetAuthCookie = cookie === undefined;
    credentials = cookie ?? '';
  } else {
    credentials = `${ctx.args.getArg('rpcuser') ?? ''}:${password}`;
  }

  const body = writeJson(handler.prepareRequest(method, words)) + '\n';
  let reply;
  try {
    reply = await ctx.transport({
      host,
      port,
      path: endpoint,
      headers: {
        Host: host,
        Connection: 'close',
        'Content-Type': 'application/json',
        Authorization: `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`,
      },
      body,
      timeoutMs: timeout > 0 ? timeout * 1000 : 0,
    });
  } catch (err) {
    if (!(err instanceof HttpTransportError)) throw err;
    const detail = err.code !== -1 ? ` (error code ${err.code} - "${httpErrorString(err.code)}")` : '';
    throw new ConnectionFailed(
      `Could not connect to the server ${host}:${port}${detail}\n\n` +
        'Make sure the bitcoind server is running and that you are connecting to the correct RPC port.\n' +
        'Use "bitcoin-cli -help" for more info.',
    );
  }

  if (reply.status === HTTP_UNAUTHORIZED) {
    if (failedToGetAuthCookie) {
      throw new CliError(
        'Could not locate RPC credentials. No authentication cookie could be found, and RPC password is not set.  ' +
          `See -rpcpassword and -stdinrpcpass.  Configuration file: (${ctx.confFilePath})`,
      );
    }
    throw new CliError('Authorization failed: Incorrect rpcuser or rpcpassword');
  }
  if (reply.status === HTTP_SERVICE_UNAVAILABLE) throw new CliError(`Server response: ${reply.body}`);
  if (reply.status >= 400 && reply.status !== HTTP_BAD_REQUEST && reply.status !== HTTP_NOT_FOUND && reply.status !== HTTP_INTERNAL_SERVER_ERROR) {
    throw new CliError(`server returned HTTP error ${reply.status}`);
  }
  if (reply.body === '') throw new CliError('no response from server');
  const parsed = readJson(reply.body);
  if (parsed === undefined) throw new CliError("couldn't parse reply from server");
  const result = handler.processReply(parsed);
  // UniValue::empty() is true for a scalar as for an empty container.
  if ((result.type !== 'obj' && result.type !== 'arr') || result.values.length === 0) {
    throw new CliError('expected reply to have result, error and id properties');
  }
  return result;
}

/**
 * CallIPC's choice for a client without IPC support: -ipcconnect=auto (the default) and
 * -noipcconnect use HTTP; asking for a socket is an error.
 */
function checkIpcConnect(args: Args): void {
  const ipc = args.getArg('ipcconnect') ?? 'auto';
  if (ipc === '0') return;
  if (args.isArgSet('rpcconnect') && !args.isArgNegated('rpcconnect')) {
    if (ipc === 'auto') return;
    throw new CliError('-rpcconnect and -ipcconnect options cannot both be enabled');
  }
  if (ipc !== 'auto') throw new CliError('bitcoin-cli was not built with IPC support');
}

/**
 * ConnectAndCallRPC: CallRPC through the wallet endpoint, retried every second under
 * -rpcwait while the connection fails or the server is warming up (until -rpcwaittimeout).
 */
export async function connectAndCallRpc(
  ctx: RpcContext,
  handler: RequestHandler,
  method: string,
  words: readonly string[],
  wallet?: string,
): Promise<UniValue> {
  const wait = ctx.args.getBoolArg('rpcwait', false);
  const timeout = ctx.args.getIntArg('rpcwaittimeout', DEFAULT_WAIT_CLIENT_TIMEOUT);
  const deadline = ctx.now() + timeout * 1000;
  const endpoint = wallet === undefined ? '/' : `/wallet/${uriEncode(wallet)}`;
  for (;;) {
    try {
      checkIpcConnect(ctx.args);
      const response = await callRpc(ctx, handler, method, words, endpoint);
      if (wait) {
        const error = findValue(response, 'error');
        if (!isNull(error) && getInt(findValue(error, 'code')) === RPC_IN_WARMUP) throw new ConnectionFailed('server in warmup');
      }
      return response;
    } catch (err) {
      if (!(err instanceof ConnectionFailed)) throw err;
      if (wait && (timeout <= 0 || ctx.now() < deadline)) {
        await ctx.sleep(1000);
        continue;
      }
      throw new ConnectionFailed(`timeout on transient error: ${err.message}`);
    }
  }
}

/** DefaultRequestHandler: the method and its converted arguments; the reply as it came. */
export class DefaultRequestHandler implements RequestHandler {
  constructor(private readonly convert: (method: string, words: readonly string[]) => UniValue) {}

  prepareRequest(method: string, words: readonly string[]): UniValue {
    return jsonRpcRequest(method, this.convert(method, words), 1);
  }

  processReply(reply: UniValue): UniValue {
    return getObj(reply);
  }
}
