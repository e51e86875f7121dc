/**
 * Where an expression sits decides what it may contain (Core's ParseScriptContext):
 * uncompressed keys only at top level and in sh(), x-only keys only in tr(), musig()
 * only in tr() and rawtr(). Also the helpers every parsing step shares.
 */
import type { ChainName } from '../chain-prefixes.js';
import { DescriptorError } from './errors.js';
import type { KeyStore } from './keystore.js';

export type ParseContext = 'top' | 'p2sh' | 'p2wpkh' | 'p2wsh' | 'p2tr' | 'musig';

/** What one parse accumulates: the private keys met, and the chain keys are read for. */
export interface ParseState {
  readonly keys: KeyStore;
  readonly chain: ChainName;
}

/**
 * Lines multipath alternatives up (Core's clone step): a list of one is repeated to
 * `length`; false when a list has some other length.
 */
export function alignMultipath<T>(lists: T[][], length: number): boolean {
  for (const list of lists) {
    if (list.length === 1) {
      while (list.length < length) list.push(list[0]!);
    } else if (list.length !== length) {
      return false;
    }
  }
  return true;
}

/** Runs `parse`, prefixing Core's context label (such as "pk(): ") to any error it raises. */
export function withPrefix<T>(prefix: string, parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    if (err instanceof DescriptorError) throw new DescriptorError(prefix + err.message, err.code);
    throw err;
  }
}
