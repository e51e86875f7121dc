/**
 * Where the reference Bitcoin Core v31.0 is, for the benchmark and the tests that run it
 * beside tsbtcd: BITCOIND when set; otherwise ../shared/bin/bitcoind beside the checkout,
 * after ../shared/bin/ensure-deps (which installs its runtime libraries and prints its
 * path) has run. Without either, callers skip the bitcoind side and say why in one line.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** ../shared/bin/ensure-deps beside the checkout (this file runs from dist/native-bench). */
const ENSURE_DEPS = fileURLToPath(new URL('../../../shared/bin/ensure-deps', import.meta.url));

export type ReferenceBitcoind = { readonly path: string } | { readonly missing: string };

let found: ReferenceBitcoind | undefined;

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function locate(): ReferenceBitcoind {
  const named = process.env.BITCOIND;
  if (named) return isExecutable(named) ? { path: named } : { missing: `BITCOIND=${named} is not an executable file` };
  if (!existsSync(ENSURE_DEPS)) return { missing: 'no reference bitcoind: BITCOIND is not set and there is no ../shared/bin/bitcoind beside the checkout' };
  let printed: string;
  try {
    // ensure-deps talks to apt on stderr when it installs something: shown only if it fails.
    printed = execFileSync(ENSURE_DEPS, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000 });
  } catch (err) {
    const stderr = String((err as { stderr?: unknown }).stderr ?? '').trim().split('\n').slice(-3).join(' / ');
    return { missing: `${ENSURE_DEPS} failed (${(err as Error).message.split('\n')[0]}${stderr ? `: ${stderr}` : ''})` };
  }
  const path = printed.trim().split('\n').pop() ?? '';
  return isExecutable(path) ? { path } : { missing: `${ENSURE_DEPS} did not name an executable bitcoind (it printed "${printed.trim()}")` };
}

/** The reference bitcoind, looked up once per process. */
export function referenceBitcoind(): ReferenceBitcoind {
  found ??= locate();
  return found;
}
