/**
 * BIP9 version-bits deployments (Core's versionbits.cpp): the DEFINED → STARTED →
 * LOCKED_IN → ACTIVE / FAILED state machine with min_activation_height (BIP8-style
 * delay as used for taproot), its per-period cache, signalling statistics and the
 * block version a miner should set.
 *
 * A block's state is that of the first block of its period, so states are computed for
 * (and cached by) the last block of each period: the "period-boundary" parent.
 */
import { toHex } from '../primitives/index.js';
import type { IndexedHeader } from './indexed-header.js';
import { ALWAYS_ACTIVE, BIP9_DEPLOYMENTS, NEVER_ACTIVE, type Bip9Deployment, type Bip9DeploymentName, type ChainParams } from './params.js';

/** Core's ThresholdState, spelled as getdeploymentinfo prints it. */
export type ThresholdState = 'defined' | 'started' | 'locked_in' | 'active' | 'failed';

/** The top three version bits of a BIP9 signalling block: 001. */
export const VERSIONBITS_TOP_BITS = 0x20000000;
export const VERSIONBITS_TOP_MASK = 0xe0000000;
/** Bits available for deployments (0..28). */
export const VERSIONBITS_NUM_BITS = 29;
/** Blocks with version above this predate BIP9 (BIP34/65/66 versions 2..4). */
export const VERSIONBITS_LAST_OLD_BLOCK_VERSION = 4;

/** Core's BIP9Stats for the period containing a block. */
export interface Bip9Stats {
  period: number;
  /** Signals needed to lock in (0 once locked in, as Core reports it). */
  threshold: number;
  /** Blocks of the period up to and including the block. */
  elapsed: number;
  /** Signalling blocks among them. */
  count: number;
  /** Whether the threshold can still be reached this period. */
  possible: boolean;
}

/** Core's BIP9Info: what getdeploymentinfo reports about one deployment at one block. */
export interface Bip9Info {
  /** Height of the first block in the current state. */
  since: number;
  /** State of the block itself. */
  currentState: ThresholdState;
  /** State of its child. */
  nextState: ThresholdState;
  /** Present while started or locked in. */
  stats?: Bip9Stats;
  /** Per block of the current period, whether it signalled (with stats). */
  signalling?: boolean[];
  /** Activation height, when active or activating at the next block. */
  activeSince?: number;
}

/** Core's VersionBitsConditionChecker::Condition: a BIP9 version with the deployment's bit set. */
export function signalsDeployment(version: number, dep: Bip9Deployment): boolean {
  return ((version & VERSIONBITS_TOP_MASK) >>> 0) === VERSIONBITS_TOP_BITS && (version & (1 << dep.bit)) !== 0;
}

/** Deployments whose state never changes (ALWAYS_ACTIVE / NEVER_ACTIVE) have no per-block state to compute. */
function specialState(dep: Bip9Deployment): ThresholdState | undefined {
  if (dep.startTime === ALWAYS_ACTIVE) return 'active';
  if (dep.startTime === NEVER_ACTIVE) return 'failed';
  return undefined;
}

/**
 * What a threshold state machine counts (Core's AbstractThresholdConditionChecker): a BIP9
 * deployment's or an unknown bit's. `condition(periodEnd)` gives the test for the blocks of
 * the period ending at `periodEnd`.
 */
interface ThresholdRule {
  readonly period: number;
  readonly threshold: number;
  readonly startTime: bigint;
  readonly timeout: bigint;
  readonly minActivationHeight: number;
  condition(periodEnd: IndexedHeader): (block: IndexedHeader) => boolean;
}

function deploymentRule(dep: Bip9Deployment): ThresholdRule {
  return { ...dep, condition: () => (block) => signalsDeployment(block.version, dep) };
}

/** The transition applied at the end of each period, given the period's last block. */
function nextState(state: ThresholdState, periodEnd: IndexedHeader, rule: ThresholdRule): ThresholdState {
  switch (state) {
    case 'defined':
      return BigInt(periodEnd.medianTimePast()) >= rule.startTime ? 'started' : state;
    case 'started': {
      const condition = rule.condition(periodEnd);
      let count = 0;
      let walk: IndexedHeader | undefined = periodEnd;
      for (let i = 0; i < rule.period && walk; i++, walk = walk.prev) if (condition(walk)) count++;
      // Lock-in wins over a timeout reached in the same period (since "speedy trial").
      if (count >= rule.threshold) return 'locked_in';
      if (BigInt(periodEnd.medianTimePast()) >= rule.timeout) return 'failed';
      return state;
    }
    case 'locked_in':
      return periodEnd.height + 1 >= rule.minActivationHeight ? 'active' : state;
    default:
      return state;
  }
}

