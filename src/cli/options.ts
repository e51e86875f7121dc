/**
 * The options tsbtcd-cli accepts, as bitcoin-cli v31.0 registers them (SetupCliArgs,
 * SetupHelpOptions, SetupChainParamsBaseOptions): the same names are read from the command
 * line and from bitcoin.conf, where keys the client does not know are ignored. Also the
 * `-help` text, laid out as Core's ArgsManager::GetHelpMessage does.
 */
import { DISALLOW_NEGATION, NETWORK_ONLY } from '../node/option-table.js';

export const CLIENT_PROGRAM = 'tsbtcd-cli';
export const DAEMON_PROGRAM = 'tsbtcd';

export const DEFAULT_RPCCONNECT = '127.0.0.1';
export const DEFAULT_HTTP_CLIENT_TIMEOUT = 900;
export const DEFAULT_WAIT_CLIENT_TIMEOUT = 0;
export const DEFAULT_NBLOCKS = '1';
export const DEFAULT_MAX_TRIES = 1_000_000;
export const DEFAULT_COLOR_SETTING = 'auto';
export const NETINFO_MAX_LEVEL = 4;

/** OptionsCategory, in Core's enum order (the order of the -help groups). */
const CATEGORIES = [
  ['options', 'Options:'],
  ['debug', 'Debugging/Testing options:'],
  ['chain', 'Chain selection options:'],
  ['commands', 'CLI Commands:'],
  ['ipc', 'IPC interprocess connection options:'],
  ['hidden', ''],
] as const;
type Category = (typeof CATEGORIES)[number][0];

interface CliOption {
  /** Name with its help parameter, e.g. `-rpcport=<port>`. */
  readonly spec: string;
  readonly category: Category;
  readonly flags: number;
  /** Shown only with -help-debug (which the client does not accept, so never). */
  readonly debugOnly?: boolean;
  readonly help: string;
}

const opt = (spec: string, category: Category, help: string, flags = 0, debugOnly = false): CliOption => ({ spec, category, flags, debugOnly, help });

