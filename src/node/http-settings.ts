/**
 * What the HTTP front-ends are told at start: addresses to bind, allowed client networks,
 * accepted credentials (cookie or rpcuser/rpcpassword salted and hashed like Core's
 * g_rpcauth entries, plus every -rpcauth), and -rpcwhitelist. Failures follow Core:
 * the reason goes to debug.log and start-up fails with "Unable to start HTTP server".
 */
import { createHmac, randomBytes } from 'node:crypto';
import { LOOPBACK_SUBNETS, parseSubnet } from '../http/index.js';
import type { BindAddress, Credential, SubnetSpec } from '../ipc/index.js';
import type { NodeConfig } from './config.js';
import { InitError } from './config.js';
import { COOKIE_USER, cookieMode, newAuthCookie, type AuthCookie } from './cookie.js';
import type { Logger } from './logging.js';

export const HTTP_START_FAILED = 'Unable to start HTTP server. See debug log for details.';

export interface HttpSetup {
  readonly binds: BindAddress[];
  readonly allowSubnets: SubnetSpec[];
  readonly credentials: Credential[];
  readonly whitelists: { user: string; methods: string[] }[];
  readonly whitelistDefault: boolean;
  /** The cookie to write once the front-ends listen (and to delete at shutdown). */
  readonly cookie: AuthCookie | undefined;
}

/** Core's InvalidPortErrMsg. */
const invalidPort = (option: string, value: string) => `Invalid port specified in ${option}: '${value}'`;

function parsePort(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= 65535 ? n : undefined;
}

/** The RPC port (checked like Core's port options at start-up). */
export function rpcPort(config: NodeConfig): number {
  const arg = config.rpcPortArg;
  if (arg === undefined) return config.network.rpcPort;
  const port = parsePort(arg);
  if (port === undefined) throw new InitError(invalidPort('-rpcport', arg));
  return port;
}

/** "host", "host:port", "[v6]", "[v6]:port"; a bare IPv6 address has no port. */
function splitHostPort(text: string, defaultPort: number): BindAddress | undefined {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
  if (bracketed) {
    const port = bracketed[2] === undefined ? defaultPort : parsePort(bracketed[2]);
    return port === undefined ? undefined : { host: bracketed[1]!, port };
  }
  const colon = text.lastIndexOf(':');
  if (colon >= 0 && text.indexOf(':') === colon) {
    const port = parsePort(text.slice(colon + 1));
    return port === undefined ? undefined : { host: text.slice(0, colon), port };
  }
  return { host: text, port: defaultPort };
}

function hmacHex(salt: string, password: string): string {
  return createHmac('sha256', Buffer.from(salt, 'utf8')).update(password, 'utf8').digest('hex');
}

/**
 * Checks the RPC options and returns the front-ends' settings, with the cookie's secret
 * chosen but not yet written: like Core, the file appears only after the port is bound.
 * Logs what Core logs; throws InitError (Core's wording) on invalid options.
 */
export function setupHttp(config: NodeConfig, log: Logger): HttpSetup {
  const port = rpcPort(config);
  const fail = (reason: string): never => {
    log.error(reason);
    throw new InitError(HTTP_START_FAILED);
  };

  // Allowed clients.
  const allowSubnets: SubnetSpec[] = [...LOOPBACK_SUBNETS];
  for (const text of config.rpcAllowIp) {
    const subnet = parseSubnet(text);
    if (!subnet) {
      // Core shows this message box, then fails HTTP start-up: two error lines.
      throw new InitError([
        `Invalid -rpcallowip subnet specification: ${text}. Valid values are a single IP (e.g. 1.2.3.4), a network/netmask (e.g. 1.2.3.4/255.255.255.0), a network/CIDR (e.g. 1.2.3.4/24), all ipv4 (0.0.0.0/0), or all ipv6 (::/0). RFC4193 is allowed only if -cjdnsreachable=0.`,
        HTTP_START_FAILED,
      ]);
    }
    allowSubnets.push(subnet);
  }

  // Listening addresses: -rpcbind only counts together with -rpcallowip.
  let binds: BindAddress[];
  if (config.rpcAllowIp.length === 0 || config.rpcBind.length === 0) {
    binds = [
      { host: '::1', port },
      { host: '127.0.0.1', port },
    ];
    if (config.rpcAllowIp.length > 0) log.info("WARNING: option -rpcallowip was specified without -rpcbind; this doesn't usually make sense");
    if (config.rpcBind.length > 0) {
      log.info('WARNING: option -rpcbind was ignored because -rpcallowip was not specified, refusing to allow everyone to connect');
    }
  } else {
    binds = config.rpcBind.map((text) => splitHostPort(text, port) ?? fail(invalidPort('-rpcbind', text)));
  }

  // Credentials.
  const credentials: Credential[] = [];
  let cookie: AuthCookie | undefined;
  let user = '';
  let pass = '';
  if (config.rpcPassword === '') {
    const mode = cookieMode(config.rpcCookiePerms);
    if (mode === undefined) fail(`Invalid -rpccookieperms=${config.rpcCookiePerms}; must be one of 'owner', 'group', or 'all'.`);
    const file = config.rpcCookieFile;
    if (file === undefined) {
      log.info('RPC authentication cookie file generation is disabled.');
    } else {
      cookie = newAuthCookie(file, mode!);
      user = COOKIE_USER;
      pass = cookie.password;
      log.info('Using random cookie authentication.');
    }
  } else {
    log.info('Using rpcuser/rpcpassword authentication.');
    log.warning(
      'The use of rpcuser/rpcpassword is less secure, because credentials are configured in plain text. It is recommended that locally-run instances switch to cookie-based auth, or set up rpcauth. Please consult the documentation for more information.',
    );
    user = config.rpcUser;
    pass = config.rpcPassword;
  }
  if (user !== '' || pass !== '') {
    // Plain credentials are kept only salted and hashed, like -rpcauth entries.
    const salt = randomBytes(16).toString('hex');
    credentials.push({ user, salt, hash: hmacHex(salt, pass) });
  }
  if (config.rpcAuth.length > 0) {
    log.info('Using rpcauth authentication.');
    for (const entry of config.rpcAuth) {
      const fields = entry.split(':');
      const saltHash = fields[fields.length - 1]!.split('$');
      if (fields.length !== 2 || saltHash.length !== 2) fail('Invalid -rpcauth argument.');
      credentials.push({ user: fields[0]!, salt: saltHash[0]!, hash: saltHash[1]! });
    }
  }

  // Whitelists: entries for the same user intersect; "user" alone allows nothing.
  const lists = new Map<string, Set<string>>();
  for (const entry of config.rpcWhitelist) {
    const colon = entry.indexOf(':');
    const wlUser = colon < 0 ? entry : entry.slice(0, colon);
    const existing = lists.get(wlUser);
    if (colon < 0) {
      if (!existing) lists.set(wlUser, new Set());
      continue;
    }
    const methods = new Set(entry.slice(colon + 1).split(/[, ]/));
    lists.set(wlUser, existing ? new Set([...methods].filter((m) => existing.has(m))) : methods);
  }
  const whitelists = [...lists].map(([u, m]) => ({ user: u, methods: [...m] }));

  return { binds, allowSubnets, credentials, whitelists, whitelistDefault: config.rpcWhitelistDefault, cookie };
}
