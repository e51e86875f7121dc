/**
 * Core's runCommand for the notification options (-blocknotify, -startupnotify,
 * -shutdownnotify, -alertnotify, -walletnotify): the text run by /bin/sh as system() runs
 * it, a failure logged as Core logs it. Resolves when the command has ended; callers that
 * let it run free (Core's detached threads) do not wait.
 */
import { spawn } from 'node:child_process';

export function runCommand(command: string, log: (message: string) => void): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], { stdio: 'ignore', detached: true });
    child.on('error', (err) => {
      log(`runCommand error: system(${command}) returned ${err.message}`);
      resolve();
    });
    child.on('exit', (code, signal) => {
      // system() returns the wait status: the exit code shifted left by 8 bits.
      if (code !== 0) log(`runCommand error: system(${command}) returned ${code !== null ? code << 8 : signal}`);
      resolve();
    });
    child.unref();
  });
}

/** Core's ShellEscape: the text single-quoted for /bin/sh. */
export function shellEscape(text: string): string {
  return `'${text.replace(/'/g, `'"'"'`)}'`;
}
