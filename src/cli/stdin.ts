/**
 * Lines from standard input as std::getline gives them to bitcoin-cli: split on '\n'
 * (a '\r' stays), the last line counted only when it is not empty, none after EOF. On a
 * terminal a secret (the RPC password, a wallet passphrase) is read without echo.
 */
import type { Readable } from 'node:stream';

export interface LineSource {
  /** The next line, or undefined at end of input. */
  readLine(options?: { secret?: boolean }): Promise<string | undefined>;
  /** Whether input is a terminal (Core's StdinTerminal). */
  readonly isTerminal: boolean;
  /** Stop reading so the process can exit. */
  close(): void;
}

interface TtyReadable extends Readable {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

/** Lines from a stream (process.stdin, or any Readable in tests). */
export function streamLines(input: TtyReadable): LineSource {
  let buffered = '';
  let ended = false;
  let waiting: (() => void) | undefined;
  let listening = false;
  const wake = () => {
    const w = waiting;
    waiting = undefined;
    w?.();
  };
  const onData = (chunk: Buffer | string) => {
    buffered += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    wake();
  };
  const onEnd = () => {
    ended = true;
    wake();
  };
  const listen = () => {
    if (listening) return;
    listening = true;
    input.on('data', onData);
    input.on('end', onEnd);
    input.on('error', onEnd);
    input.resume();
  };
  const more = () => new Promise<void>((resolve) => (waiting = resolve));

  /** A secret typed on a terminal in raw mode: no echo, Backspace edits, Enter ends, Ctrl-D on an empty line is EOF. */
  const readSecret = async (): Promise<string | undefined> => {
    input.setRawMode?.(true);
    try {
      let line = '';
      for (;;) {
        while (buffered.length === 0 && !ended) await more();
        if (buffered.length === 0) return line === '' ? undefined : line;
        const c = buffered[0]!;
        buffered = buffered.slice(1);
        if (c === '\r' || c === '\n') return line;
        if (c === '\x03') process.kill(process.pid, 'SIGINT');
        else if (c === '\x04') {
          if (line === '') return undefined;
        } else if (c === '\x7f' || c === '\b') line = line.slice(0, -1);
        else line += c;
      }
    } finally {
      input.setRawMode?.(false);
    }
  };

  return {
    isTerminal: input.isTTY === true,
    async readLine(options = {}) {
      listen();
      if (options.secret && input.isTTY && input.setRawMode) return readSecret();
      for (;;) {
        const nl = buffered.indexOf('\n');
        if (nl >= 0) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          return line;
        }
        if (ended) {
          if (buffered === '') return undefined;
          const line = buffered;
          buffered = '';
          return line;
        }
        await more();
      }
    },
    close() {
      if (!listening) return;
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onEnd);
      input.pause();
    },
  };
}
