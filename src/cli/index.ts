/**
 * cli: the client programs that ship with the node, drop-ins for Bitcoin Core's —
 * tsbtcd-cli (bitcoin-cli: options and bitcoin.conf, Core's argument conversion table,
 * -named/-stdin/-rpcwait/-rpcwallet/-getinfo/-netinfo/-generate/-addrinfo, Core's output
 * and error texts and exit statuses) and tsbtcd-rpcauth (share/rpcauth/rpcauth.py).
 */
import { createRequire } from 'node:module';
import { runCli, type CliIo } from './app.js';
import { nodeHttpTransport } from './http-client.js';
import { runRpcauth } from './rpcauth.js';
import { streamLines } from './stdin.js';

export { runCli, type CliIo } from './app.js';
export { runRpcauth, passwordToHmac, rpcauthValue, type RpcauthIo } from './rpcauth.js';
export { rpcConvertValues, rpcConvertNamedValues, CliError } from './convert.js';
export { RPC_CONVERT_PARAMS, paramAtPosition, paramNamed, type ConvertParam, type ParamFormat } from './convert-table.js';
export { readJson, writeJson, type UniValue } from './univalue.js';
export { splitHostPort, uriEncode } from './rpc-call.js';
export { streamLines, type LineSource } from './stdin.js';
export { nodeHttpTransport, type Transport, type HttpPost, type HttpReply, HttpTransportError } from './http-client.js';
export { formatGetInfo } from './getinfo.js';

/** `v<package version>`, Core's FormatFullVersion for tsbtcd. */
export function clientVersion(): string {
  const pkg = createRequire(import.meta.url)('../../../package.json') as { version: string };
  return `v${pkg.version}`;
}

const write = (stream: NodeJS.WriteStream) => (text: string) => {
  stream.write(text);
};

/** The process's side of the client. */
export function processIo(): CliIo {
  return {
    stdout: write(process.stdout),
    stderr: write(process.stderr),
    stdin: streamLines(process.stdin),
    stdoutIsTerminal: process.stdout.isTTY === true,
    env: process.env,
    transport: nodeHttpTransport,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
    version: clientVersion(),
  };
}

/** Exits once stdout and stderr have taken everything written to them. */
function exitWith(status: number): void {
  // A C program's main() returning N exits with N's low 8 bits.
  const code = status & 0xff;
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

/** bin/tsbtcd-cli. */
export function runCliFromCommandLine(): void {
  const io = processIo();
  runCli(process.argv.slice(2), io).then(
    (status) => {
      io.stdin.close();
      exitWith(status);
    },
    (err: Error) => {
      process.stderr.write(`error: ${err.stack ?? err.message}\n`);
      exitWith(1);
    },
  );
}

/** bin/tsbtcd-rpcauth. */
export function runRpcauthFromCommandLine(): void {
  const stdin = streamLines(process.stdin);
  runRpcauth(process.argv.slice(2), { stdout: write(process.stdout), stderr: write(process.stderr), stdin }).then(
    (status) => {
      stdin.close();
      exitWith(status);
    },
    (err: Error) => {
      process.stderr.write(`${err.stack ?? err.message}\n`);
      exitWith(1);
    },
  );
}
