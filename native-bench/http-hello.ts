/**
 * The baseline of `make bench-http`: a bare uWS.js hello-world server, loaded from the
 * same native binary as the front-ends (src/http/uws.ts). It answers every request with a
 * fixed 12-byte body without reading the request body, and listens on 127.0.0.1:<port>
 * (argv[2]) with uSockets' default SO_REUSEPORT, so several can share the port like the
 * front-ends do. Prints "listening" once bound; exits on SIGTERM.
 */
import { loadUws } from '../src/http/uws.js';

const port = Number(process.argv[2]);
const uws = loadUws(30);
uws
  .App()
  .any('/*', (res) => {
    res.end('Hello World!');
  })
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) {
      console.error(`cannot listen on 127.0.0.1:${port}`);
      process.exit(1);
    }
    console.log('listening');
  });
