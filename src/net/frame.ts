/**
 * The v1 transport (Core's V1Transport): each message is framed as network magic,
 * a NUL-padded ASCII command, the payload length and the first four bytes of the
 * payload's SHA-256d. FrameDecoder takes bytes as they arrive from a socket and hands out
 * whole messages; it checks the magic, the command's form and the length limit from the
 * header alone, before buffering a payload, so a hostile length costs nothing.
 */
import { bytesEqual, sha256d } from '../primitives/index.js';
import { COMMAND_SIZE, MAX_PROTOCOL_MESSAGE_LENGTH, MESSAGE_HEADER_SIZE } from './protocol.js';

export interface Frame {
  readonly command: string;
  readonly payload: Uint8Array;
}

/**
 * Why a byte stream stopped being a valid v1 stream. `checksum` is recoverable (the
 * message is dropped, as Core does); the others leave the stream unusable.
 */
export type FrameErrorKind = 'magic' | 'command' | 'oversized' | 'checksum';

export class FrameError extends Error {
  override readonly name = 'FrameError';
  constructor(
    readonly kind: FrameErrorKind,
    message: string,
    /** The command of the message concerned, when the header was readable. */
    readonly command?: string,
    /** The whole message's size, header included, when it was read to the end (checksum errors). */
    readonly messageBytes?: number,
  ) {
    super(message);
  }
}

/** Core's CMessageHeader::IsCommandValid: printable ASCII, then only NUL bytes. */
function readCommand(header: Uint8Array): string | null {
  let end = 4;
  while (end < 4 + COMMAND_SIZE && header[end] !== 0) {
    const c = header[end]!;
    if (c < 0x20 || c > 0x7e) return null;
    end++;
  }
  for (let i = end; i < 4 + COMMAND_SIZE; i++) if (header[i] !== 0) return null;
  return String.fromCharCode(...header.subarray(4, end));
}

export function encodeFrame(magic: Uint8Array, command: string, payload: Uint8Array): Uint8Array {
  if (magic.length !== 4) throw new RangeError('network magic is 4 bytes');
  if (command.length > COMMAND_SIZE || !/^[\x20-\x7e]*$/.test(command)) throw new RangeError(`invalid command "${command}"`);
  if (payload.length > MAX_PROTOCOL_MESSAGE_LENGTH) throw new RangeError(`payload of ${payload.length} bytes exceeds the protocol limit`);
  const type = new Uint8Array(command.length);
  for (let i = 0; i < command.length; i++) type[i] = command.charCodeAt(i);
  return encodeUncheckedFrame(magic, type, payload);
}

/**
 * A frame with any message type of up to 12 bytes and a payload of any size, as Core's
 * sendmsgtopeer puts on the wire: the receiver, not the sender, judges it.
 */
export function encodeUncheckedFrame(magic: Uint8Array, type: Uint8Array, payload: Uint8Array): Uint8Array {
  if (type.length > COMMAND_SIZE) throw new RangeError(`a message type is at most ${COMMAND_SIZE} bytes`);
  const out = new Uint8Array(MESSAGE_HEADER_SIZE + payload.length);
  out.set(magic, 0);
  out.set(type, 4);
  const view = new DataView(out.buffer);
  view.setUint32(16, payload.length, true);
  out.set(sha256d(payload).subarray(0, 4), 20);
  out.set(payload, MESSAGE_HEADER_SIZE);
  return out;
}

export class FrameDecoder {
  #buffered: Uint8Array[] = [];
  #length = 0;
  /** The header of the message whose payload is awaited. */
  #header: { command: string; size: number; checksum: Uint8Array } | null = null;
  #failed: FrameError | null = null;

  constructor(private readonly magic: Uint8Array) {
    if (magic.length !== 4) throw new RangeError('network magic is 4 bytes');
  }

  /** Bytes received and not yet part of a returned frame. */
  get bufferedBytes(): number {
    return this.#length;
  }

  /**
   * Adds received bytes and returns the messages they complete, in order. A message with a
   * bad checksum is returned as a FrameError in its place; any other error is thrown, and
   * every later call throws it again.
   */
  push(chunk: Uint8Array): (Frame | FrameError)[] {
    if (this.#failed) throw this.#failed;
    if (chunk.length > 0) {
      this.#buffered.push(chunk);
      this.#length += chunk.length;
    }
    const out: (Frame | FrameError)[] = [];
    for (;;) {
      if (!this.#header) {
        if (this.#length < MESSAGE_HEADER_SIZE) return out;
        const header = this.#take(MESSAGE_HEADER_SIZE);
        if (!bytesEqual(header.subarray(0, 4), this.magic)) throw this.#fail(new FrameError('magic', 'message does not start with the network magic'));
        const command = readCommand(header);
        if (command === null) throw this.#fail(new FrameError('command', 'message command is not printable ASCII padded with NUL bytes'));
        const size = new DataView(header.buffer, header.byteOffset, MESSAGE_HEADER_SIZE).getUint32(16, true);
        if (size > MAX_PROTOCOL_MESSAGE_LENGTH) {
          throw this.#fail(new FrameError('oversized', `message ${command} claims ${size} bytes, over the ${MAX_PROTOCOL_MESSAGE_LENGTH}-byte limit`, command));
        }
        this.#header = { command, size, checksum: header.slice(20, 24) };
      }
      const { command, size, checksum } = this.#header;
      if (this.#length < size) return out;
      const payload = this.#take(size);
      this.#header = null;
      if (!bytesEqual(sha256d(payload).subarray(0, 4), checksum)) {
        out.push(new FrameError('checksum', `message ${command} has a bad checksum`, command, MESSAGE_HEADER_SIZE + size));
      } else {
        out.push({ command, payload });
      }
    }
  }

  #fail(err: FrameError): FrameError {
    this.#failed = err;
    this.#buffered = [];
    this.#length = 0;
    return err;
  }

  /**
   * The first `n` buffered bytes. When they lie within one received chunk they are a view
   * of it (no copy: a block arriving in one read is not allocated twice); otherwise a new
   * array. Received chunks are never written again, so a view stays valid.
   */
  #take(n: number): Uint8Array {
    const head = this.#buffered[0];
    if (head && head.length >= n) {
      const out = head.subarray(0, n);
      if (n === head.length) this.#buffered.shift();
      else this.#buffered[0] = head.subarray(n);
      this.#length -= n;
      return out;
    }
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const head = this.#buffered[0]!;
      const used = Math.min(head.length, n - filled);
      out.set(head.subarray(0, used), filled);
      filled += used;
      if (used === head.length) this.#buffered.shift();
      else this.#buffered[0] = head.subarray(used);
    }
    this.#length -= n;
    return out;
  }
}
