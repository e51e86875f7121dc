/**
 * Loads uWebSockets.js from the native binary of @trufflesuite/uws-js-unofficial for
 * this platform and Node ABI (uws_linux_x64_115.node on Node 20), and nothing else: the
 * package's own loader silently falls back to a slow pure-JS server, which tsbtcd must
 * never run on. A failure here is a start-up failure.
 */
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type * as Uws from '@trufflesuite/uws-js-unofficial';
import { installWire } from './wire.js';

export type UwsModule = typeof Uws;

/** libevent accepts request lines and headers up to 8192 bytes; uWS reads its limit from this variable when it loads. */
const MAX_HEADERS_SIZE = '8192';

export function uwsBinaryPath(): string {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve('@trufflesuite/uws-js-unofficial/package.json'));
  return path.join(pkg, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
}

/** Loads uWS with the wire layer under it; `idleTimeoutSeconds` is -rpcservertimeout. */
export function loadUws(idleTimeoutSeconds: number): UwsModule {
  process.env['UWS_HTTP_MAX_HEADERS_SIZE'] = MAX_HEADERS_SIZE;
  const require = createRequire(import.meta.url);
  const file = uwsBinaryPath();
  let mod: UwsModule;
  try {
    mod = require(file) as UwsModule;
  } catch (err) {
    throw new Error(`cannot load the uWebSockets.js binary ${file}: ${(err as Error).message}`);
  }
  if (typeof mod.App !== 'function') throw new Error(`${file} is not a uWebSockets.js binary`);
  installWire(file, idleTimeoutSeconds);
  return mod;
}
