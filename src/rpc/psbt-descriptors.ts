/**
 * Core's EvalDescriptorStringOrObject filling a FlatSigningProvider for the PSBT methods:
 * each descriptor's keys (with origins), private keys and the scripts inside sh() and wsh().
 */
import { addDescriptor, PsbtProvider } from '../psbt/index.js';
import { TrDescriptor, type ChainName } from '../script/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RpcError } from './errors.js';
import type { Json } from './json.js';
import { parseScanObject } from './scan-descriptors.js';

/** Adds one descriptor string or {desc, range} object to the provider, with Core's errors. */
export function addDescriptorObject(provider: PsbtProvider, item: Json, chain: ChainName): void {
  const { text, parsed, begin, end } = parseScanObject(item, chain);
  for (const d of parsed.descriptors) {
    for (let pos = begin; pos <= end; pos++) {
      // A tr() output computed once serves both the expansion check and the spend data.
      const taproot = d instanceof TrDescriptor ? d.taprootAt(pos, parsed.keys) : undefined;
      if (!taproot && !d.expand(pos, parsed.keys)) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Cannot derive script without private keys: '${text}'`);
      addDescriptor(provider, d, pos, parsed.keys, taproot);
    }
  }
}
