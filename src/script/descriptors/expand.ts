/** Expansion of a parsed descriptor string, with the private keys it was written with. */
import type { ParsedDescriptor } from './parse.js';

/**
 * The scriptPubKeys at derivation index `index` (combo() gives several) of expansion
 * `expansion` of a multipath descriptor (0 otherwise). Null when a hardened step needs a
 * private key the text did not contain (Core's "Cannot derive script without private keys").
 */
export function expandDescriptor(parsed: ParsedDescriptor, index: number, expansion = 0): Uint8Array[] | null {
  const descriptor = parsed.descriptors[expansion];
  if (!descriptor) throw new RangeError(`descriptor has ${parsed.descriptors.length} expansion(s), not ${expansion + 1}`);
  return descriptor.expand(index, parsed.keys);
}
