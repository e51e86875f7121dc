/**
 * Core's -capturemessages (CaptureMessageToFile): every message a peer sends or is sent,
 * appended as it is processed to <netdir>/message_capture/<addr_port>/msgs_recv.dat or
 * msgs_sent.dat — the time in microseconds (int64 LE, mockable), the message type padded
 * with NULs to 12 bytes, the payload's size (uint32 LE) and the payload. The address is
 * Core's ToStringAddrPort with ':' replaced by '_'.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const MESSAGE_TYPE_SIZE = 12;

export class MessageCapture {
  readonly #madeDirs = new Set<string>();

  constructor(
    private readonly netDir: string,
    private readonly nowMicros: () => bigint,
  ) {}

  record(address: string, messageType: string, payload: Uint8Array, incoming: boolean): void {
    const dir = join(this.netDir, 'message_capture', address.replaceAll(':', '_'));
    if (!this.#madeDirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.#madeDirs.add(dir);
    }
    const header = Buffer.alloc(8 + MESSAGE_TYPE_SIZE + 4);
    header.writeBigInt64LE(this.nowMicros(), 0);
    // Core writes the type's bytes then pads to 12 (sendmsgtopeer's longer types are cut by the frame already).
    Buffer.from(messageType, 'utf8').subarray(0, MESSAGE_TYPE_SIZE).copy(header, 8);
    header.writeUInt32LE(payload.length, 8 + MESSAGE_TYPE_SIZE);
    appendFileSync(join(dir, incoming ? 'msgs_recv.dat' : 'msgs_sent.dat'), Buffer.concat([header, payload]));
  }
}
