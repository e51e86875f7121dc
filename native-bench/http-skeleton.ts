/**
 * Skeleton servers for `make bench-http`: how much of hello-world's rate is left after the
 * steps a JSON-RPC server on uWS.js cannot skip, without any RPC work. Each mode
 * (argv[3]) adds one step to the mode before it:
 *
 * - `body`: reads the POST body (onAborted and onData, body copied), answers "Hello World!";
 * - `peer`: also reads the client's address (`getRemoteAddress()`), which -rpcallowip needs;
 * - `json`: also decodes and parses the body as JSON and answers a JSON-RPC 1.0 reply
 *   the size of getblockhash's, with Content-Type;
 * - `request`: also reads what bitcoind's HTTP server looks at: method, URL, query and the
 *   Authorization, Content-Length and Connection headers.
 *
 * Same binary, address and start-up protocol as http-hello.ts: port argv[2], mode argv[3];
 * "listening" once bound. Started by wrk.ts's startSkeleton.
 */
import { loadUws } from '../src/http/uws.js';
import { SKELETON_MODES, SKELETON_RESULT, type SkeletonMode } from './wrk.js';

const port = Number(process.argv[2]);
const step = SKELETON_MODES.indexOf(process.argv[3] as SkeletonMode);
if (step < 0) {
  console.error(`usage: http-skeleton.js <port> <${SKELETON_MODES.join('|')}>`);
  process.exit(2);
}
const readsPeer = step >= SKELETON_MODES.indexOf('peer');
const speaksJson = step >= SKELETON_MODES.indexOf('json');
const readsRequest = step >= SKELETON_MODES.indexOf('request');
const utf8 = new TextDecoder('utf-8', { fatal: true });

const uws = loadUws(30);
uws
  .App()
  .any('/*', (res, req) => {
    // The values are not used: these are native calls, which V8 never drops.
    if (readsRequest) {
      req.getCaseSensitiveMethod();
      req.getUrl();
      req.getQuery();
      req.getHeader('authorization');
      req.getHeader('content-length');
      req.getHeader('connection');
    }
    if (readsPeer) new Uint8Array(res.getRemoteAddress());
    res.onAborted(() => undefined);
    res.onData((chunk) => {
      const body = Buffer.from(new Uint8Array(chunk));
      if (!speaksJson) {
        res.end('Hello World!');
        return;
      }
      const request = JSON.parse(utf8.decode(body)) as { id?: unknown };
      res.writeHeader('Content-Type', 'application/json');
      res.end(`{"result":"${SKELETON_RESULT}","error":null,"id":${JSON.stringify(request.id ?? null)}}\n`);
    });
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) {
      console.error(`cannot listen on 127.0.0.1:${port}`);
      process.exit(1);
    }
    console.log('listening');
  });
