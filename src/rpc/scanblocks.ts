/**
 * scanblocks (Core's rpc/blockchain.cpp): "start" tests the basic block filter of every
 * active-chain block in a height range against the scripts of the scan objects, and
 * answers the blocks that may pay to or spend from them (with filter_false_positives,
 * those whose outputs or spent outputs really hold one); "status" and "abort" act on a
 * scan in progress. One scan at a time, node-wide, as Core's g_scanfilter_in_progress:
 * the method runs in the coordinator only, beside scantxoutset. The range is read in
 * chunks of 10,000 blocks, between which Core checks for abort and shutdown and
 * updates the progress; the scan also yields to the event loop every 1,000 filters, so
 * status and abort calls are answered meanwhile.
 */
import { basicFilterMatchAny, blockFilterTypeByName, type BlockFilterIndexView, type SnapshotChainView, type ViewEntry } from '../chain/index.js';
import { fromHex, toHex } from '../primitives/index.js';
import type { ChainName } from '../script/index.js';
import type { RpcArgs } from './args.js';
import { blockChecked, undoChecked } from './block-checked.js';
import { RPC_CLIENT_NOT_CONNECTED, RPC_INVALID_ADDRESS_OR_KEY, RPC_MISC_ERROR, RPC_TYPE_ERROR, RpcError } from './errors.js';
import { typeMismatchMessage } from './json.js';
import type { NodeFacts } from './node-facts.js';
import { defineRpcMethod } from './registry.js';
import { SCAN_ACTION_ARG, SCAN_OBJECTS_ARG, SCAN_RESULT_ABORT, SCAN_RESULT_STATUS_NONE, runScanAction, scanScriptSetYielding, yieldToEventLoop } from './scan-args.js';
import type { SnapshotSource } from './server.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';
import { getInt, INT32_MAX, INT32_MIN } from './value-parse.js';

export interface ScanBlocksDeps {
  readonly chain: ChainName;
  /** The coordinator's snapshots of the stored chain (undefined before the chainstate loads). */
  snapshots(): SnapshotSource | undefined;
  readonly node: NodeFacts;
}

/** Core's g_scanfilter_in_progress, g_scanfilter_progress, g_scanfilter_progress_height and g_scanfilter_should_abort_scan. */
class FilterScanState {
  inProgress = false;
  progress = 0;
  progressHeight = 0;
  shouldAbort = false;
}

/** Core's amount_per_chunk. */
const CHUNK_BLOCKS = 10_000;
const FILTERS_PER_YIELD = 1_000;

/** Core's CheckBlockFilterMatches: an output, or an output spent, of the block holds one of the scripts. */
function blockHasScript(view: SnapshotChainView, entry: ViewEntry, scripts: ReadonlySet<string>): boolean {
  const block = blockChecked(view, entry);
  const undo = undoChecked(view, entry);
  if (block.transactions.some((tx) => tx.outputs.some((out) => scripts.has(toHex(out.scriptPubKey))))) return true;
  return undo.some((coins) => coins.some((coin) => scripts.has(toHex(coin.output.scriptPubKey))));
}

/** Core's Chain[height]: the active-chain block at a height, if there is one. */
function activeAt(view: SnapshotChainView, height: number): ViewEntry | undefined {
  return height < 0 ? undefined : view.activeEntry(height);
}

