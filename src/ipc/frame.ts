/**
 * Frames on the coordinator ⇄ front-end pipe: a 4-byte big-endian payload length, then
 * one msgpackr-encoded message. Nothing else crosses the pipe, and nothing is persisted.
 */
import { Packr } from 'msgpackr';

/** Large enough for a 32 MiB request body or a multi-megabyte JSON result, small enough to refuse garbage. */
export const MAX_FRAME_BYTES = 512 * 1024 * 1024;

// Records (shared structure definitions) would make frames depend on earlier ones;
// plain maps keep every frame self-contained.
const packr = new Packr({ useRecords: false });

export class FrameError extends Error {
  override readonly name = 'FrameError';
}

export function encodeFrame(message: unknown): Buffer {
  const payload = packr.pack(message);
  if (payload.length > MAX_FRAME_BYTES) throw new FrameError(`IPC message of ${payload.length} bytes exceeds ${MAX_FRAME_BYTES}`);
  const frame = Buffer.allocUnsafe(4 + payload.length);
  frame.writeUInt32BE(payload.length, 0);
  // The packer reuses its buffer between calls: copy before the next pack.
  payload.copy(frame, 4);
  return frame;
}

/** Reassembles frames from arbitrary chunks of the byte stream. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Feeds bytes; returns every message completed by them, in order. */
  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: unknown[] = [];
    for (;;) {
      if (this.buffered < 4) return out;
      const head = this.contiguous(4);
      const length = head.readUInt32BE(0);
      if (length > MAX_FRAME_BYTES) throw new FrameError(`IPC frame of ${length} bytes exceeds ${MAX_FRAME_BYTES}`);
      if (this.buffered < 4 + length) return out;
      const frame = this.contiguous(4 + length);
      out.push(packr.unpack(frame.subarray(4, 4 + length)));
      this.consume(4 + length);
    }
  }

  /** The first n buffered bytes as one buffer (joining chunks only when needed). */
  private contiguous(n: number): Buffer {
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!;
  }

  private consume(n: number): void {
    const first = this.chunks[0]!;
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.buffered -= n;
  }
}
