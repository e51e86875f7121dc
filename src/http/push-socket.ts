/**
 * WebSocket push on /ws (-websocket): the front-end's side. A client connects with the
 * JSON-RPC credentials (HTTP basic auth on the upgrade request, refused with 401 as RPC
 * is), then sends
 *   {"op":"subscribe","topics":["block","tip","mempool","sequence"],"addresses":[…],"since":N}
 * and gets {"op":"subscribed","epoch":E,"seq":S}, every kept event numbered after N that
 * it subscribed to (the resume), then each new one as it happens: {"seq":…,"topic":…,…}.
 * Numbers come from the coordinator (one counter per node run, named by the epoch), which
 * hands a starting front-end the events it keeps, so a client whose front-end restarted
 * resumes on the new one without a gap. A client too slow to take its events is closed
 * (uWS's backpressure limit) rather than skipped, so it resumes instead of missing some.
 */
import type { TemplatedApp, WebSocket } from '@trufflesuite/uws-js-unofficial';
import type { PushEvent } from '../ipc/index.js';

export const PUSH_PATH = '/ws';
const TOPICS = new Set(['block', 'tip', 'mempool', 'sequence']);
/** Events a front-end keeps for resuming (the coordinator keeps as many). */
const KEPT_EVENTS = 100_000;
/** Per-client bytes queued before it is closed as too slow. */
const MAX_BACKPRESSURE = 16 * 1024 * 1024;
/** Largest client message (a subscription to many addresses). */
const MAX_CLIENT_MESSAGE = 1024 * 1024;

interface Subscriber {
  readonly user: string;
  topics: Set<string>;
}

interface SubscribeRequest {
  op?: unknown;
  topics?: unknown;
  addresses?: unknown;
  since?: unknown;
}

export class PushHub {
  private kept: PushEvent[];
  private app: TemplatedApp | undefined;

  constructor(
    readonly epoch: string,
    backlog: readonly PushEvent[],
  ) {
    this.kept = [...backlog];
  }

  get latest(): number {
    return this.kept.length > 0 ? this.kept[this.kept.length - 1]!.seq : 0;
  }

  /** New events from the coordinator: kept, then published to their topic's subscribers. */
  receive(events: readonly PushEvent[]): void {
    for (const event of events) {
      if (event.seq <= this.latest) continue;
      this.kept.push(event);
      this.app?.publish(event.topic, event.json);
    }
    if (this.kept.length > KEPT_EVENTS * 1.25) this.kept = this.kept.slice(-KEPT_EVENTS);
  }

  /**
   * Serves /ws on `app`. `authenticate` takes the Authorization header and gives the
   * user, or undefined (401); `allowed` applies -rpcallowip to the peer.
   */
  attach(app: TemplatedApp, authenticate: (authorization: string) => string | undefined, allowed: (peer: ArrayBuffer) => boolean): void {
    this.app = app;
    app.ws<Subscriber>(PUSH_PATH, {
      maxBackpressure: MAX_BACKPRESSURE,
      closeOnBackpressureLimit: 1,
      sendPingsAutomatically: true,
      maxPayloadLength: MAX_CLIENT_MESSAGE,
      idleTimeout: 120,
      upgrade: (res, req, context) => {
        if (!allowed(res.getRemoteAddress())) {
          res.writeStatus('403 Forbidden').end();
          return;
        }
        const user = authenticate(req.getHeader('authorization'));
        if (user === undefined) {
          res.writeStatus('401 Unauthorized').writeHeader('WWW-Authenticate', 'Basic realm="jsonrpc"').end();
          return;
        }
        res.upgrade<Subscriber>(
          { user, topics: new Set() },
          req.getHeader('sec-websocket-key'),
          req.getHeader('sec-websocket-protocol'),
          req.getHeader('sec-websocket-extensions'),
          context,
        );
      },
      message: (ws, message) => this.onMessage(ws, message),
    });
  }

  private onMessage(ws: WebSocket<Subscriber>, message: ArrayBuffer): void {
    let request: SubscribeRequest;
    try {
      request = JSON.parse(Buffer.from(message).toString('utf8')) as SubscribeRequest;
    } catch {
      this.refuse(ws, 'Parse error: a message is one JSON object');
      return;
    }
    if (typeof request !== 'object' || request === null || request.op !== 'subscribe') {
      this.refuse(ws, 'Unknown op: the only one is "subscribe"');
      return;
    }
    const topics = request.topics ?? [];
    const addresses = request.addresses ?? [];
    if (!Array.isArray(topics) || !topics.every((t) => typeof t === 'string' && TOPICS.has(t))) {
      this.refuse(ws, `topics must be a list of ${[...TOPICS].join(', ')}`);
      return;
    }
    if (!Array.isArray(addresses) || !addresses.every((a) => typeof a === 'string' && a.length > 0 && a.length <= 128)) {
      this.refuse(ws, 'addresses must be a list of address strings');
      return;
    }
    const since = request.since;
    if (since !== undefined && !(Number.isSafeInteger(since) && (since as number) >= 0)) {
      this.refuse(ws, 'since must be an event number (a non-negative integer)');
      return;
    }
    const wanted = [...(topics as string[]), ...(addresses as string[]).map((a) => `address:${a}`)];
    const subscriber = ws.getUserData();
    for (const topic of wanted) subscriber.topics.add(topic);
    ws.send(JSON.stringify({ op: 'subscribed', epoch: this.epoch, seq: this.latest }));
    if (since !== undefined) this.replay(ws, since as number, new Set(wanted));
    // Subscribing after the replay, in the same turn: no event can fall between the two.
    for (const topic of wanted) ws.subscribe(topic);
  }

  /** Sends the kept events numbered after `since` on the given topics, oldest first. */
  private replay(ws: WebSocket<Subscriber>, since: number, topics: ReadonlySet<string>): void {
    const oldest = this.kept[0]?.seq ?? this.latest + 1;
    if (since + 1 < oldest && since < this.latest) {
      ws.send(JSON.stringify({ op: 'error', message: `events after ${since} are no longer kept; the oldest kept is ${oldest}`, oldest }));
    }
    // Binary search for the first event after `since`.
    let lo = 0;
    let hi = this.kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.kept[mid]!.seq <= since) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.kept.length; i++) {
      const event = this.kept[i]!;
      if (topics.has(event.topic)) ws.send(event.json);
    }
  }

  private refuse(ws: WebSocket<Subscriber>, message: string): void {
    ws.send(JSON.stringify({ op: 'error', message }));
  }
}
