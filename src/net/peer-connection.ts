/**
 * One TCP connection speaking the v1 transport (Core's CNode with its V1Transport): frames
 * out, frames in, and the accounting getpeerinfo and getnettotals report — bytes per
 * message type including the 24-byte header, last send and receive times. A framing error
 * other than a bad checksum ends the connection; a bad checksum drops only its message.
 */
import type { Socket } from 'node:net';
import { encodeFrame, encodeUncheckedFrame, FrameDecoder, FrameError, type Frame } from './frame.js';
import { MESSAGE_HEADER_SIZE } from './protocol.js';

/** Core's ALL_NET_MESSAGE_TYPES: others are counted under "*other*". */
const KNOWN_MESSAGE_TYPES = new Set([
  'version', 'verack', 'addr', 'addrv2', 'sendaddrv2', 'inv', 'getdata', 'merkleblock', 'getblocks', 'getheaders', 'tx', 'headers',
  'block', 'getaddr', 'mempool', 'ping', 'pong', 'notfound', 'filterload', 'filteradd', 'filterclear', 'sendheaders', 'feefilter',
  'sendcmpct', 'cmpctblock', 'getblocktxn', 'blocktxn', 'getcfilters', 'cfilter', 'getcfheaders', 'cfheaders', 'getcfcheckpt',
  'cfcheckpt', 'wtxidrelay', 'sendtxrcncl',
]);
export const OTHER_MESSAGE_TYPE = '*other*';


export interface ConnectionTraffic {
  /** A whole message arrived (already counted). */
  message(frame: Frame): void;
  /** The stream is unusable, or the socket ended: called once. */
  closed(reason: string): void;
  /** A message was dropped for its bad checksum. */
  corrupt(error: FrameError): void;
  /** Bytes moved, for the node's totals. */
  bytes(direction: 'sent' | 'received', count: number): void;
  /** -capturemessages: each message as it is sent or handed on to be processed. */
  capture?(messageType: string, payload: Uint8Array, incoming: boolean): void;
}

export class PeerConnection {
  readonly #decoder: FrameDecoder;
  readonly sentPerMessage = new Map<string, number>();
  readonly receivedPerMessage = new Map<string, number>();
  bytesSent = 0;
  bytesReceived = 0;
  /** Seconds since the epoch (0: never). */
  lastSend = 0;
  lastReceive = 0;
  #closed = false;
  #closeReason = '';
  #onClosed: (() => void)[] = [];

  constructor(
    readonly socket: Socket,
    private readonly magic: Uint8Array,
    private readonly traffic: ConnectionTraffic,
    private readonly now: () => number,
  ) {
    this.#decoder = new FrameDecoder(magic);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', (err) => this.close(`socket error: ${err.message}`));
    socket.on('close', () => this.close('connection closed by peer'));
    socket.on('end', () => this.close('connection closed by peer'));
    // A socket handed over paused (after a SOCKS5 handshake) starts flowing now.
    socket.resume();
  }

  get closed(): boolean {
    return this.#closed;
  }

  get closeReason(): string {
    return this.#closeReason;
  }


  onClose(listener: () => void): void {
    if (this.#closed) listener();
    else this.#onClosed.push(listener);
  }

  send(command: string, payload: Uint8Array): void {
    if (this.#closed) return;
    this.traffic.capture?.(command, payload, false);
    this.#write(encodeFrame(this.magic, command, payload), KNOWN_MESSAGE_TYPES.has(command) ? command : OTHER_MESSAGE_TYPE);
  }

  /** sendmsgtopeer: any type (its UTF-8 bytes, at most 12) and any size, counted under the type as given, as Core counts it. */
  sendUnchecked(messageType: string, payload: Uint8Array): void {
    if (this.#closed) return;
    this.traffic.capture?.(messageType, payload, false);
    this.#write(encodeUncheckedFrame(this.magic, new TextEncoder().encode(messageType), payload), messageType);
  }

  #write(frame: Uint8Array, countedAs: string): void {
    this.socket.write(frame);
    this.bytesSent += frame.length;
    this.lastSend = this.now();
    this.sentPerMessage.set(countedAs, (this.sentPerMessage.get(countedAs) ?? 0) + frame.length);
    this.traffic.bytes('sent', frame.length);
  }


  close(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closeReason = reason;
    this.socket.destroy();
    this.traffic.closed(reason);
    for (const listener of this.#onClosed.splice(0)) listener();
  }

  #receive(chunk: Buffer): void {
    if (this.#closed) return;
    this.bytesReceived += chunk.length;
    this.lastReceive = this.now();
    this.traffic.bytes('received', chunk.length);
    let frames: (Frame | FrameError)[];
    try {
      frames = this.#decoder.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.length));
    } catch (err) {
      if (!(err instanceof FrameError)) throw err;
      this.close(`${err.kind === 'magic' ? 'Header error: Wrong MessageStart' : err.kind === 'oversized' ? 'Header error: Size too large' : 'Header error: Unable to parse'} (${err.message})`);
      return;
    }
    for (const frame of frames) {
      if (this.#closed) return;
      if (frame instanceof FrameError) {
        // Core drops a message with a bad checksum, keeps the connection, and counts its bytes as "*other*".
        this.receivedPerMessage.set(OTHER_MESSAGE_TYPE, (this.receivedPerMessage.get(OTHER_MESSAGE_TYPE) ?? 0) + (frame.messageBytes ?? 0));
        this.traffic.corrupt(frame);
        continue;
      }
      const type = KNOWN_MESSAGE_TYPES.has(frame.command) ? frame.command : OTHER_MESSAGE_TYPE;
      this.receivedPerMessage.set(type, (this.receivedPerMessage.get(type) ?? 0) + MESSAGE_HEADER_SIZE + frame.payload.length);
      this.traffic.capture?.(frame.command, frame.payload, true);
      this.traffic.message(frame);
    }
  }
}
