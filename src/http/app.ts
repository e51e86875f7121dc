/**
 * One front-end's HTTP handling on uWS, in Core's order: methods libevent does not
 * accept → 501 page; client not in -rpcallowip → 403; body over 32 MiB → 413; DELETE →
 * 405; then by path: `/` and `/wallet/<name>` → JSON-RPC (POST only → else 405 with
 * Core's text; missing credentials → 401 at once, wrong ones → 401 after 250 ms), /rest/
 * → the REST router when -rest is on, anything else → 404; a matched path over Core's
 * -rpcthreads + -rpcworkqueue bound (when given) → 503. Bodies are read whole first, as
 * libevent does. What libevent refuses before Core sees a request (malformed heads,
 * unknown methods, ...), HTTP/1.0, pipelining and the idle timeout are the wire layer's
 * (native/http_wire.c), under uWS: requests reach this code one at a time, as HTTP/1.1.
 */
import type { HttpRequest, HttpResponse, TemplatedApp } from '@trufflesuite/uws-js-unofficial';
import type { FrontendSettings } from '../ipc/index.js';
import type { RpcParams } from '../rpc/index.js';
import { Authenticator, Whitelist } from './auth.js';
import { handleJsonRpc, type CallOutcome, type JsonRpcContext } from './jsonrpc.js';
import { emptyReply, libeventErrorPage, sendReply, type Reply } from './reply.js';
import type { RestRouter } from './rest.js';
import type { PushHub } from './push-socket.js';
import { allowsEveryPeer, canonicalAddress, formatAddress, subnetMatches } from '../primitives/index.js';
import type { UwsModule } from './uws.js';
import { HTTP10_KEEP_ALIVE } from './wire.js';

/** libevent's limit on a request body (MAX_SIZE, 0x02000000 bytes). */
export const MAX_BODY_BYTES = 0x02000000;
/** Core sleeps this long before refusing a wrong password, to slow guessing. */
export const FAILED_LOGIN_DELAY_MS = 250;

const LIBEVENT_METHODS = new Set(['GET', 'POST', 'HEAD', 'PUT', 'DELETE']);
const WWW_AUTHENTICATE: readonly [string, string] = ['WWW-Authenticate', 'Basic realm="jsonrpc"'];
const KEEP_ALIVE: readonly [string, string] = ['Connection', 'keep-alive'];

export interface FrontendState {
  warmup: string | null;
  shuttingDown: boolean;
  /** Requests received and not yet answered (shutdown waits for them). */
  inflight: number;
}

/** Core's reply when its work queue is full. */
const WORK_QUEUE_FULL: Reply = { status: 503, body: 'Work queue depth exceeded' };

export interface AppDeps {
  readonly settings: FrontendSettings;
  readonly state: FrontendState;
  readonly rest: RestRouter;
  /** -websocket: the push hub serving /ws. */
  readonly push?: PushHub;
  /** The Esplora API under /api/ (-esplora): `path` is what follows "/api", without the query. */
  readonly esplora?: (method: string, path: string, body: Uint8Array) => Reply | Promise<Reply>;
  /** Synchronous for calls answered from this process's snapshot; a promise for the rest. */
  call(method: string, params: RpcParams, wallet: string | undefined, user: string, spelled?: readonly (number | string)[]): CallOutcome | Promise<CallOutcome>;
  log(level: 'debug' | 'info' | 'warning', category: string | null, msg: string): void;
  /** Whether -debug=<category> is on, so per-request debug lines are only built when logged. */
  logsDebug(category: string): boolean;
}