/** Core's GetStateFor over a rule: the state of the block whose parent is `prev`, cached per period-boundary block. */
function thresholdState(prev: IndexedHeader | undefined, rule: ThresholdRule, cache: Map<string, ThresholdState>): ThresholdState {
  let walk = periodParent(prev, rule.period);
  // Walk back a period at a time to a boundary whose state is known.
  const toCompute: IndexedHeader[] = [];
  while (!cache.has(cacheKey(walk))) {
    if (!walk) {
      cache.set('', 'defined');
      break;
    }
    if (BigInt(walk.medianTimePast()) < rule.startTime) {
      // Everything earlier is before the start time too.
      cache.set(cacheKey(walk), 'defined');
      break;
    }
    toCompute.push(walk);
    walk = walk.ancestor(walk.height - rule.period);
  }
  let state = cache.get(cacheKey(walk))!;
  while (toCompute.length > 0) {
    const periodEnd = toCompute.pop()!;
    state = nextState(state, periodEnd, rule);
    cache.set(cacheKey(periodEnd), state);
  }
  return state;
}

/** Core's warning checker: 108 of 144 blocks on test chains, 1815 of 2016 on main. */
const WARNING_PERIOD = { test: { period: 144, threshold: 108 }, main: { period: 2016, threshold: 1815 } } as const;

/** The last block of the period before the one `prev`'s child belongs to (undefined: before genesis). */
function periodParent(prev: IndexedHeader | undefined, period: number): IndexedHeader | undefined {
  return prev?.ancestor(prev.height - ((prev.height + 1) % period));
}

function cacheKey(index: IndexedHeader | undefined): string {
  return index ? toHex(index.hash) : '';
}

/**
 * Core's VersionBitsCache: deployment states per period-boundary block, per deployment.
 * Use one cache per ChainParams (it is keyed by block hash, not by parameters).
 */
export class VersionBitsCache {
  private readonly caches = new Map<Bip9DeploymentName, Map<string, ThresholdState>>();
  /** Per version bit, the unknown-activation states (Core's m_warning_caches). */
  private readonly warningCaches = new Map<number, Map<string, ThresholdState>>();

  private cacheFor(name: Bip9DeploymentName): Map<string, ThresholdState> {
    let cache = this.caches.get(name);
    if (!cache) {
      cache = new Map();
      this.caches.set(name, cache);
    }
    return cache;
  }

  /** Core's GetStateFor: the state of the block whose parent is `prev` (undefined for genesis). */
  state(prev: IndexedHeader | undefined, params: ChainParams, name: Bip9DeploymentName): ThresholdState {
    const dep = params.deployments[name];
    return specialState(dep) ?? thresholdState(prev, deploymentRule(dep), this.cacheFor(name));
  }

  /**
   * Core's CheckUnknownActivations: the version bits no known deployment uses that enough
   * blocks signalled (WarningBitsConditionChecker: from MinBIP9WarningHeight on, the bit set
   * where ComputeBlockVersion would not set it) — locked in (false) or active (true) for
   * the block after `tip`.
   */
  unknownActivations(tip: IndexedHeader, params: ChainParams): { readonly bit: number; readonly active: boolean }[] {
    const { period, threshold } = params.isTestChain ? WARNING_PERIOD.test : WARNING_PERIOD.main;
    const found: { bit: number; active: boolean }[] = [];
    for (let bit = 0; bit < VERSIONBITS_NUM_BITS; bit++) {
      const rule: ThresholdRule = {
        period,
        threshold,
        startTime: 0n,
        timeout: BigInt(Number.MAX_SAFE_INTEGER),
        minActivationHeight: 0,
        condition: (periodEnd) => {
          // Every block of a period has the same expected version: that of the period's state.
          const expected = this.computeBlockVersion(periodEnd.ancestor(periodEnd.height - period), params);
          return (block) =>
            block.height >= params.minBip9WarningHeight &&
            ((block.version & VERSIONBITS_TOP_MASK) >>> 0) === VERSIONBITS_TOP_BITS &&
            ((block.version >>> bit) & 1) !== 0 &&
            ((expected >>> bit) & 1) === 0;
        },
      };
      let cache = this.warningCaches.get(bit);
      if (!cache) this.warningCaches.set(bit, (cache = new Map()));
      const state = thresholdState(tip, rule, cache);
      if (state === 'active' || state === 'locked_in') found.push({ bit, active: state === 'active' });
    }
    return found;
  }

