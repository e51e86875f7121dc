/**
 * enumeratesigners (Core's rpc/external_signer.cpp): runs `<-signer> enumerate` and lists
 * the devices it reports, with ExternalSigner::Enumerate's checks and messages.
 */
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { RPC_MISC_ERROR, RpcError } from './errors.js';
import { typeMismatchMessage } from './json.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';

/** strerror's text for the errors an exec can fail with (Core reports "execve failed: <text> (<errno>)"). */
const EXEC_ERROR_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'No such file or directory',
  EACCES: 'Permission denied',
  ENOEXEC: 'Exec format error',
  ENOTDIR: 'Not a directory',
  ELOOP: 'Too many levels of symbolic links',
  ENAMETOOLONG: 'File name too long',
  E2BIG: 'Argument list too long',
  ENOMEM: 'Cannot allocate memory',
};

interface CommandOutput {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The command split on whitespace as cpp-subprocess splits it, run without a shell. */
function runCommand(command: string): Promise<CommandOutput> {
  const [file, ...argv] = command.split(/[ \t]+/).filter((word) => word !== '');
  return new Promise((resolve, reject) => {
    const child = spawn(file ?? '', argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? '';
      const errno = (osConstants.errno as Record<string, number>)[code] ?? 0;
      reject(new Error(`execve failed: ${EXEC_ERROR_TEXT[code] ?? code} (${errno})`));
    });
    child.on('close', (status, signal) =>
      resolve({ status: status ?? (signal ? 128 + (osConstants.signals[signal] ?? 0) : 0), stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }),
    );
  });
}

const firstLine = (text: string): string => text.split('\n', 1)[0]!;

/** Core's RunCommandParseJSON: the first line of stdout as JSON; a failing command's first stderr line in the error. */
async function runCommandParseJson(command: string): Promise<unknown> {
  const { status, stdout, stderr } = await runCommand(command);
  if (status !== 0) throw new Error(`RunCommandParseJSON error: process(${command}) returned ${status}: ${firstLine(stderr)}\n`);
  const line = firstLine(stdout);
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`Unable to parse JSON: ${line}`);
  }
}

interface Signer {
  readonly fingerprint: string;
  readonly name: string;
}

/** ExternalSigner::Enumerate: a duplicate fingerprint ends the list. */
async function enumerateSigners(command: string): Promise<Signer[]> {
  const result = await runCommandParseJson(`${command} enumerate`);
  if (!Array.isArray(result)) throw new Error(`'${command}' received invalid response, expected array of signers`);
  const signers: Signer[] = [];
  for (const entry of result as unknown[]) {
    const member = (key: string): unknown => (entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? (entry as Record<string, unknown>)[key] : undefined);
    const error = member('error');
    if (error !== undefined && error !== null) {
      if (typeof error !== 'string') throw new Error(`'${command}' error`);
      throw new Error(`'${command}' error: ${error}`);
    }
    const fingerprint = member('fingerprint');
    if (fingerprint === undefined || fingerprint === null) throw new Error(`'${command}' received invalid response, missing signer fingerprint`);
    if (typeof fingerprint !== 'string') throw new Error(typeMismatchMessage(fingerprint, 'string'));
    if (signers.some((s) => s.fingerprint === fingerprint)) break;
    const model = member('model');
    signers.push({ fingerprint, name: typeof model === 'string' ? model : '' });
  }
  return signers;
}

/** `signer` is -signer's value, '' when not given. */
export function signerMethods(signer: string): RpcMethod[] {
  const enumeratesigners = defineRpcMethod({
    name: 'enumeratesigners',
    category: 'signer',
    description: 'Returns a list of external signers from -signer.',
    args: [],
    results: [
      {
        type: 'obj',
        inner: [
          {
            type: 'arr',
            key: 'signers',
            inner: [
              {
                type: 'obj',
                inner: [
                  { type: 'str_hex', key: 'fingerprint', description: 'Master key fingerprint' },
                  { type: 'str', key: 'name', description: 'Device name' },
                ],
              },
            ],
          },
        ],
      },
    ],
    examples: helpExampleCli('enumeratesigners', '') + helpExampleRpc('enumeratesigners', ''),
    handler: async () => {
      if (signer === '') throw new RpcError(RPC_MISC_ERROR, 'Error: restart bitcoind with -signer=<cmd>');
      try {
        return { signers: await enumerateSigners(signer) };
      } catch (err) {
        throw new RpcError(RPC_MISC_ERROR, (err as Error).message);
      }
    },
  });
  return [enumeratesigners];
}
