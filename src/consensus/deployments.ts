/**
 * Whether a soft fork's rules apply (Core's deploymentstatus.h): buried deployments by
 * height, BIP9 deployments through the version-bits state machine. "After" asks about the
 * child of a block (what header and block checks need), "At" about the block itself
 * (what connecting it needs).
 */
import type { IndexedHeader } from './indexed-header.js';
import {
  BURIED_DEPLOYMENTS,
  buriedDeploymentHeight,
  NEVER_ACTIVE,
  type Bip9DeploymentName,
  type BuriedDeployment,
  type ChainParams,
} from './params.js';
import type { VersionBitsCache } from './versionbits.js';

export type DeploymentName = BuriedDeployment | Bip9DeploymentName;

/** Buried deployments are decided by height alone; the others need the version-bits state machine. */
function isBuried(dep: DeploymentName): dep is BuriedDeployment {
  return (BURIED_DEPLOYMENTS as readonly string[]).includes(dep);
}

/** Whether a buried deployment's rules apply to a block at `height`. */
export function buriedDeploymentActive(height: number, params: ChainParams, dep: BuriedDeployment): boolean {
  return height >= buriedDeploymentHeight(params, dep);
}

/** Core's DeploymentActiveAfter: do the rules apply to the child of `prev` (undefined: to genesis)? */
export function deploymentActiveAfter(prev: IndexedHeader | undefined, params: ChainParams, dep: BuriedDeployment): boolean;
export function deploymentActiveAfter(prev: IndexedHeader | undefined, params: ChainParams, dep: Bip9DeploymentName, cache: VersionBitsCache): boolean;
export function deploymentActiveAfter(prev: IndexedHeader | undefined, params: ChainParams, dep: DeploymentName, cache?: VersionBitsCache): boolean {
  if (isBuried(dep)) return buriedDeploymentActive(prev ? prev.height + 1 : 0, params, dep);
  if (!cache) throw new TypeError(`deployment ${dep} needs a VersionBitsCache`);
  return cache.state(prev, params, dep) === 'active';
}

/** Core's DeploymentActiveAt: do the rules apply to `index` itself? */
export function deploymentActiveAt(index: IndexedHeader, params: ChainParams, dep: BuriedDeployment): boolean;
export function deploymentActiveAt(index: IndexedHeader, params: ChainParams, dep: Bip9DeploymentName, cache: VersionBitsCache): boolean;
export function deploymentActiveAt(index: IndexedHeader, params: ChainParams, dep: DeploymentName, cache?: VersionBitsCache): boolean {
  if (isBuried(dep)) return buriedDeploymentActive(index.height, params, dep);
  if (!cache) throw new TypeError(`deployment ${dep} needs a VersionBitsCache`);
  return cache.state(index.prev, params, dep) === 'active';
}

/** Core's DeploymentEnabled: buried deployments always are here; BIP9 ones unless NEVER_ACTIVE. */
export function deploymentEnabled(params: ChainParams, dep: DeploymentName): boolean {
  if (isBuried(dep)) return buriedDeploymentHeight(params, dep) !== 0x7fffffff;
  return params.deployments[dep].startTime !== NEVER_ACTIVE;
}
