/**
 * The RPC authentication cookie: `__cookie__:<64 lowercase hex>` with no trailing
 * newline, written to `<file>.tmp` and renamed into place, mode from -rpccookieperms
 * (owner 0600 by default, group 0640, all 0644), new at every start, removed at clean
 * shutdown only by the process that wrote it.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';

export const COOKIE_USER = '__cookie__';

const PERMS: Record<string, number> = { owner: 0o600, group: 0o640, all: 0o644 };

/** The mode for -rpccookieperms, or undefined for an invalid value. */
export function cookieMode(perms: string | undefined): number | undefined {
  if (perms === undefined || perms === '') return PERMS['owner'];
  return Object.hasOwn(PERMS, perms) ? PERMS[perms] : undefined;
}

export interface AuthCookie {
  readonly path: string;
  readonly password: string;
  readonly mode: number;
}

/** A fresh cookie (32 random bytes as hex), not yet on disk. */
export function newAuthCookie(path: string, mode: number): AuthCookie {
  return { path, password: randomBytes(32).toString('hex'), mode };
}

/** Writes the cookie file; it appears only once complete (written aside, then renamed). */
export function writeAuthCookie({ path, password, mode }: AuthCookie): void {
  const tmp = `${path}.tmp`;
  // Created with the final mode so the secret is never readable more widely; chmod
  // again because the umask may have narrowed it.
  fs.writeFileSync(tmp, `${COOKIE_USER}:${password}`, { mode });
  fs.chmodSync(tmp, mode);
  fs.renameSync(tmp, path);
}

/** Removes the cookie at shutdown (ignoring a file already gone). */
export function deleteAuthCookie(cookie: AuthCookie): void {
  try {
    fs.unlinkSync(cookie.path);
  } catch {
    // Already removed: nothing to do.
  }
}
