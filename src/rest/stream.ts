/**
 * Large REST bodies that already exist as bytes (a block's, headers' JSON) written with
 * uWS backpressure: each chunk goes out with tryEnd(chunk, totalSize) and, when the socket
 * is full, the rest of it follows from onWritable at the offset uWS reports. Nothing is
 * copied into uWS's own buffer, so the body is held once however slow the client. A
 * client that disconnects stops the stream at once and the body is released.
 */
import type { HttpResponse } from '@trufflesuite/uws-js-unofficial';
import type { BodyWriter } from '../http/index.js';

/** Bodies up to this size go out in one end() call: streaming only pays off above it. */
export const STREAM_THRESHOLD_BYTES = 256 * 1024;

class StreamedBody implements BodyWriter {
  private res: HttpResponse | undefined;
  private finished: (() => void) | undefined;
  private chunk: Uint8Array | undefined;
  /** Body offset of `chunk`'s first byte. */
  private chunkStart = 0;
  private stopped = false;

  constructor(
    readonly size: number,
    private nextChunk: (() => Uint8Array | undefined) | undefined,
  ) {}

  start(res: HttpResponse, finished: () => void): void {
    this.res = res;
    this.finished = finished;
    if (this.size === 0) {
      res.end();
      this.stop();
      return;
    }
    res.onWritable(() => this.pump());
    this.pump();
  }

  abort(): void {
    this.stop();
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.chunk = undefined;
    this.nextChunk = undefined;
    this.res = undefined;
    const finished = this.finished;
    this.finished = undefined;
    finished?.();
  }

  /** Writes until the body is out (true) or the socket is full (false: onWritable resumes). */
  private pump(): boolean {
    const res = this.res;
    if (this.stopped || !res) return true;
    for (;;) {
      if (!this.chunk) {
        this.chunk = this.nextChunk?.();
        if (!this.chunk) {
          // The source ended short of `size`: a bug; do not leave the client waiting.
          res.close();
          this.stop();
          return true;
        }
      }
      const written = res.getWriteOffset() - this.chunkStart;
      const [ok, done] = res.tryEnd(written === 0 ? this.chunk : this.chunk.subarray(written), this.size);
      if (done) {
        this.stop();
        return true;
      }
      if (!ok) return false;
      this.chunkStart += this.chunk.length;
      this.chunk = undefined;
    }
  }
}

/**
 * `bytes` as they are: offered whole, uWS takes what the socket accepts (tryEnd copies
 * nothing it cannot send) and onWritable resumes from its write offset.
 */
export function bytesBody(bytes: Uint8Array): BodyWriter {
  let given = false;
  return new StreamedBody(bytes.length, () => {
    if (given) return undefined;
    given = true;
    return bytes;
  });
}
