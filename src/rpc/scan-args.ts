/**
 * The arguments and results scantxoutset and scanblocks share (Core's scan_action_arg_desc,
 * scan_objects_arg_desc, scan_result_abort and scan_result_status_none), and the scan
 * objects' scripts as a set, as scanblocks and getdescriptoractivity look them up.
 */
import { toHex } from '../primitives/index.js';
import type { ChainName } from '../script/index.js';
import { RPC_INVALID_PARAMETER, RpcError } from './errors.js';
import type { Json } from './json.js';
import { evalScanObject, scanObjectPositions } from './scan-descriptors.js';
import type { RpcArgSpec, RpcResultSpec } from './spec.js';

export const SCAN_ACTION_ARG: RpcArgSpec = {
  name: 'action',
  type: 'str',
  description:
    'The action to execute\n' +
    '"start" for starting a scan\n' +
    '"abort" for aborting the current scan (returns true when abort was successful)\n' +
    '"status" for progress report (in %) of the current scan',
};

/** The members of one scan object (a descriptor string or {desc, range}). */
export const SCAN_OBJECT_FORMS: readonly RpcArgSpec[] = [
  { name: 'descriptor', type: 'str', optional: true, description: 'An output descriptor' },
  {
    name: '',
    type: 'obj',
    optional: true,
    description: 'An object with output descriptor and metadata',
    inner: [
      { name: 'desc', type: 'str', description: 'An output descriptor' },
      { name: 'range', type: 'range', default: 1000, description: 'The range of HD chain indexes to explore (either end or [begin,end])' },
    ],
  },
];

export const SCAN_OBJECTS_ARG: RpcArgSpec = {
  name: 'scanobjects',
  type: 'arr',
  optional: true,
  description: 'Array of scan objects. Required for "start" action\nEvery scan object is either a string descriptor or an object:',
  onelineDescription: '[scanobjects,...]',
  inner: SCAN_OBJECT_FORMS,
};

export const SCAN_RESULT_ABORT: RpcResultSpec = {
  type: 'bool',
  cond: "when action=='abort'",
  description: 'True if scan will be aborted (not necessarily before this RPC returns), or false if there is no scan to abort',
};

export const SCAN_RESULT_STATUS_NONE: RpcResultSpec = { type: 'none', cond: "when action=='status' and no scan is in progress - possibly already completed", description: '' };

/** Every script the scan objects expand to, as hex (Core's needle set). */
export function scanScriptSet(scanObjects: readonly Json[], chain: ChainName): Set<string> {
  const scripts = new Set<string>();
  for (const scanObject of scanObjects) for (const needle of evalScanObject(scanObject, chain)) scripts.add(toHex(needle.script));
  return scripts;
}

/** Lets other calls run (a scan's status and abort). */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * scanScriptSet for calls that keep a scan reserved while they expand: deriving a long
 * range takes a while, so other calls (status, abort) run every 256 positions.
 */
export async function scanScriptSetYielding(scanObjects: readonly Json[], chain: ChainName): Promise<Set<string>> {
  const scripts = new Set<string>();
  let positions = 0;
  for (const scanObject of scanObjects) {
    for (const needles of scanObjectPositions(scanObject, chain)) {
      for (const needle of needles) scripts.add(toHex(needle.script));
      if (++positions % 256 === 0) await yieldToEventLoop();
    }
  }
  return scripts;
}

/** A node-wide scan that one call at a time may run (Core's g_scan_in_progress / g_scanfilter_in_progress). */
export interface ScanReservation {
  inProgress: boolean;
  shouldAbort: boolean;
}

/**
 * The actions as Core's scan RPCs dispatch them: "status" answers `status()` while a scan
 * runs (null otherwise), "abort" flags a running scan, "start" reserves the scan for
 * `start()` unless one runs already.
 */
export async function runScanAction(action: string, state: ScanReservation, status: () => unknown, start: () => Promise<unknown>): Promise<unknown> {
  if (action === 'status') return state.inProgress ? status() : null;
  if (action === 'abort') {
    if (!state.inProgress) return false;
    state.shouldAbort = true;
    return true;
  }
  if (action !== 'start') throw new RpcError(RPC_INVALID_PARAMETER, `Invalid action '${action}'`);
  if (state.inProgress) throw new RpcError(RPC_INVALID_PARAMETER, 'Scan already in progress, use action "abort" or "status"');
  state.inProgress = true;
  try {
    return await start();
  } finally {
    state.inProgress = false;
  }
}
