/**
 * The native layer under uWebSockets.js (native/http_wire.c, built by `make build` into
 * dist/native/http_wire.node): it gives the uWS binary's sockets libevent's behaviour where
 * uWS 20.30 has none (HTTP/1.0, malformed requests, async pipelining, -rpcservertimeout).
 * Installed once per front-end, right after the uWS binary loads and before anything
 * listens; a failure is a start-up failure, never a fallback to bare uWS.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** dist/native/http_wire.node, beside dist/src (this module is dist/src/http/wire.js). */
export const WIRE_ADDON_FILE = fileURLToPath(new URL('../../native/http_wire.node', import.meta.url));

/**
 * The Connection value the wire layer gives uWS for an HTTP/1.0 client that asked for
 * keep-alive (one that did not gets `close`): its replies say `Connection: keep-alive`.
 */
export const HTTP10_KEEP_ALIVE = 'x-tsbtcd-http10-keep-alive';

interface WireAddon {
  install(uwsFileName: string, idleTimeoutSeconds: number): void;
  sweepTimersRefused(): number;
  /** target[0, 2 × source.length) = lowercase hex of source (native/hex_encode.c, SIMD). */
  hexEncode(source: Uint8Array, target: Uint8Array): void;
}

let addon: WireAddon | undefined;

function loadWireAddon(): WireAddon {
  if (addon) return addon;
  try {
    return (addon = createRequire(import.meta.url)(WIRE_ADDON_FILE) as WireAddon);
  } catch (err) {
    throw new Error(`cannot load the HTTP wire layer ${WIRE_ADDON_FILE} (run make build): ${(err as Error).message}`);
  }
}

export function installWire(uwsFile: string, idleTimeoutSeconds: number): void {
  loadWireAddon().install(path.basename(uwsFile), idleTimeoutSeconds);
}

/** The addon's hex encoder, which front-ends give REST and RPC replies (useNativeHexEncoder). */
export function wireHexEncoder(): (source: Uint8Array, target: Uint8Array) => void {
  return loadWireAddon().hexEncode;
}