/** Core's UrlDecode: %XX escapes only ('+' stays '+'); malformed escapes are kept as text. */
export function urlDecode(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '%' && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

interface Incoming {
  readonly method: string;
  readonly uri: string;
  /** undefined when the request has no Authorization header. */
  readonly authorization: string | undefined;
  readonly wantsClose: boolean;
  /** An HTTP/1.0 client that asked for keep-alive: libevent says it keeps the connection. */
  readonly keepAlive10: boolean;
  /**
   * The client's address bytes (IPv4-mapped IPv6 folded to IPv4), read on first use: only
   * while the request's callbacks run (uWS discards the response object after them).
   */
  readonly peer: () => ArrayLike<number>;
}

function readAuthorization(req: HttpRequest): string | undefined {
  const value = req.getHeader('authorization');
  if (value !== '') return value;
  // An empty header still counts as present (→ a failed login, not a missing one).
  let present = false;
  req.forEach((key) => {
    if (key === 'authorization') present = true;
  });
  return present ? '' : undefined;
}

/**
 * libevent's error pages always say `Connection: close`; uWS writes it only when the client
 * did not ask for close itself, so then it is echoed (the wire layer asks for close on behalf
 * of an HTTP/1.0 client without keep-alive).
 */
const asksClose = (request: HttpRequest): boolean => request.getHeader('connection').toLowerCase() === 'close';

export function createApp(uws: UwsModule, deps: AppDeps): TemplatedApp {
  const { settings, state } = deps;
  const auth = new Authenticator(settings.credentials);
  const whitelist = new Whitelist(settings);
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

  async function refuseLogin(req: Incoming): Promise<Reply> {
    deps.log('warning', null, `ThreadRPCServer incorrect password attempt from ${formatAddress(req.peer())}`);
    await sleep(FAILED_LOGIN_DELAY_MS);
    return emptyReply(401, false, [WWW_AUTHENTICATE]);
  }

  /** Synchronous unless the call or a refused login has to wait. */
  function jsonRpc(req: Incoming, body: Uint8Array): Reply | Promise<Reply> {
    if (req.method !== 'POST') return { status: 405, body: 'JSONRPC server handles only POST requests' };
    if (req.authorization === undefined) return emptyReply(401, false, [WWW_AUTHENTICATE]);
    const user = auth.authenticate(req.authorization);
    if (user === undefined) return refuseLogin(req);
    if (!req.uri.startsWith('/wallet/')) return handleJsonRpc(body, contextFor(user));
    const wallet = urlDecode(req.uri.slice('/wallet/'.length));
    return handleJsonRpc(body, newContext(user, wallet));
  }

  const logInfo = (msg: string): void => deps.log('info', null, msg);
  const newContext = (user: string, wallet: string | undefined): JsonRpcContext => ({
    user,
    whitelist,
    execute: (method, params, spelled) => deps.call(method, params, wallet, user, spelled),
    log: logInfo,
  });
  /** Calls on `/` need no per-request context: one per user, made on first use. */
  const contexts = new Map<string, JsonRpcContext>();
  const contextFor = (user: string): JsonRpcContext => {
    let ctx = contexts.get(user);
    if (ctx === undefined) contexts.set(user, (ctx = newContext(user, undefined)));
    return ctx;
  };

  /** Handled requests still running (long polls, calls the coordinator answers): Core's busy workers and queue. */
  let running = 0;
  const bound = settings.requestBound;
  /** Runs a handler, counting it while it runs when Core's bound applies. */
  function run(handler: () => Reply | Promise<Reply>): Reply | Promise<Reply> {
    if (bound === null) return handler();
    if (running >= bound) return WORK_QUEUE_FULL;
    const reply = handler();
    if (!(reply instanceof Promise)) return reply;
    running++;
    return reply.finally(() => running--);
  }

  /** `body` may be uWS's memory, valid only until this returns: keep a copy to use it later. */
  function route(req: Incoming, body: Uint8Array): Reply | Promise<Reply> {
    if (deps.logsDebug('http')) deps.log('debug', 'http', `Received a ${req.method} request for ${req.uri} from ${formatAddress(req.peer())}`);
    // DELETE is known to libevent but not to Core.
    if (req.method === 'DELETE') return emptyReply(405);
    // Core queues a request once a handler matched its path, and refuses it (503) when full.
    if (req.uri === '/' || req.uri.startsWith('/wallet/')) return run(() => jsonRpc(req, body));
    if (settings.rest && req.uri.startsWith('/rest/')) {
      const found = deps.rest.match(req.uri);
      if (found) return run(() => found.handler({ method: req.method, rest: found.rest, uri: req.uri, warmup: state.warmup, body: new Uint8Array(body) }));
    }
    const esplora = deps.esplora;
    if (esplora && (req.uri === '/api' || req.uri.startsWith('/api/') || req.uri.startsWith('/api?'))) {
      if (state.warmup !== null) return { status: 503, body: state.warmup, contentType: 'text/plain' };
      const path = req.uri.slice('/api'.length).split('?')[0]!;
      return run(() => esplora(req.method, path, new Uint8Array(body)));
    }
    return emptyReply(404);
  }

  // The wire layer answers uWS's getpeername from what accept4 gave it, but the address is
  // still converted per request: when -rpcallowip admits every peer, only log lines need it.
  const everyPeerAllowed = allowsEveryPeer(
    settings.allowSubnets,
    settings.binds.map((b) => b.host),
  );

  const app = uws.App();
  // WebSocket routes are registered first: an upgrade request on /ws is theirs.
  deps.push?.attach(
    app,
    (authorization) => (authorization === '' ? undefined : auth.authenticate(authorization)),
    (peer) => everyPeerAllowed || settings.allowSubnets.some((s) => subnetMatches(s, canonicalAddress(new Uint8Array(peer)))),
  );
  app.any('/*', (res: HttpResponse, request: HttpRequest) => {
    const method = request.getCaseSensitiveMethod();
    let address: ArrayLike<number> | undefined;
    const peer = (): ArrayLike<number> => (address ??= canonicalAddress(new Uint8Array(res.getRemoteAddress())));
    if (state.shuttingDown) {
      // Core's HTTP server refuses new work once shutdown has begun.
      sendReply(res, libeventErrorPage(503), asksClose(request));
      return;
    }
    if (!LIBEVENT_METHODS.has(method)) {
      sendReply(res, libeventErrorPage(501), asksClose(request));
      return;
    }
    if (!everyPeerAllowed && !settings.allowSubnets.some((s) => subnetMatches(s, peer()))) {
      deps.log('warning', null, `HTTP request from ${formatAddress(peer())} rejected: Client network is not allowed RPC access`);
      sendReply(res, emptyReply(403, true));
      return;
    }
    const length = request.getHeader('content-length');
    if (length !== '' && Number(length) > MAX_BODY_BYTES) {
      sendReply(res, libeventErrorPage(413), asksClose(request));
      return;
    }
    const query = request.getQuery();
    const connection = request.getHeader('connection');
    const incoming: Incoming = {
      method,
      uri: request.getUrl() + (query ? `?${query}` : ''),
      authorization: readAuthorization(request),
      wantsClose: connection.toLowerCase() === 'close',
      keepAlive10: connection === HTTP10_KEEP_ALIVE,
      peer,
    };

    state.inflight++;
    let done = false;
    /** True while uWS runs the data callback: the socket is corked then, so replies need no cork() of their own. */
    let inDataCallback = false;
    /** A body still being streamed: the request stays in flight until it is out. */
    let streaming: Reply['writer'];
    const finish = (reply: Reply) => {
      if (done) {
        // The client went away first: the body is dropped.
        reply.release?.();
        return;
      }
      done = true;
      // While shutting down every reply ends its connection, as Core's do.
      let closing = state.shuttingDown && !reply.close ? { ...reply, close: true } : reply;
      if (incoming.keepAlive10) closing = { ...closing, headers: [...(closing.headers ?? []), KEEP_ALIVE] };
      if (!reply.writer) state.inflight--;
      streaming = reply.writer;
      const send = (): void =>
        sendReply(res, closing, incoming.wantsClose, () => {
          streaming = undefined;
          state.inflight--;
        });
      if (inDataCallback) send();
      else res.cork(send);
    };
    res.onAborted(() => {
      if (!done) state.inflight--;
      done = true;
      // A client gone mid-body costs nothing more: the writer drops the body.
      streaming?.abort();
    });

    const chunks: Buffer[] = [];
    let size = 0;
    res.onData((chunk, isLast) => {
      if (done) return;
      size += chunk.byteLength;
      if (size > MAX_BODY_BYTES) {
        finish(libeventErrorPage(413));
        return;
      }
      // uWS detaches the chunk's memory after this callback. A body that came in one chunk
      // is used in place: JSON-RPC parses it before returning, and route() copies it for
      // REST, whose handlers may read it later. Earlier chunks are copied (into Node's
      // pooled memory for small ones).
      if (!isLast) {
        chunks.push(Buffer.from(new Uint8Array(chunk)));
        return;
      }
      const body = chunks.length === 0 ? new Uint8Array(chunk) : Buffer.concat([...chunks, new Uint8Array(chunk)]);
      const failed = (err: unknown): void => {
        deps.log('warning', null, `HTTP request ${incoming.uri} failed: ${(err as Error).stack ?? String(err)}`);
        finish({ status: 500, body: (err as Error).message, close: true });
      };
      // Most replies are ready now (snapshot reads): answered in this callback, no promise.
      // They must be: uWS closes a connection whose next pipelined request arrives while a
      // reply is pending ("async pipelining" is refused), so deferring ready replies, even
      // to batch their writes, would break pipelining clients.
      let reply: Reply | Promise<Reply>;
      inDataCallback = true;
      try {
        reply = route(incoming, body);
        if (reply instanceof Promise) reply.then(finish, failed);
        else finish(reply);
      } catch (err) {
        failed(err);
      } finally {
        inDataCallback = false;
      }
    });
  });
  return app;
}
