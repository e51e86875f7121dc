/** getdescriptorinfo's result, field for field and in Core's order. */
import type { ChainName } from '../chain-prefixes.js';
import { parseDescriptor } from './parse.js';

export interface DescriptorInfo {
  /** The first (or only) descriptor in canonical public form, with checksum. */
  readonly descriptor: string;
  /** Every expansion of a multipath descriptor; absent for others. */
  readonly multipath_expansion?: string[];
  /** The checksum of the input text. */
  readonly checksum: string;
  readonly isrange: boolean;
  readonly issolvable: boolean;
  /** Whether the text contained any private key. */
  readonly hasprivatekeys: boolean;
}

/**
 * Core's getdescriptorinfo. Throws DescriptorError (code -5, Core's message) when the
 * descriptor does not parse; a checksum is optional.
 */
export function getDescriptorInfo(text: string, chain: ChainName): DescriptorInfo {
  const parsed = parseDescriptor(text, chain);
  const [first] = parsed.descriptors;
  const info: DescriptorInfo = {
    descriptor: first!.toString(),
    ...(parsed.descriptors.length > 1 ? { multipath_expansion: parsed.descriptors.map((d) => d.toString()) } : {}),
    checksum: parsed.checksum,
    isrange: first!.isRange(),
    issolvable: first!.isSolvable(),
    hasprivatekeys: parsed.keys.size > 0,
  };
  return info;
}
