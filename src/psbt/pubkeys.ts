/** Core's CPubKey checks the PSBT fields need. */
import { Point } from '@noble/secp256k1';

/** CPubKey::GetLen of a header byte: 33, 65, or 0 for an invalid header. */
export function pubkeyLength(header: number | undefined): number {
  if (header === 2 || header === 3) return 33;
  if (header === 4 || header === 6 || header === 7) return 65;
  return 0;
}

/** CPubKey::IsFullyValid: the announced length and a point on the curve (hybrid keys with the right parity). */
export function isFullyValidPubkey(bytes: Uint8Array): boolean {
  if (bytes.length === 0 || pubkeyLength(bytes[0]) !== bytes.length) return false;
  try {
    if (bytes[0] === 6 || bytes[0] === 7) {
      const plain = Uint8Array.from(bytes);
      plain[0] = 4;
      const point = Point.fromBytes(plain);
      return (point.toAffine().y & 1n) === BigInt(bytes[0] - 6);
    }
    Point.fromBytes(bytes);
    return true;
  } catch {
    return false;
  }
}
