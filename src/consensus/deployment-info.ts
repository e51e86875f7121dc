/**
 * The data of getdeploymentinfo (Core's rpc/blockchain.cpp DeploymentInfo and
 * SoftForkDescPushBack), as plain objects whose keys are inserted in Core's order, so the
 * RPC layer serializes them as they are. `start_time` and `timeout` are bigint (Core's
 * int64, NO_TIMEOUT = 9223372036854775807): the JSON writer must print them as numbers.
 */
import { hashToHex } from '../primitives/index.js';
import { deploymentActiveAfter, deploymentEnabled } from './deployments.js';
import type { IndexedHeader } from './indexed-header.js';
import { buriedDeploymentHeight, type Bip9DeploymentName, type BuriedDeployment, type ChainParams } from './params.js';
import type { ThresholdState, VersionBitsCache } from './versionbits.js';

export interface BuriedDeploymentReport {
  type: 'buried';
  /** Whether the rules apply to the block after the queried one. */
  active: boolean;
  height: number;
}

export interface Bip9StatisticsReport {
  period: number;
  elapsed: number;
  count: number;
  /** Only while started. */
  threshold?: number;
  possible?: boolean;
}

export interface Bip9Report {
  /** Only while started or locked in. */
  bit?: number;
  start_time: bigint;
  timeout: bigint;
  min_activation_height: number;
  status: ThresholdState;
  since: number;
  status_next: ThresholdState;
  statistics?: Bip9StatisticsReport;
  /** '#' for a signalling block, '-' otherwise, per block of the current period. */
  signalling?: string;
}

export interface Bip9DeploymentReport {
  type: 'bip9';
  /** Activation height, when active or activating with the next block. */
  height?: number;
  active: boolean;
  bip9: Bip9Report;
}

export type DeploymentReport = BuriedDeploymentReport | Bip9DeploymentReport;

export interface DeploymentInfo {
  hash: string;
  height: number;
  deployments: Record<string, DeploymentReport>;
}

/** Names getdeploymentinfo uses for buried deployments (Core's DeploymentName). */
export const BURIED_RPC_NAMES: Readonly<Record<BuriedDeployment, string>> = {
  bip34: 'bip34',
  dersig: 'bip66',
  cltv: 'bip65',
  csv: 'csv',
  segwit: 'segwit',
};

/** Core's order: bip34, bip66, bip65, csv, segwit, then the BIP9 deployments. */
const REPORT_ORDER: readonly (BuriedDeployment | Bip9DeploymentName)[] = ['bip34', 'dersig', 'cltv', 'csv', 'segwit', 'testdummy', 'taproot'];

/** SoftForkDescPushBack for a buried deployment: active means "applies to the next block". */
function buriedReport(index: IndexedHeader, params: ChainParams, dep: BuriedDeployment): BuriedDeploymentReport {
  return { type: 'buried', active: deploymentActiveAfter(index, params, dep), height: buriedDeploymentHeight(params, dep) };
}

/** SoftForkDescPushBack for a BIP9 deployment; optional keys appear only where Core emits them. */
function bip9Report(index: IndexedHeader, params: ChainParams, name: Bip9DeploymentName, cache: VersionBitsCache): Bip9DeploymentReport {
  const dep = params.deployments[name];
  const info = cache.info(index, params, name);
  const stats = info.stats;
  const bip9: Bip9Report = {
    ...(stats ? { bit: dep.bit } : {}),
    start_time: dep.startTime,
    timeout: dep.timeout,
    min_activation_height: dep.minActivationHeight,
    status: info.currentState,
    since: info.since,
    status_next: info.nextState,
    ...(stats
      ? {
          statistics: {
            period: stats.period,
            elapsed: stats.elapsed,
            count: stats.count,
            // Core drops threshold and possible once locked in (it zeroes both).
            ...(stats.threshold > 0 || stats.possible ? { threshold: stats.threshold, possible: stats.possible } : {}),
          },
          signalling: (info.signalling ?? []).map((s) => (s ? '#' : '-')).join(''),
        }
      : {}),
  };
  return {
    type: 'bip9',
    ...(info.activeSince !== undefined ? { height: info.activeSince } : {}),
    active: info.activeSince !== undefined && info.activeSince <= index.height + 1,
    bip9,
  };
}

/** Every enabled deployment's report at `index`, keyed by RPC name in Core's order. */
export function deploymentReports(index: IndexedHeader, params: ChainParams, cache: VersionBitsCache): Record<string, DeploymentReport> {
  const out: Record<string, DeploymentReport> = {};
  for (const dep of REPORT_ORDER) {
    if (!deploymentEnabled(params, dep)) continue;
    if (dep === 'testdummy' || dep === 'taproot') out[dep] = bip9Report(index, params, dep, cache);
    else out[BURIED_RPC_NAMES[dep]] = buriedReport(index, params, dep);
  }
  return out;
}

/** getdeploymentinfo's result for the block `index`: hash, height, deployments. */
export function deploymentInfo(index: IndexedHeader, params: ChainParams, cache: VersionBitsCache): DeploymentInfo {
  return { hash: hashToHex(index.hash), height: index.height, deployments: deploymentReports(index, params, cache) };
}
