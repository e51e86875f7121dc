/**
 * getblockfilter (BIP157/158 basic filters from -blockfilterindex), answered from one
 * snapshot like the other read-only Blockchain queries, so HTTP front-ends serve it
 * without the coordinator. Checks, codes and texts in Core's order.
 */
import { blockFilterTypeByName, FILTER_NOT_FOUND_MESSAGE, filterMissingReason, type FilterMissingReason } from '../chain/index.js';
import { hashToHex, toHex } from '../primitives/index.js';
import { view } from './blockchain-read.js';
import { RPC_INTERNAL_ERROR, RPC_INVALID_ADDRESS_OR_KEY, RPC_MISC_ERROR, RpcError } from './errors.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { parseHash } from './values.js';

/** The code Core's getblockfilter gives each reason a filter is missing. */
const MISSING_FILTER_CODE: Readonly<Record<FilterMissingReason, number>> = {
  'not-connected': RPC_INVALID_ADDRESS_OR_KEY,
  indexing: RPC_MISC_ERROR,
  corruption: RPC_INTERNAL_ERROR,
};

export function blockFilterMethods(): RpcMethod[] {
  const getblockfilter = defineRpcMethod({
    name: 'getblockfilter',
    category: 'blockchain',
    description: 'Retrieve a BIP 157 content filter for a particular block.\n',
    args: [
      { name: 'blockhash', type: 'hex', description: 'The hash of the block' },
      { name: 'filtertype', type: 'str', default: 'basic', description: 'The type name of the filter' },
    ],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'str_hex', key: 'filter', description: 'the hex-encoded filter data' },
          { type: 'str_hex', key: 'header', description: 'the hex-encoded filter header' },
        ],
      },
    ],
    examples:
      helpExampleCli('getblockfilter', '"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09" "basic"') +
      helpExampleRpc('getblockfilter', '"00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09", "basic"'),
    readsSnapshot: true,
    handler: (args, ctx) => {
      const snapshot = view(ctx);
      const hash = parseHash(args.string('blockhash'), 'blockhash');
      const typeName = args.optString('filtertype') ?? 'basic';
      if (!blockFilterTypeByName(typeName)) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Unknown filtertype');
      const index = snapshot.blockfilter;
      if (!index) throw new RpcError(RPC_MISC_ERROR, `Index is not enabled for filtertype ${typeName}`);
      const entry = snapshot.entry(hash);
      if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
      const synced = index.info().synced;
      const filter = index.filter(entry.hash);
      const header = filter && index.header(entry.hash);
      if (!filter || !header) {
        const reason = filterMissingReason(entry.status, synced);
        throw new RpcError(MISSING_FILTER_CODE[reason], FILTER_NOT_FOUND_MESSAGE[reason]);
      }
      return { filter: toHex(filter), header: hashToHex(header) };
    },
  });

  return [getblockfilter];
}
