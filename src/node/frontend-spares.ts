/**
 * HTTP front-end processes started by the launcher (bin/tsbtcd) before the daemon has
 * loaded its own modules. A front-end spends about half a second loading its modules
 * before it can bind, and spawned by the coordinator it could only begin once the
 * coordinator had loaded its own, while RPC was not up yet; started first, the two loads
 * overlap. A spare knows nothing until the coordinator adopts it and sends its settings
 * over fd 3; one never adopted is killed (and one whose daemon exits sees fd 3 close and
 * exits too). This module imports only Node builtins, so the launcher loads it at once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

/** The front-end entry bundled by `make build` (see the Makefile's bundle target). */
const FRONTEND_ENTRY = fileURLToPath(new URL('../bundle/frontend-main.js', import.meta.url));

/** Options after which the daemon starts no front-ends, or another number of them: no spares then. */
const NO_SPARES = /^--?(\?|h|help|version|noserver|server|rpcfrontends)(=|$)/;

/**
 * The spares, kept on globalThis: the launcher loads this module on its own, and the
 * daemon's bundle carries a copy of it; both must see the same list.
 */
const SPARES_KEY = Symbol.for('tsbtcd.spareFrontends');
const spares: ChildProcess[] = ((globalThis as Record<symbol, ChildProcess[] | undefined>)[SPARES_KEY] ??= []);

/** A new front-end process: fd 3 is its pipe to the coordinator. */
export function spawnFrontendProcess(): ChildProcess {
  return spawn(process.execPath, [FRONTEND_ENTRY], { stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
}

/**
 * Starts the default number of front-ends (one per core, as -rpcfrontends) unless the
 * command line asks for help, the version, no server, or another number of front-ends.
 * A config file may still say so: the coordinator kills the spares it does not adopt.
 */
export function startSpareFrontends(argv: readonly string[]): void {
  if (argv.some((arg) => NO_SPARES.test(arg))) return;
  for (let i = 0; i < availableParallelism(); i++) spares.push(spawnFrontendProcess());
}

/** A spare still running, for the coordinator to adopt, or undefined. */
export function takeSpareFrontend(): ChildProcess | undefined {
  for (let child = spares.shift(); child; child = spares.shift()) {
    if (child.exitCode === null && child.signalCode === null) return child;
  }
  return undefined;
}

/** Kills the spares nobody adopted. */
export function discardSpareFrontends(): void {
  for (const child of spares.splice(0)) child.kill('SIGKILL');
}
