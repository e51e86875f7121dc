/**
 * A message channel over one duplex stream (the extra stdio pipe a child process is
 * spawned with): frames out, frames in, and one close notification when either side
 * goes away or the stream carries something that is not a frame.
 */
import type { Duplex } from 'node:stream';
import { FrameDecoder, encodeFrame } from './frame.js';

export class IpcChannel<In, Out> {
  private closed = false;
  private readonly decoder = new FrameDecoder();

  constructor(
    private readonly stream: Duplex,
    onMessage: (message: In) => void,
    private readonly onClose: (reason: string) => void,
  ) {
    stream.on('data', (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = this.decoder.push(chunk);
      } catch (err) {
        this.close(`protocol error: ${(err as Error).message}`);
        return;
      }
      for (const m of messages) {
        if (this.closed) return;
        onMessage(m as In);
      }
    });
    stream.on('error', (err) => this.close(`pipe error: ${err.message}`));
    stream.on('close', () => this.close('pipe closed'));
    stream.on('end', () => this.close('pipe closed'));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Queues a message; false once the channel is closed (the message is dropped). */
  send(message: Out): boolean {
    if (this.closed) return false;
    this.stream.write(encodeFrame(message));
    return true;
  }

  close(reason = 'closed'): void {
    if (this.closed) return;
    this.closed = true;
    this.stream.destroy();
    this.onClose(reason);
  }
}
