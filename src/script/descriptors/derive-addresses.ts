/**
 * deriveaddresses as Core implements it after its range argument is read: parse with a
 * required checksum, check the range against the descriptor, expand each position and
 * encode each script's address, with Core's error texts and codes.
 */
import { encodeAddress } from '../address.js';
import type { ChainName } from '../chain-prefixes.js';
import { solve } from '../standard.js';
import { DescriptorError, RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_MISC_ERROR } from './errors.js';
import type { KeyStore } from './keystore.js';
import type { Descriptor } from './nodes.js';
import { parseDescriptor } from './parse.js';

/** Core's ParseDescriptorRange limits: a range covers at most a million positions below 2^31. */
const MAX_RANGE_SIZE = 1000000;

/**
 * The numeric checks of Core's ParseDescriptorRange once the JSON value is read: a lone
 * number n means [0, n]. Returns [begin, end]; throws DescriptorError with code -8.
 */
export function validateDescriptorRange(range: number | readonly [number, number]): [number, number] {
  let begin = 0;
  let end: number;
  if (typeof range === 'number') {
    end = range;
  } else {
    [begin, end] = range;
    if (begin > end) throw new DescriptorError('Range specified as [begin,end] must not have begin after end', RPC_INVALID_PARAMETER);
  }
  if (begin < 0) throw new DescriptorError('Range should be greater or equal than 0', RPC_INVALID_PARAMETER);
  // Core tests (end >> 31) != 0, which negative ends fail too.
  if (end < 0 || end >= 2 ** 31) throw new DescriptorError('End of range is too high', RPC_INVALID_PARAMETER);
  if (end >= begin + MAX_RANGE_SIZE) throw new DescriptorError('Range is too large', RPC_INVALID_PARAMETER);
  return [begin, end];
}

/** The addresses of one descriptor at positions begin..end (Core's DeriveAddresses helper). */
export function deriveDescriptorAddresses(descriptor: Descriptor, begin: number, end: number, keys: KeyStore, chain: ChainName): string[] {
  const addresses: string[] = [];
  for (let pos = begin; pos <= end; pos++) {
    const scripts = descriptor.expand(pos, keys);
    if (!scripts) throw new DescriptorError('Cannot derive script without private keys', RPC_INVALID_ADDRESS_OR_KEY);
    for (const script of scripts) {
      const address = encodeAddress(script, chain);
      if (address === null) {
        // combo() also yields P2PK, which has no address: Core skips it there.
        if (scripts.length > 1 && solve(script).type === 'pubkey') continue;
        throw new DescriptorError('Descriptor does not have a corresponding address', RPC_INVALID_ADDRESS_OR_KEY);
      }
      addresses.push(address);
    }
  }
  if (addresses.length === 0) throw new DescriptorError('Unexpected empty result', RPC_MISC_ERROR);
  return addresses;
}

/**
 * Core's deriveaddresses once the range argument is read: `range` is [begin, end], or
 * undefined when the argument was not given. Returns the addresses, or for a multipath
 * descriptor one list per expansion. Throws DescriptorError with Core's message and code.
 */
export function deriveAddresses(text: string, chain: ChainName, range?: readonly [number, number]): string[] | string[][] {
  const parsed = parseDescriptor(text, chain, { requireChecksum: true });
  const first = parsed.descriptors[0]!;
  if (!first.isRange() && range !== undefined) {
    throw new DescriptorError('Range should not be specified for an un-ranged descriptor', RPC_INVALID_PARAMETER);
  }
  if (first.isRange() && range === undefined) {
    throw new DescriptorError('Range must be specified for a ranged descriptor', RPC_INVALID_PARAMETER);
  }
  const [begin, end] = range ?? [0, 0];
  const lists = parsed.descriptors.map((descriptor) => deriveDescriptorAddresses(descriptor, begin, end, parsed.keys, chain));
  return lists.length === 1 ? lists[0]! : lists;
}
