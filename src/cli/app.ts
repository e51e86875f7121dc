/**
 * tsbtcd-cli as a function of its command line (bitcoin-cli v31.0's AppInitRPC and
 * CommandLineRPC): options from the command line and bitcoin.conf, the chain, the words
 * of the call (and -stdin's lines), one request, and what Core prints for its reply —
 * a string raw, null as nothing, other JSON indented by two, an error as
 * `error code: N` / `error message:` on stderr with |N| as the exit status, any other
 * failure as `error: <text>` with status 1.
 *
 * bitcoind's command-line and bitcoin.conf machinery is reused from src/node's modules
 * directly rather than through its face, which loads the whole coordinator (a third of a
 * second on every call of the client).
 */
import * as path from 'node:path';
import { Args } from '../node/args.js';
import { ConfigError, parseCommandLine } from '../node/args-parse.js';
import { isDirectory, readConfigFiles } from '../node/config-files.js';
import { defaultDataDir } from '../node/config.js';
import { selectParams, type ChainName } from '../consensus/index.js';
import { CliError, rpcConvertNamedValues, rpcConvertValues } from './convert.js';
import { getInfoText, GetinfoRequestHandler } from './getinfo.js';
import { AddrinfoRequestHandler, GenerateToAddressRequestHandler, generateToAddressArgs } from './handlers.js';
import type { Transport } from './http-client.js';
import { NETINFO_HELP, NetinfoRequestHandler } from './netinfo.js';
import { CLI_COMMAND_OPTIONS, CLIENT_PROGRAM, cliHelpMessage, cliOptionFlags, DAEMON_PROGRAM, DEFAULT_COLOR_SETTING } from './options.js';
import { connectAndCallRpc, DefaultRequestHandler, rpcWalletName, type RequestHandler, type RpcContext } from './rpc-call.js';
import type { LineSource } from './stdin.js';
import { findValue, getInt, getStr, getValStr, isNull, writeJson, UniValueTypeError, type UniValue } from './univalue.js';

/** Core's RPC_WALLET_NOT_SPECIFIED: the error gets the client's -rpcwallet hint. */
const RPC_WALLET_NOT_SPECIFIED = -19;

/** Everything the client touches outside itself, so that tests can stand in for it. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly stdin: LineSource;
  readonly stdoutIsTerminal: boolean;
  readonly env: NodeJS.ProcessEnv;
  readonly transport: Transport;
  readonly sleep: (ms: number) => Promise<void>;
  /** Milliseconds, for -rpcwaittimeout and -netinfo ages. */
  readonly now: () => number;
  /** `v0.1.0`: FormatFullVersion(). */
  readonly version: string;
}

/** The client's setup after AppInitRPC. */
interface Setup {
  readonly args: Args;
  readonly chain: ChainName;
  readonly rpc: RpcContext;
}

const CHAIN_SUFFIX: Readonly<Record<ChainName, string>> = { main: '', test: ' testnet', testnet4: ' testnet4', signet: ' signet', regtest: ' regtest' };

function usage(io: CliIo, versionOnly: boolean): string {
  let text = `${DAEMON_PROGRAM} RPC client version ${io.version}\n`;
  if (versionOnly) return text;
  text +=
    '\n' +
    `The ${CLIENT_PROGRAM} utility provides a command line interface to interact with a ${DAEMON_PROGRAM} RPC server.\n` +
    `\nIt can be used to query network information, manage wallets, create or broadcast transactions, and control the ${DAEMON_PROGRAM} server.\n` +
    '\nUse the "help" command to list all commands. Use "help <command>" to show help for that command.\n' +
    'The -named option allows you to specify parameters using the key=value format, eliminating the need to pass unused positional parameters.\n' +
    '\n' +
    `Usage: ${CLIENT_PROGRAM} [options] <command> [params]\n` +
    `or:    ${CLIENT_PROGRAM} [options] -named <command> [name=value]...\n` +
    `or:    ${CLIENT_PROGRAM} [options] help\n` +
    `or:    ${CLIENT_PROGRAM} [options] help <command>\n` +
    '\n';
  return text + '\n' + cliHelpMessage();
}

