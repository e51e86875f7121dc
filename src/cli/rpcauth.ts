/**
 * tsbtcd-rpcauth: Core's share/rpcauth/rpcauth.py. For a user name and a password (given,
 * prompted for with "-", or 32 random bytes as URL-safe base64 when left out) it prints
 * the `rpcauth=<user>:<salt>$<hmac>` line for bitcoin.conf, where the salt is 16 random
 * bytes in hex and the hash is hex HMAC-SHA256 keyed with the salt's text over the
 * password; with -j/--json one JSON line instead. The command line is read as the
 * script's argparse parser reads it, with its usage, help and error texts and status 2.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { LineSource } from './stdin.js';

export const RPCAUTH_PROGRAM = 'tsbtcd-rpcauth';

export interface RpcauthIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdin: LineSource;
  /** Random bytes (crypto's by default; tests fix them). */
  readonly random?: (size: number) => Buffer;
}

/** Hex HMAC-SHA256 with the salt's text as the key, as rpcauth.py and the server compute it. */
export function passwordToHmac(salt: string, password: string): string {
  return createHmac('sha256', Buffer.from(salt, 'utf8')).update(Buffer.from(password, 'utf8')).digest('hex');
}

/** One rpcauth value, `<user>:<salt>$<hmac>`. */
export function rpcauthValue(user: string, salt: string, password: string): string {
  return `${user}:${salt}$${passwordToHmac(salt, password)}`;
}

const USAGE = `usage: ${RPCAUTH_PROGRAM} [-h] [-j] username [password]\n`;

const HELP =
  USAGE +
  '\n' +
  'Create login credentials for a JSON-RPC user\n' +
  '\n' +
  'positional arguments:\n' +
  '  username    the username for authentication\n' +
  '  password    leave empty to generate a random password or specify "-" to\n' +
  '              prompt for password\n' +
  '\n' +
  'options:\n' +
  '  -h, --help  show this help message and exit\n' +
  '  -j, --json  output to json instead of plain-text\n';

/** Python's json.dumps of a string (ensure_ascii): \uXXXX for controls and everything outside ASCII. */
function pyJsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const short = PY_ESCAPES[c];
    if (short !== undefined) out += short;
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += s[i];
  }
  return out + '"';
}

const PY_ESCAPES: Readonly<Record<number, string>> = { 0x22: '\\"', 0x5c: '\\\\', 0x0a: '\\n', 0x0d: '\\r', 0x09: '\\t', 0x08: '\\b', 0x0c: '\\f' };

class ArgparseExit {
  constructor(
    readonly status: number,
    readonly text: string,
    readonly toStderr: boolean,
  ) {}
}

const argError = (message: string) => new ArgparseExit(2, `${USAGE}${RPCAUTH_PROGRAM}: error: ${message}\n`, true);

/** argparse's reading of [-h] [-j] username [password]. */
function parseArguments(argv: readonly string[]): { username: string; password: string | undefined; json: boolean } {
  let json = false;
  const extras: string[] = [];
  const positional: string[] = [];
  let positionalsDone = false;
  // Positionals arrive in runs between options; the first run fills username and (optional) password.
  let run: string[] = [];
  const endRun = () => {
    if (run.length === 0) return;
    if (!positionalsDone) {
      positional.push(...run.slice(0, 2));
      extras.push(...run.slice(2));
      positionalsDone = true;
    } else {
      extras.push(...run);
    }
    run = [];
  };
  const isOptionLike = (a: string) => a.startsWith('-') && a !== '-' && !/^-\d+$|^-\d*\.\d+$/.test(a) && !a.includes(' ');
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      run.push(...argv.slice(i + 1));
      break;
    }
    if (!isOptionLike(a)) {
      run.push(a);
      continue;
    }
    endRun();
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a : a.slice(0, eq);
      const explicit = eq < 0 ? undefined : a.slice(eq + 1);
      const matches = ['--help', '--json'].filter((o) => o.startsWith(name));
      if (matches.length !== 1) {
        extras.push(a);
        continue;
      }
      if (explicit !== undefined) throw argError(`argument ${matches[0] === '--help' ? '-h/--help' : '-j/--json'}: ignored explicit argument '${explicit}'`);
      if (matches[0] === '--help') throw new ArgparseExit(0, HELP, false);
      json = true;
      continue;
    }
    // Single-dash flags, possibly combined (-jh).
    if (a[1] !== 'h' && a[1] !== 'j') {
      extras.push(a);
      continue;
    }
    for (let k = 1; k < a.length; k++) {
      const flag = a[k];
      if (flag === 'h') throw new ArgparseExit(0, HELP, false);
      if (flag === 'j') {
        json = true;
        continue;
      }
      const option = a[k - 1] === 'h' ? '-h/--help' : '-j/--json';
      throw argError(`argument ${option}: ignored explicit argument '${a.slice(k).replace(/^=/, '')}'`);
    }
  }
  endRun();
  if (positional.length === 0) throw argError('the following arguments are required: username');
  if (extras.length > 0) throw argError(`unrecognized arguments: ${extras.join(' ')}`);
  return { username: positional[0]!, password: positional[1], json };
}

/** getpass(): "Password: " and a line typed without echo (read from stdin with a warning when it is no terminal). */
async function getpass(io: RpcauthIo): Promise<string> {
  if (!io.stdin.isTerminal) io.stderr('Warning: Password input may be echoed.\n');
  io.stderr('Password: ');
  const line = await io.stdin.readLine({ secret: true });
  if (io.stdin.isTerminal) io.stderr('\n');
  if (line === undefined) throw new ArgparseExit(1, 'EOFError\n', true);
  return line;
}

/** Runs the tool on `argv` (the words after the program name); resolves to the exit status. */
export async function runRpcauth(argv: readonly string[], io: RpcauthIo): Promise<number> {
  const random = io.random ?? randomBytes;
  try {
    const args = parseArguments(argv);
    let password = args.password;
    if (!password) password = random(32).toString('base64url');
    else if (password === '-') password = await getpass(io);
    const salt = random(16).toString('hex');
    const value = rpcauthValue(args.username, salt, password);
    if (args.json) {
      io.stdout(`{"username": ${pyJsonString(args.username)}, "password": ${pyJsonString(password)}, "rpcauth": ${pyJsonString(value)}}\n`);
    } else {
      io.stdout(`String to be appended to bitcoin.conf:\nrpcauth=${value}\nYour password:\n${password}\n`);
    }
    return 0;
  } catch (err) {
    if (!(err instanceof ArgparseExit)) throw err;
    (err.toStderr ? io.stderr : io.stdout)(err.text);
    return err.status;
  }
}
