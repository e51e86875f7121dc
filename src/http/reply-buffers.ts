/**
 * Reusable memory for large reply bodies that are built and handed to uWS in the same
 * turn. res.end() writes what the socket takes and copies the rest into uWS's own buffer,
 * so once sendReply has returned, the body's memory is free for the next request.
 *
 * Why: a fresh ArrayBuffer of 160-470 kB per request (REST headers, hex of blocks and
 * headers) cost a fifth of a front-end's time under load: calloc'd and zero-filled, pages
 * mapped and unmapped, and counted as external memory, which made V8 collect garbage
 * more often. A buffer taken while all kept ones are in use (a reply still waiting, a
 * second body being built) is simply a new one.
 */

export interface ReplyBuffer {
  /** Exactly the size asked for; its contents are whatever was there before. */
  readonly bytes: Buffer;
  /** Gives the memory back; the reply must not be read afterwards. Idempotent. */
  readonly release: () => void;
}

/** Buffers larger than this are not kept (a 4 MB block's hex is 8 MB). */
const KEPT_BUFFER_MAX_BYTES = 16 * 1024 * 1024;
/** Bodies this small are cheap to allocate from Node's pool: not worth a kept buffer. */
const KEPT_BUFFER_MIN_BYTES = 16 * 1024;
/** Free buffers kept (a reply body built from another, like hex from headers, needs two). */
const KEPT_BUFFERS = 4;

const free: Buffer[] = [];

export function takeReplyBuffer(size: number): ReplyBuffer {
  if (size < KEPT_BUFFER_MIN_BYTES || size > KEPT_BUFFER_MAX_BYTES) return { bytes: Buffer.allocUnsafe(size), release: () => undefined };
  // The smallest free buffer that fits, else a new one rounded up so later, slightly larger bodies fit too.
  let best = -1;
  for (let i = 0; i < free.length; i++) if (free[i]!.length >= size && (best < 0 || free[i]!.length < free[best]!.length)) best = i;
  const whole = best >= 0 ? free.splice(best, 1)[0]! : Buffer.allocUnsafeSlow(Math.min(KEPT_BUFFER_MAX_BYTES, 2 ** Math.ceil(Math.log2(size))));
  let released = false;
  return {
    bytes: whole.subarray(0, size),
    release: () => {
      if (released) return;
      released = true;
      if (free.length < KEPT_BUFFERS) free.push(whole);
    },
  };
}
