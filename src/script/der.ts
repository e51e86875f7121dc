/**
 * Core's ecdsa_signature_parse_der_lax (pubkey.cpp): the consensus rule for signatures
 * that predate BIP66. It accepts BER-ish encodings (long-form lengths, excess padding)
 * and yields r and s as 32-byte big-endian values; a value too large for 32 bytes
 * makes the signature unverifiable rather than rejected, exactly as in Core.
 */
export interface CompactSignature {
  /** r || s, 64 bytes big-endian. */
  bytes: Uint8Array;
  /** True when r or s overflowed 32 bytes: such a signature never verifies. */
  overflow: boolean;
}

export function parseDerLax(input: Uint8Array): CompactSignature | null {
  let pos = 0;
  const inputlen = input.length;
  const out = new Uint8Array(64);

  // Sequence tag and length.
  if (pos === inputlen || input[pos] !== 0x30) return null;
  pos++;
  if (pos === inputlen) return null;
  let lenbyte = input[pos++]!;
  if (lenbyte & 0x80) {
    lenbyte -= 0x80;
    if (lenbyte > inputlen - pos) return null;
    pos += lenbyte;
  }

  // Integer tag and length for R.
  if (pos === inputlen || input[pos] !== 0x02) return null;
  pos++;
  if (pos === inputlen) return null;
  lenbyte = input[pos++]!;
  let rlen: number;
  if (lenbyte & 0x80) {
    lenbyte -= 0x80;
    if (lenbyte > inputlen - pos) return null;
    while (lenbyte > 0 && input[pos] === 0) {
      pos++;
      lenbyte--;
    }
    if (lenbyte >= 4) return null;
    rlen = 0;
    while (lenbyte > 0) {
      rlen = (rlen << 8) + input[pos]!;
      pos++;
      lenbyte--;
    }
  } else {
    rlen = lenbyte;
  }
  if (rlen > inputlen - pos) return null;
  let rpos = pos;
  pos += rlen;

  // Integer tag and length for S.
  if (pos === inputlen || input[pos] !== 0x02) return null;
  pos++;
  if (pos === inputlen) return null;
  lenbyte = input[pos++]!;
  let slen: number;
  if (lenbyte & 0x80) {
    lenbyte -= 0x80;
    if (lenbyte > inputlen - pos) return null;
    while (lenbyte > 0 && input[pos] === 0) {
      pos++;
      lenbyte--;
    }
    if (lenbyte >= 4) return null;
    slen = 0;
    while (lenbyte > 0) {
      slen = (slen << 8) + input[pos]!;
      pos++;
      lenbyte--;
    }
  } else {
    slen = lenbyte;
  }
  if (slen > inputlen - pos) return null;
  let spos = pos;

  // Strip leading zeroes; values wider than 32 bytes overflow.
  while (rlen > 0 && input[rpos] === 0) {
    rlen--;
    rpos++;
  }
  let overflow = false;
  if (rlen > 32) overflow = true;
  else out.set(input.subarray(rpos, rpos + rlen), 32 - rlen);

  while (slen > 0 && input[spos] === 0) {
    slen--;
    spos++;
  }
  if (slen > 32) overflow = true;
  else out.set(input.subarray(spos, spos + slen), 64 - slen);

  if (overflow) out.fill(0);
  return { bytes: out, overflow };
}

/**
 * BIP66 strict DER check on a signature with its trailing sighash byte (Core's
 * IsValidSignatureEncoding).
 */
export function isValidSignatureEncoding(sig: Uint8Array): boolean {
  if (sig.length < 9 || sig.length > 73) return false;
  if (sig[0] !== 0x30) return false;
  if (sig[1] !== sig.length - 3) return false;
  const lenR = sig[3]!;
  if (5 + lenR >= sig.length) return false;
  const lenS = sig[5 + lenR]!;
  if (lenR + lenS + 7 !== sig.length) return false;
  if (sig[2] !== 0x02) return false;
  if (lenR === 0) return false;
  if (sig[4]! & 0x80) return false;
  if (lenR > 1 && sig[4] === 0x00 && !(sig[5]! & 0x80)) return false;
  if (sig[lenR + 4] !== 0x02) return false;
  if (lenS === 0) return false;
  if (sig[lenR + 6]! & 0x80) return false;
  if (lenS > 1 && sig[lenR + 6] === 0x00 && !(sig[lenR + 7]! & 0x80)) return false;
  return true;
}