export function scanBlocksMethods(deps: ScanBlocksDeps): RpcMethod[] {
  const state = new FilterScanState();

  /** Core's BlockFilterIndex::LookupFilterRange: every filter from `from` to `to`, or none if one is missing. */
  const filterRange = (view: SnapshotChainView, index: BlockFilterIndexView, from: number, to: number) => {
    const filters: { hash: Uint8Array; entry: ViewEntry; filter: Uint8Array }[] = [];
    for (let height = from; height <= to; height++) {
      const entry = view.activeEntry(height)!;
      const filter = index.filter(entry.hash);
      if (!filter) return undefined;
      filters.push({ hash: entry.hash, entry, filter });
    }
    return filters;
  };

  const scan = async (view: SnapshotChainView, index: BlockFilterIndexView, start: ViewEntry, stop: ViewEntry, scripts: ReadonlySet<string>, filterFalsePositives: boolean) => {
    const needles = [...scripts].map(fromHex);
    const blocks: string[] = [];
    const startHeight = start.height;
    const total = stop.height - startHeight;
    state.shouldAbort = false;
    state.progress = 0;
    state.progressHeight = startHeight;
    let completed = true;
    let current = start;
    let endRange: ViewEntry | undefined;
    let checked = 0;
    do {
      if (deps.node.shuttingDown()) throw new RpcError(RPC_CLIENT_NOT_CONNECTED, 'Shutting down');
      if (state.shouldAbort) {
        completed = false;
        break;
      }
      // After the first chunk, a chunk starts past the block the previous one ended at.
      const firstHeight = endRange ? current.height + 1 : current.height;
      endRange = firstHeight + CHUNK_BLOCKS < stop.height ? view.activeEntry(firstHeight + CHUNK_BLOCKS)! : stop;
      for (const { hash, entry, filter } of filterRange(view, index, firstHeight, endRange.height) ?? []) {
        if (++checked % FILTERS_PER_YIELD === 0) await yieldToEventLoop();
        if (!basicFilterMatchAny(hash, filter, needles)) continue;
        if (filterFalsePositives && !blockHasScript(view, entry, scripts)) continue;
        blocks.push(entry.hashHex);
      }
      current = endRange;
      const processed = endRange.height - startHeight;
      state.progress = total > 0 ? Math.trunc((100.0 / total) * processed) : 100;
      state.progressHeight = endRange.height;
      await yieldToEventLoop();
    } while (current.height !== stop.height);
    return { from_height: startHeight, to_height: current.height, relevant_blocks: blocks, completed };
  };

  /** "start": Core's checks in its order, then the scan in one snapshot. */
  const start = async (args: RpcArgs) => {
    const filterTypeName = args.optString('filtertype') ?? 'basic';
    if (!blockFilterTypeByName(filterTypeName)) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Unknown filtertype');
    const options = args.optObject('options') ?? {};
    let filterFalsePositives = false;
    if ('filter_false_positives' in options) {
      const value = options.filter_false_positives;
      if (typeof value !== 'boolean') throw new RpcError(RPC_TYPE_ERROR, typeMismatchMessage(value ?? null, 'bool'));
      filterFalsePositives = value;
    }
    const source = deps.snapshots();
    if (!source) throw new RpcError(RPC_MISC_ERROR, 'Chainstate not available');
    return await source.withSnapshot(async (view) => {
      const index = view.blockfilter;
      if (!index) throw new RpcError(RPC_MISC_ERROR, `Index is not enabled for filtertype ${filterTypeName}`);
      let first = view.activeEntry(0)!;
      let last = view.tip();
      if (args.has('start_height')) {
        const entry = activeAt(view, getInt(args.value('start_height'), INT32_MIN, INT32_MAX));
        if (!entry) throw new RpcError(RPC_MISC_ERROR, 'Invalid start_height');
        first = entry;
      }
      if (args.has('stop_height')) {
        const entry = activeAt(view, getInt(args.value('stop_height'), INT32_MIN, INT32_MAX));
        if (!entry || entry.height < first.height) throw new RpcError(RPC_MISC_ERROR, 'Invalid stop_height');
        last = entry;
      }
      const scanObjects = args.optArray('scanobjects');
      if (!scanObjects) throw new RpcError(RPC_TYPE_ERROR, typeMismatchMessage(null, 'array'));
      return scan(view, index, first, last, await scanScriptSetYielding(scanObjects, deps.chain), filterFalsePositives);
    });
  };

  const scanblocks = defineRpcMethod({
    name: 'scanblocks',
    category: 'blockchain',
    description:
      'Return relevant blockhashes for given descriptors (requires blockfilterindex).\n' +
      'This call may take several minutes. Make sure to use no RPC timeout (bitcoin-cli -rpcclienttimeout=0)',
    args: [
      SCAN_ACTION_ARG,
      SCAN_OBJECTS_ARG,
      { name: 'start_height', type: 'num', default: 0, description: 'Height to start to scan from' },
      { name: 'stop_height', type: 'num', defaultHint: 'chain tip', description: 'Height to stop to scan' },
      { name: 'filtertype', type: 'str', default: 'basic', description: 'The type name of the filter' },
      {
        name: 'options',
        type: 'obj_named',
        optional: true,
        description: '',
        onelineDescription: 'options',
        inner: [
          {
            name: 'filter_false_positives',
            type: 'bool',
            default: false,
            description: 'Filter false positives (slower and may fail on pruned nodes). Otherwise they may occur at a rate of 1/M',
          },
        ],
      },
    ],
    results: [
      SCAN_RESULT_STATUS_NONE,
      {
        type: 'obj',
        cond: "When action=='start'; only returns after scan completes",
        description: '',
        inner: [
          { type: 'num', key: 'from_height', description: 'The height we started the scan from' },
          { type: 'num', key: 'to_height', description: 'The height we ended the scan at' },
          { type: 'arr', key: 'relevant_blocks', description: 'Blocks that may have matched a scanobject.', inner: [{ type: 'str_hex', key: 'blockhash', description: 'A relevant blockhash' }] },
          { type: 'bool', key: 'completed', description: 'true if the scan process was not aborted' },
        ],
      },
      {
        type: 'obj',
        cond: "when action=='status' and a scan is currently in progress",
        description: '',
        inner: [
          { type: 'num', key: 'progress', description: 'Approximate percent complete' },
          { type: 'num', key: 'current_height', description: 'Height of the block currently being scanned' },
        ],
      },
      SCAN_RESULT_ABORT,
    ],
    examples:
      helpExampleCli('scanblocks', 'start \'["addr(bcrt1q4u4nsgk6ug0sqz7r3rj9tykjxrsl0yy4d0wwte)"]\' 300000') +
      helpExampleCli('scanblocks', 'start \'["addr(bcrt1q4u4nsgk6ug0sqz7r3rj9tykjxrsl0yy4d0wwte)"]\' 100 150 basic') +
      helpExampleCli('scanblocks', 'status') +
      helpExampleRpc('scanblocks', '"start", ["addr(bcrt1q4u4nsgk6ug0sqz7r3rj9tykjxrsl0yy4d0wwte)"], 300000') +
      helpExampleRpc('scanblocks', '"start", ["addr(bcrt1q4u4nsgk6ug0sqz7r3rj9tykjxrsl0yy4d0wwte)"], 100, 150, "basic"') +
      helpExampleRpc('scanblocks', '"status"'),
    handler: (args) => runScanAction(args.string('action'), state, () => ({ progress: state.progress, current_height: state.progressHeight }), () => start(args)),
  });


  return [scanblocks];
}