const OPTIONS: readonly CliOption[] = [
  opt('-help', 'options', 'Print this help message and exit (also -h or -?)'),
  opt('-h', 'hidden', ''),
  opt('-?', 'hidden', ''),
  opt('-version', 'options', 'Print version and exit'),
  opt('-conf=<file>', 'options', 'Specify configuration file. Relative paths will be prefixed by datadir location. (default: bitcoin.conf)'),
  opt('-datadir=<dir>', 'options', 'Specify data directory', DISALLOW_NEGATION),
  opt(
    '-generate',
    'commands',
    'Generate blocks, equivalent to RPC getnewaddress followed by RPC generatetoaddress. Optional positional integer arguments are number of blocks to generate ' +
      `(default: ${DEFAULT_NBLOCKS}) and maximum iterations to try (default: ${DEFAULT_MAX_TRIES}), equivalent to RPC generatetoaddress nblocks and maxtries arguments. ` +
      `Example: ${CLIENT_PROGRAM} -generate 4 1000`,
  ),
  opt('-addrinfo', 'commands', 'Get the number of addresses known to the node, per network and total.'),
  opt(
    '-getinfo',
    'commands',
    'Get general information from the remote server. Note that unlike server-side RPC calls, the output of -getinfo is the result of multiple non-atomic requests. ' +
      'Some entries in the output may represent results from different states (e.g. wallet balance may be as of a different block from the chain state reported)',
  ),
  opt(
    '-netinfo',
    'commands',
    `Get network peer connection information from the remote server. An optional argument from 0 to ${NETINFO_MAX_LEVEL} can be passed for different peers listings (default: 0). ` +
      'If a non-zero value is passed, an additional "outonly" (or "o") argument can be passed to see outbound peers only. Pass "help" (or "h") for detailed help documentation.',
  ),
  opt('-chain=<chain>', 'chain', 'Use the chain <chain> (default: main). Allowed values: main, test, testnet4, signet, regtest'),
  opt(
    '-regtest',
    'chain',
    'Enter regression test mode, which uses a special chain in which blocks can be solved instantly. This is intended for regression testing tools and app development. Equivalent to -chain=regtest.',
    0,
    true,
  ),
  opt('-testactivationheight=name@height.', 'debug', "Set the activation height of 'name' (segwit, bip34, dersig, cltv, csv). (regtest-only)", 0, true),
  opt(
    '-testnet',
    'chain',
    'Use the testnet3 chain. Equivalent to -chain=test. Support for testnet3 is deprecated and will be removed in an upcoming release. Consider moving to testnet4 now by using -testnet4.',
  ),
  opt('-testnet4', 'chain', 'Use the testnet4 chain. Equivalent to -chain=testnet4.'),
  opt(
    '-vbparams=deployment:start:end[:min_activation_height]',
    'chain',
    'Use given start/end times and min_activation_height for specified version bits deployment (regtest-only)',
    0,
    true,
  ),
  opt('-signet', 'chain', 'Use the signet chain. Equivalent to -chain=signet. Note that the network is defined by the -signetchallenge parameter'),
  opt(
    '-signetchallenge',
    'chain',
    'Blocks must satisfy the given script to be considered valid (only for signet networks; defaults to the global default signet test network challenge)',
    DISALLOW_NEGATION,
  ),
  opt(
    '-signetseednode',
    'chain',
    'Specify a seed node for the signet network, in the hostname[:port] format, e.g. sig.net:1234 (may be used multiple times to specify multiple seed nodes; defaults to the global default signet test network seed node(s))',
    DISALLOW_NEGATION,
  ),
  opt(
    '-color=<when>',
    'options',
    `Color setting for CLI output (default: ${DEFAULT_COLOR_SETTING}). Valid values: always, auto (add color codes when standard output is connected to a terminal and OS is not WIN32), never. Only applies to the output of -getinfo.`,
    DISALLOW_NEGATION,
  ),
  opt('-named', 'options', 'Pass named instead of positional arguments (default: false)'),
  opt('-rpcclienttimeout=<n>', 'options', `Timeout in seconds during HTTP requests, or 0 for no timeout. (default: ${DEFAULT_HTTP_CLIENT_TIMEOUT})`),
  opt('-rpcconnect=<ip>', 'options', `Send commands to node running on <ip> (default: ${DEFAULT_RPCCONNECT})`),
  opt('-rpccookiefile=<loc>', 'options', 'Location of the auth cookie. Relative paths will be prefixed by a net-specific datadir location. (default: data dir)'),
  opt('-rpcpassword=<pw>', 'options', 'Password for JSON-RPC connections'),
  opt('-rpcport=<port>', 'options', 'Connect to JSON-RPC on <port> (default: 8332, testnet: 18332, testnet4: 48332, signet: 38332, regtest: 18443)', NETWORK_ONLY),
  opt('-rpcuser=<user>', 'options', 'Username for JSON-RPC connections'),
  opt('-rpcwait', 'options', 'Wait for RPC server to start'),
  opt(
    '-rpcwaittimeout=<n>',
    'options',
    `Timeout in seconds to wait for the RPC server to start, or 0 for no timeout. (default: ${DEFAULT_WAIT_CLIENT_TIMEOUT})`,
    DISALLOW_NEGATION,
  ),
  opt(
    '-rpcwallet=<walletname>',
    'options',
    `Send RPC for non-default wallet on RPC server (needs to exactly match corresponding -wallet option passed to ${DAEMON_PROGRAM}). This changes the RPC endpoint used, e.g. http://127.0.0.1:8332/wallet/<walletname>`,
  ),
  opt(
    '-stdin',
    'options',
    'Read extra arguments from standard input, one per line until EOF/Ctrl-D (recommended for sensitive information such as passphrases). When combined with -stdinrpcpass, the first line from standard input is used for the RPC password.',
  ),
  opt(
    '-stdinrpcpass',
    'options',
    'Read RPC password from standard input as a single line. When combined with -stdin, the first line from standard input is used for the RPC password. When combined with -stdinwalletpassphrase, -stdinrpcpass consumes the first line, and -stdinwalletpassphrase consumes the second.',
  ),
  opt(
    '-stdinwalletpassphrase',
    'options',
    'Read wallet passphrase from standard input as a single line. When combined with -stdin, the first line from standard input is used for the wallet passphrase.',
  ),
  opt(
    '-ipcconnect=<address>',
    'ipc',
    `Connect to ${DAEMON_PROGRAM} through IPC socket instead of TCP socket to execute requests. Valid <address> values are 'auto' to try to connect to default socket path at <datadir>/node.sock but fall back to TCP if it is not available, 'unix' to connect to the default socket and fail if it isn't available, or 'unix:<socket path>' to connect to a socket at a nonstandard path. -noipcconnect can be specified to avoid attempting to use IPC at all. Default value: auto`,
  ),
];