  /** Core's GetStateSinceHeightFor: the height of the first block that had the state `prev`'s child has. */
  stateSinceHeight(prev: IndexedHeader | undefined, params: ChainParams, name: Bip9DeploymentName): number {
    const dep = params.deployments[name];
    if (specialState(dep)) return 0;
    const initial = this.state(prev, params, name);
    // BIP9: the genesis block is by definition DEFINED.
    if (initial === 'defined') return 0;
    let walk = periodParent(prev, dep.period)!;
    let earlier = walk.ancestor(walk.height - dep.period);
    while (earlier && this.state(earlier, params, name) === initial) {
      walk = earlier;
      earlier = walk.ancestor(walk.height - dep.period);
    }
    return walk.height + 1;
  }

  /** Core's VersionBitsCache::Info: states around `index`, statistics while signalling matters, activation height. */
  info(index: IndexedHeader, params: ChainParams, name: Bip9DeploymentName): Bip9Info {
    const currentState = this.state(index.prev, params, name);
    const info: Bip9Info = {
      since: this.stateSinceHeight(index.prev, params, name),
      currentState,
      nextState: this.state(index, params, name),
    };
    if (currentState === 'started' || currentState === 'locked_in') {
      const signalling: boolean[] = [];
      const stats = periodStatistics(index, params.deployments[name], signalling);
      if (currentState === 'locked_in') {
        stats.threshold = 0;
        stats.possible = false;
      }
      info.stats = stats;
      info.signalling = signalling;
    }
    if (currentState === 'active') info.activeSince = info.since;
    else if (info.nextState === 'active') info.activeSince = index.height + 1;
    return info;
  }

  /** Core's ComputeBlockVersion: the top bits plus the bit of every deployment started or locked in. */
  computeBlockVersion(prev: IndexedHeader | undefined, params: ChainParams): number {
    let version = VERSIONBITS_TOP_BITS;
    for (const name of BIP9_DEPLOYMENTS) {
      const state = this.state(prev, params, name);
      if (state === 'started' || state === 'locked_in') version |= 1 << params.deployments[name].bit;
    }
    return version | 0;
  }

  /** Forgets every cached state (after the parameters or the block index change wholesale). */
  clear(): void {
    this.caches.clear();
    this.warningCaches.clear();
  }
}

/**
 * Core's GetStateStatisticsFor: signalling in the period of `index`, from the period's
 * first block to `index`. When `signalling` is given it receives one flag per block.
 */
export function periodStatistics(index: IndexedHeader | undefined, dep: Bip9Deployment, signalling?: boolean[]): Bip9Stats {
  const stats: Bip9Stats = { period: dep.period, threshold: dep.threshold, elapsed: 0, count: 0, possible: false };
  if (!index) return stats;
  let remaining = 1 + (index.height % dep.period);
  if (signalling) {
    signalling.length = 0;
    for (let i = 0; i < remaining; i++) signalling.push(false);
  }
  let walk: IndexedHeader | undefined = index;
  do {
    stats.elapsed++;
    remaining--;
    if (walk && signalsDeployment(walk.version, dep)) {
      stats.count++;
      if (signalling) signalling[remaining] = true;
    }
    walk = walk?.prev;
  } while (remaining > 0);
  stats.possible = dep.period - dep.threshold >= stats.elapsed - stats.count;
  return stats;
}

/** Free-function form of VersionBitsCache.computeBlockVersion (getblocktemplate, generate*). */
export function computeBlockVersion(prev: IndexedHeader | undefined, params: ChainParams, cache: VersionBitsCache): number {
  return cache.computeBlockVersion(prev, params);
}
