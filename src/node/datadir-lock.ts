/**
 * Core's LockDirectories and PID file. The network's data directory and its blocks
 * directory each get a `.lock` file holding a POSIX record lock for the life of the process
 * (native/file_lock.c): a second node, tsbtcd or bitcoind, on the same directory stops at
 * start-up with Core's message instead of writing the same LMDB environments and block
 * files. The PID file (-pid, default bitcoind.pid in the network's directory; -nopid none)
 * holds the coordinator's process id until a clean shutdown removes it.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InitError, type NodeConfig } from './config.js';

/** dist/native/file_lock.node, beside dist/src (this module is dist/src/node/datadir-lock.js or a bundle beside it). */
const FILE_LOCK_ADDON = fileURLToPath(new URL('../../native/file_lock.node', import.meta.url));

/** Core's BITCOIN_PID_FILENAME. */
const PID_FILE_NAME = 'bitcoind.pid';

interface FileLockAddon {
  tryLock(fd: number): boolean;
}

function loadAddon(): FileLockAddon {
  try {
    return createRequire(import.meta.url)(FILE_LOCK_ADDON) as FileLockAddon;
  } catch (err) {
    throw new InitError(`Cannot load the data directory lock from ${FILE_LOCK_ADDON} (run make build): ${(err as Error).message}`);
  }
}

/** Descriptors of the held .lock files: open for the life of the process, so the locks hold. */
const held: number[] = [];

/** Core's LockDirectory: the directory's .lock, created if missing, locked or an init error. */
function lockDirectory(addon: FileLockAddon, dir: string, productName: string): void {
  let fd: number;
  try {
    fs.mkdirSync(dir, { recursive: true });
    fd = fs.openSync(path.join(dir, '.lock'), 'a', 0o600);
  } catch {
    throw new InitError(`Cannot write to directory '${dir}'; check permissions.`);
  }
  if (!addon.tryLock(fd)) {
    fs.closeSync(fd);
    throw new InitError(`Cannot obtain a lock on directory ${dir}. ${productName} is probably already running.`);
  }
  held.push(fd);
}

/** Core's LockDirectories: the network's data directory, then its blocks directory (-blocksdir's, checked first). */
export function lockDataDirectories(config: NodeConfig, productName: string): void {
  const blocksDirError = config.blocksDirError();
  if (blocksDirError) throw new InitError(blocksDirError);
  const addon = loadAddon();
  lockDirectory(addon, config.netDir, productName);
  lockDirectory(addon, config.blocksDir, productName);
}

function pidFilePath(config: NodeConfig): string | undefined {
  if (config.args.isArgNegated('pid')) return undefined;
  return config.netPath(config.args.getPathArg('pid', PID_FILE_NAME) ?? PID_FILE_NAME);
}

let pidFileWritten: string | undefined;

/** Core's SysErrorString: strerror's text and the number ("No such file or directory (2)"). */
function sysErrorString(err: NodeJS.ErrnoException): string {
  const text = err.message.replace(/^[A-Z0-9]+: /, '').replace(/, \w+ '.*'$/, '');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)} (${Math.abs(err.errno ?? 0)})`;
}

/** Core's CreatePidFile: the process id and a newline, or an init error naming the file. */
export function createPidFile(config: NodeConfig): void {
  const file = pidFilePath(config);
  if (file === undefined) return;
  try {
    fs.writeFileSync(file, `${process.pid}\n`);
  } catch (err) {
    throw new InitError(`Unable to create the PID file '${file}': ${sysErrorString(err as NodeJS.ErrnoException)}`);
  }
  pidFileWritten = file;
}

/** Core's RemovePidFile, at the end of a shutdown. */
export function removePidFile(log: (message: string) => void): void {
  if (pidFileWritten === undefined) return;
  try {
    fs.rmSync(pidFileWritten);
  } catch (err) {
    log(`Unable to remove PID file (${pidFileWritten}): ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'File does not exist' : (err as Error).message}`);
  }
  pidFileWritten = undefined;
}
