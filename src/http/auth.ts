/**
 * HTTP Basic authentication against the credential list (cookie, rpcuser/rpcpassword,
 * -rpcauth), and -rpcwhitelist checks. A login matches an entry when the user name is
 * equal and HMAC-SHA256(key = salt text, message = password) equals the stored lowercase
 * hex; both comparisons take the same time whatever the inputs.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Credential, FrontendSettings } from '../ipc/index.js';

/** Constant-time equality of two strings of any lengths (compares their digests). */
function equalConstantTime(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Core's strict DecodeBase64: whole groups of 4, valid alphabet, padding only at the end. */
function decodeBase64Strict(text: string): Buffer | undefined {
  if (text.length % 4 !== 0 || !BASE64.test(text)) return undefined;
  return Buffer.from(text, 'base64');
}

/** Verified headers remembered per process; a full cache is emptied, never grown. */
const VERIFIED_CACHE_LIMIT = 1024;

export class Authenticator {
  /**
   * Authorization header values that verified, and their user. A keep-alive client sends
   * the same header with every request; hashing it again (a SHA-256 HMAC and two SHA-256
   * digests per credential) was a tenth of a getblockhash. Only exact values that passed
   * the full check are kept, and credentials never change while a front-end runs, so a hit
   * reveals nothing a guesser could use. Failures are not cached: each pays the full check
   * and Core's delay.
   */
  readonly #verified = new Map<string, string>();

  constructor(private readonly credentials: readonly Credential[]) {}

  /**
   * The user an `Authorization` header value authenticates, or undefined. The scheme
   * must be exactly "Basic " (case and single space, as Core checks).
   */
  authenticate(header: string): string | undefined {
    const known = this.#verified.get(header);
    if (known !== undefined) return known;
    const user = this.#check(header);
    if (user !== undefined) {
      if (this.#verified.size >= VERIFIED_CACHE_LIMIT) this.#verified.clear();
      this.#verified.set(header, user);
    }
    return user;
  }

  #check(header: string): string | undefined {
    if (!header.startsWith('Basic ')) return undefined;
    const decoded = decodeBase64Strict(header.slice(6).trim());
    if (!decoded) return undefined;
    const userPass = decoded.toString('utf8');
    const colon = userPass.indexOf(':');
    if (colon < 0) return undefined;
    const user = userPass.slice(0, colon);
    const password = userPass.slice(colon + 1);
    let matched: string | undefined;
    // Every entry is checked, so timing does not reveal which one matched.
    for (const c of this.credentials) {
      const hash = createHmac('sha256', Buffer.from(c.salt, 'utf8')).update(password, 'utf8').digest('hex');
      if (equalConstantTime(user, c.user) && equalConstantTime(hash, c.hash)) matched ??= user;
    }
    return matched;
  }
}

/** -rpcwhitelist: which methods a user may call. */
export class Whitelist {
  private readonly lists: Map<string, Set<string>>;
  private readonly byDefault: boolean;

  constructor(settings: Pick<FrontendSettings, 'whitelists' | 'whitelistDefault'>) {
    this.lists = new Map(settings.whitelists.map((w) => [w.user, new Set(w.methods)]));
    this.byDefault = settings.whitelistDefault;
  }

  hasList(user: string): boolean {
    return this.lists.has(user);
  }

  /** A user without a list may call nothing when -rpcwhitelistdefault is on. */
  deniedEverything(user: string): boolean {
    return !this.lists.has(user) && this.byDefault;
  }

  allows(user: string, method: string): boolean {
    const list = this.lists.get(user);
    return list === undefined || list.has(method);
  }
}
