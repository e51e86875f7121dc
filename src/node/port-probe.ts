/**
 * Front-ends listen with SO_REUSEPORT so that K of them share the RPC port, but that
 * option would also let a second node (same user) share the port silently, where
 * bitcoind fails to bind. Before the front-ends start, each address is bound once
 * without SO_REUSEPORT; one that is taken is reported as Core reports a failed bind.
 */
import * as net from 'node:net';
import type { BindAddress } from '../ipc/index.js';

/** Whether `bind` can be listened on exclusively right now (the probe is closed again). */
export function canBindExclusively(bind: BindAddress): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen({ host: bind.host, port: bind.port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
