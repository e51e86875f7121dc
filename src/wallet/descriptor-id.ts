/**
 * Core's DescriptorID: the SHA-256 of the descriptor's string in the compatible format
 * (hardened steps written with an apostrophe, the checksum computed over that text), which
 * keys every record of one descriptor (walletdescriptor, its keys and caches). Wallet files
 * keep the descriptor written with `h`, so the id is computed from a rewritten copy.
 */
import { sha256 } from '../primitives/index.js';
import { addChecksum } from '../script/index.js';

/** The descriptor (with or without its checksum) with its hardened steps as apostrophes and a checksum of its own. */
export function compatDescriptorString(descriptor: string): string {
  const body = descriptor.replace(/#[^#]*$/, '');
  // A step sits after '/', or inside a multipath group after '<' or ';'; keys never contain those characters.
  return addChecksum(body.replace(/([/<;])(\d+|\*)h/g, "$1$2'"));
}

export function descriptorId(descriptor: string): Uint8Array {
  return sha256(new TextEncoder().encode(compatDescriptorString(descriptor)));
}
