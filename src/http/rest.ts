/**
 * The REST extension point. Endpoints register under a path prefix (Core's list:
 * "/rest/tx/", "/rest/block/", "/rest/chaininfo", ...); a request under /rest/ that no
 * endpoint claims gets Core's reply for a path without a handler: 404, empty body. With
 * -rest off no endpoint is consulted at all. The endpoints are src/rest's, registered by
 * frontend-main.ts.
 */
import type { Reply } from './reply.js';

export interface RestRequest {
  /** HTTP method as sent (GET, HEAD, POST, ...). */
  readonly method: string;
  /** The request URI after the matched prefix (query string included). */
  readonly rest: string;
  /** The full request URI. */
  readonly uri: string;
  /** Current init message while the node warms up (REST answers 503 then), else null. */
  readonly warmup: string | null;
  /** The request body (any method: getutxos reads a POSTed one). */
  readonly body: Uint8Array;
}

export type RestHandler = (req: RestRequest) => Reply | Promise<Reply>;

export class RestRouter {
  private readonly routes: { prefix: string; handler: RestHandler }[] = [];

  /** `prefix` starts with "/rest/"; the first registered match wins, as in Core. */
  register(prefix: string, handler: RestHandler): void {
    if (!prefix.startsWith('/rest/')) throw new Error(`REST prefix must start with /rest/: ${prefix}`);
    this.routes.push({ prefix, handler });
  }

  /** The handler for a URI and the part after its prefix, or undefined (→ 404). */
  match(uri: string): { handler: RestHandler; rest: string } | undefined {
    const route = this.routes.find((r) => uri.startsWith(r.prefix));
    return route && { handler: route.handler, rest: uri.slice(route.prefix.length) };
  }
}