/** AppInitRPC: the setup, or the exit status when the program ends here. */
function appInit(argv: readonly string[], io: CliIo): Setup | number {
  // Options run up to the first word that does not start with '-' (the method).
  let first = 0;
  while (first < argv.length && argv[first]!.startsWith('-')) first++;
  const args = new Args();
  try {
    for (const o of parseCommandLine(argv.slice(0, first), cliOptionFlags)) args.settings.addCommandLine(o.name, o.value);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.stderr(`Error parsing command line arguments: ${err.message}\n`);
    return 1;
  }
  const helpRequested = ['?', 'h', 'help'].some((n) => args.isArgSet(n));
  const versionRequested = args.getBoolArg('version', false);
  if (argv.length === 0 || helpRequested || versionRequested) {
    io.stdout(usage(io, versionRequested));
    if (argv.length === 0) {
      io.stderr('Error: too few parameters\n');
      return 1;
    }
    return 0;
  }

  const dataDirArg = () => args.getPathArg('datadir');
  const given = dataDirArg();
  if (given !== undefined && !isDirectory(path.resolve(given))) {
    io.stderr(`Error: Specified data directory "${args.getArg('datadir') ?? ''}" does not exist.\n`);
    return 1;
  }
  const dataDir = () => {
    const d = dataDirArg();
    return d === undefined ? defaultDataDir(io.env) : path.resolve(d);
  };
  let confFilePath: string;
  try {
    const report = readConfigFiles(args, dataDir(), cliOptionFlags);
    confFilePath = report.path;
    for (const w of report.stderrWarnings) io.stderr(`${w}\n`);
    // The config file may move the data directory.
    const moved = dataDirArg();
    if (moved !== undefined && !isDirectory(path.resolve(moved))) {
      throw new ConfigError(`specified data directory "${args.getArg('datadir') ?? ''}" does not exist.`);
    }
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.stderr(`Error reading configuration file: ${err.message}\n`);
    return 1;
  }
  let chain: ChainName;
  try {
    chain = args.chain();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.stderr(`Error: ${err.message}\n`);
    return 1;
  }
  args.selectNetwork(chain);
  const params = selectParams(chain);
  const rpc: RpcContext = {
    args,
    defaultRpcPort: params.rpcPort,
    netDir: params.dataSubdir === '' ? dataDir() : path.join(dataDir(), params.dataSubdir),
    confFilePath: confFilePath === '' ? dataDir() : confFilePath,
    transport: io.transport,
    sleep: io.sleep,
    now: io.now,
    warn: io.stderr,
  };
  return { args, chain, rpc };
}

/** A line of standard input that an option requires. */
async function requiredLine(io: CliIo, option: string, prompt: string): Promise<string> {
  // Core prompts only on a terminal with nothing typed ahead; a pipe is read silently.
  if (io.stdin.isTerminal) io.stderr(prompt);
  const line = await io.stdin.readLine({ secret: true });
  if (line === undefined) throw new CliError(`${option} specified but failed to read from standard input`);
  if (io.stdin.isTerminal) io.stdout('\n');
  return line;
}

/** ParseError: Core's error text and |code| as the status. */
function errorText(error: UniValue): { text: string; code: number } {
  let text = '';
  if (error.type === 'obj') {
    const code = findValue(error, 'code');
    const message = findValue(error, 'message');
    if (!isNull(code)) text = `error code: ${getValStr(code)}\n`;
    if (message.type === 'str') text += `error message:\n${message.value}`;
    if (code.type === 'num' && getInt(code) === RPC_WALLET_NOT_SPECIFIED) {
      text += ' Or for the CLI, specify the "-rpcwallet=<walletname>" option before the command';
      text += ' (run "bitcoin-cli -h" for help or "bitcoin-cli listwallets" to see which wallets are currently loaded).';
    }
  } else {
    text = `error: ${writeJson(error)}`;
  }
  return { text, code: Math.abs(getInt(findValue(error, 'code'))) };
}