/** The option's name without dash and help parameter. */
function nameOf(o: CliOption): string {
  const eq = o.spec.indexOf('=');
  return (eq < 0 ? o.spec : o.spec.slice(0, eq)).slice(1);
}

const FLAGS = new Map(OPTIONS.map((o) => [nameOf(o), o.flags]));

/** The client's option table for the shared parsers: flags, or undefined for an unknown name. */
export function cliOptionFlags(name: string): number | undefined {
  return FLAGS.get(name);
}

/** The CLI_COMMANDS options: at most one of them may be given (ArgsManager::CheckMultipleCLIArgs). */
export const CLI_COMMAND_OPTIONS = OPTIONS.filter((o) => o.category === 'commands')
  .map(nameOf)
  .sort();

const SCREEN_WIDTH = 79;
const OPT_INDENT = 2;
const MSG_INDENT = 7;

/** Core's FormatParagraph: word-wraps `text` to `width`, indenting continuation lines by `indent`. */
export function formatParagraph(text: string, width = SCREEN_WIDTH, indent = 0): string {
  let out = '';
  let ptr = 0;
  let indented = 0;
  while (ptr < text.length) {
    let lineEnd = text.indexOf('\n', ptr);
    if (lineEnd < 0) lineEnd = text.length;
    const lineLen = lineEnd - ptr;
    const remaining = width - indented;
    if (lineLen <= remaining) {
      out += text.slice(ptr, lineEnd + 1);
      ptr = lineEnd + 1;
      indented = 0;
      continue;
    }
    let finalSpace = lastIndexOfAny(text, ' \n', ptr + remaining);
    if (finalSpace < ptr) {
      // No place to break: take the whole word.
      finalSpace = firstIndexOfAny(text, '\n ', ptr);
      if (finalSpace < 0) {
        out += text.slice(ptr);
        break;
      }
    }
    out += text.slice(ptr, finalSpace) + '\n';
    if (text[finalSpace] === '\n') {
      indented = 0;
    } else if (indent) {
      out += ' '.repeat(indent);
      indented = indent;
    }
    ptr = finalSpace + 1;
  }
  return out;
}

function lastIndexOfAny(s: string, chars: string, from: number): number {
  for (let i = Math.min(from, s.length - 1); i >= 0; i--) if (chars.includes(s[i]!)) return i;
  return -1;
}

function firstIndexOfAny(s: string, chars: string, from: number): number {
  for (let i = from; i < s.length; i++) if (chars.includes(s[i]!)) return i;
  return -1;
}

/** ArgsManager::GetHelpMessage for the client's options: groups in category order, options by name. */
export function cliHelpMessage(): string {
  let usage = '';
  for (const [category, title] of CATEGORIES) {
    if (category === 'hidden') break;
    const options = OPTIONS.filter((o) => o.category === category);
    if (options.length === 0) continue;
    usage += `${title}\n\n`;
    const sorted = [...options].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
    for (const o of sorted) {
      if (o.debugOnly) continue;
      usage += `${' '.repeat(OPT_INDENT)}${o.spec}\n${' '.repeat(MSG_INDENT)}${formatParagraph(o.help, SCREEN_WIDTH - MSG_INDENT, MSG_INDENT)}\n\n`;
    }
  }
  return usage;
}
