/**
 * External signers (Core's ExternalSigner and RunCommandParseJSON): a hardware wallet driven
 * through an HWI-compatible command (-signer). Each call runs `<command> [args]`, reads the
 * first line of its stdout as JSON, and fails with Core's texts when the command cannot run,
 * exits non-zero or answers something else.
 */
import { spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import { decodeBase64Psbt, encodePsbt, type Psbt } from '../psbt/index.js';
import { toHex } from '../primitives/index.js';
import type { ChainName } from '../script/index.js';

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

/** The command split on whitespace as cpp-subprocess splits it, run without a shell; `stdin` written to it when given. */
function runCommand(command: string, stdin: string): Promise<CommandOutput> {
  const [file, ...argv] = command.split(/[ \t]+/).filter((word) => word !== '');
  return new Promise((resolve, reject) => {
    const child = spawn(file ?? '', argv, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    // A command that exits without reading its input must not fail the call.
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
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
export async function runCommandParseJson(command: string, stdin = ''): Promise<unknown> {
  const { status, stdout, stderr } = await runCommand(command, stdin);
  if (status !== 0) throw new Error(`RunCommandParseJSON error: process(${command}) returned ${status}: ${firstLine(stderr)}\n`);
  const line = firstLine(stdout);
  try {
    return JSON.parse(line);
  } catch {
    throw new Error(`Unable to parse JSON: ${line}`);
  }
}

/** UniValue's type names, for a member of the wrong type (Core's get_str on a number...). */
function univalueTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'number' ? 'number' : 'string';
}

const memberOf = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;

export class ExternalSigner {
  constructor(
    readonly command: string,
    /** Passed as --chain: the names are Core's ChainTypeToString. */
    readonly chain: ChainName,
    /** The master key fingerprint, hex. */
    readonly fingerprint: string,
    readonly name: string,
  ) {}

  /** ExternalSigner::Enumerate: `<command> enumerate`; a duplicate fingerprint ends the list. */
  static async enumerate(command: string, chain: ChainName): Promise<ExternalSigner[]> {
    const result = await runCommandParseJson(`${command} enumerate`);
    if (!Array.isArray(result)) throw new Error(`'${command}' received invalid response, expected array of signers`);
    const signers: ExternalSigner[] = [];
    for (const entry of result as unknown[]) {
      const error = memberOf(entry, 'error');
      if (error !== undefined && error !== null) {
        if (typeof error !== 'string') throw new Error(`'${command}' error`);
        throw new Error(`'${command}' error: ${error}`);
      }
      const fingerprint = memberOf(entry, 'fingerprint');
      if (fingerprint === undefined || fingerprint === null) throw new Error(`'${command}' received invalid response, missing signer fingerprint`);
      if (typeof fingerprint !== 'string') throw new Error(`JSON value of type ${univalueTypeName(fingerprint)} is not of expected type string`);
      if (signers.some((s) => s.fingerprint === fingerprint)) break;
      const model = memberOf(entry, 'model');
      signers.push(new ExternalSigner(command, chain, fingerprint, typeof model === 'string' ? model : ''));
    }
    return signers;
  }

  #prefix(): string {
    return `${this.command} --fingerprint ${this.fingerprint} --chain ${this.chain}`;
  }

  /**
   * ExternalSignerScriptPubKeyMan::DisplayAddress: `displayaddress --desc <descriptor>`, which
   * must echo `address`; throws Core's text when the device errs, echoes nothing or another address.
   */
  async displayAddress(descriptor: string, address: string): Promise<void> {
    const shown = await runCommandParseJson(`${this.#prefix()} displayaddress --desc ${descriptor}`);
    const error = memberOf(shown, 'error');
    if (typeof error === 'string') throw new Error(`Signer returned error: ${error}`);
    const echoed = memberOf(shown, 'address');
    if (typeof echoed !== 'string') throw new Error('Signer did not echo address');
    if (echoed !== address) throw new Error(`Signer echoed unexpected address ${echoed}`);
  }

  /** `getdescriptors --account <n>`: the signer's answer as it gave it. */
  getDescriptors(account: number): Promise<unknown> {
    return runCommandParseJson(`${this.#prefix()} getdescriptors --account ${account}`);
  }

  /**
   * ExternalSigner::SignTransaction: refused when no input names the signer's fingerprint in
   * its BIP32 (or taproot BIP32) paths; otherwise `signtx <base64>` on the command's stdin
   * and the PSBT it answers, or its error text.
   */
  async signTransaction(psbt: Psbt): Promise<{ readonly ok: true; readonly psbt: Psbt } | { readonly ok: false; readonly error: string }> {
    const encoded = encodePsbt(psbt);
    const matches = psbt.inputs.some(
      (input) =>
        [...input.hdKeypaths.values()].some((origin) => toHex(origin.fingerprint) === this.fingerprint) ||
        [...input.tapBip32Paths.values()].some((path) => toHex(path.origin.fingerprint) === this.fingerprint),
    );
    if (!matches) return { ok: false, error: `Signer fingerprint ${this.fingerprint} does not match any of the inputs:\n${encoded}` };
    const result = await runCommandParseJson(`${this.command} --stdin --fingerprint ${this.fingerprint} --chain ${this.chain}`, `signtx ${encoded}`);
    const error = memberOf(result, 'error');
    if (typeof error === 'string') return { ok: false, error };
    const answered = memberOf(result, 'psbt');
    if (typeof answered !== 'string') return { ok: false, error: 'Unexpected result from signer' };
    const decoded = decodeBase64Psbt(answered);
    if (typeof decoded === 'string') return { ok: false, error: `TX decode failed ${decoded}` };
    return { ok: true, psbt: decoded };
  }
}

/**
 * ExternalSignerScriptPubKeyMan::GetExternalSigner: the one signer -signer lists, with
 * Core's texts when -signer is not set, none is connected or several are.
 */
export async function connectedSigner(command: string, chain: ChainName): Promise<ExternalSigner> {
  if (command === '') throw new Error('restart bitcoind with -signer=<cmd>');
  const signers = await ExternalSigner.enumerate(command, chain);
  if (signers.length === 0) throw new Error('No external signers found');
  if (signers.length > 1) throw new Error('More than one external signer found. Please connect only one at a time.');
  return signers[0]!;
}