/** CommandLineRPC: the call the words ask for, printed; resolves to the exit status. */
async function commandLineRpc(argv: readonly string[], io: CliIo, setup: Setup): Promise<number> {
  const { args, rpc } = setup;
  let print = '';
  let status = 0;
  try {
    // The method and its arguments follow the leading switches.
    let first = 0;
    while (first < argv.length && argv[first]!.startsWith('-')) first++;
    const words = argv.slice(first);

    if (args.getBoolArg('stdinrpcpass', false)) {
      args.settings.forced.set('rpcpassword', await requiredLine(io, '-stdinrpcpass', 'RPC password> '));
    }
    if (args.getBoolArg('stdinwalletpassphrase', false)) {
      if (words.length < 1 || !words[0]!.startsWith('walletpassphrase')) {
        throw new CliError('-stdinwalletpassphrase is only applicable for walletpassphrase(change)');
      }
      words.splice(1, 0, await requiredLine(io, '-stdinwalletpassphrase', 'Wallet passphrase> '));
    }
    if (args.getBoolArg('stdin', false)) {
      for (let line = await io.stdin.readLine(); line !== undefined; line = await io.stdin.readLine()) words.push(line);
      if (io.stdin.isTerminal) io.stdout('\n');
    }

    const commands = CLI_COMMAND_OPTIONS.filter((name) => args.isArgSet(name));
    if (commands.length > 1) throw new CliError(`Only one of ${commands.map((n) => `-${n}`).join(', ')} may be specified.`);

    const wallet = rpcWalletName(args);
    let handler: RequestHandler | undefined;
    let method = '';
    if (args.getBoolArg('getinfo', false)) {
      handler = new GetinfoRequestHandler();
    } else if (args.getBoolArg('netinfo', false)) {
      if (words.length > 0 && (words[0] === 'h' || words[0] === 'help')) {
        io.stdout(`${NETINFO_HELP}\n`);
        return 0;
      }
      handler = new NetinfoRequestHandler(CHAIN_SUFFIX[setup.chain], DAEMON_PROGRAM, io.version, () => Math.floor(io.now() / 1000));
    } else if (args.getBoolArg('generate', false)) {
      const reply = await connectAndCallRpc(rpc, new DefaultRequestHandler(rpcConvertValues), 'getnewaddress', [], wallet);
      const error = findValue(reply, 'error');
      if (isNull(error)) {
        const address = getStr(findValue(reply, 'result'));
        words.splice(0, words.length, ...generateToAddressArgs(address, words));
        handler = new GenerateToAddressRequestHandler();
      } else {
        ({ text: print, code: status } = errorText(error));
      }
    } else if (args.getBoolArg('addrinfo', false)) {
      handler = new AddrinfoRequestHandler();
    } else {
      const named = args.getBoolArg('named', false);
      handler = new DefaultRequestHandler(named ? rpcConvertNamedValues : rpcConvertValues);
      if (words.length < 1) throw new CliError('too few parameters (need at least command)');
      method = words.shift()!;
    }

    if (status === 0 && handler !== undefined) {
      const reply = await connectAndCallRpc(rpc, handler, method, words, wallet);
      let result = findValue(reply, 'result');
      const error = findValue(reply, 'error');
      if (isNull(error)) {
        if (args.getBoolArg('getinfo', false)) {
          result = await getInfoText(rpc, result, wallet, args.getArg('color') ?? DEFAULT_COLOR_SETTING, io.stdoutIsTerminal);
        }
        // ParseResult: null prints nothing, a string raw, anything else indented by two.
        if (!isNull(result)) print = result.type === 'str' ? result.value : writeJson(result, 2);
      } else {
        ({ text: print, code: status } = errorText(error));
      }
    }
  } catch (err) {
    if (!(err instanceof CliError || err instanceof UniValueTypeError)) throw err;
    print = `error: ${err.message}`;
    status = 1;
  }
  if (print !== '') (status === 0 ? io.stdout : io.stderr)(`${print}\n`);
  return status;
}

/**
 * Runs the client on `argv` (the words after the program name); resolves to the status
 * main() returns (the process exits with its low 8 bits, as a C program's does).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const setup = appInit(argv, io);
  if (typeof setup === 'number') return setup;
  return commandLineRpc(argv, io, setup);
}
