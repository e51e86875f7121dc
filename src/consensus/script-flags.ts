/**
 * The rule sets a block is validated under (Core's GetBlockScriptFlags and the lock-time
 * parts of ContextualCheckBlock / ConnectBlock): script verification flags per block,
 * BIP68 enforcement, and the time that nLockTime is compared with (BIP113).
 */
import { hashToHex } from '../primitives/index.js';
import { VerifyFlags } from '../script/index.js';
import { buriedDeploymentActive, deploymentActiveAfter } from './deployments.js';
import type { IndexedHeader } from './indexed-header.js';
import { LOCKTIME_VERIFY_SEQUENCE } from './locktime.js';
import type { ChainParams } from './params.js';

/**
 * Core's GetBlockScriptFlags: P2SH, WITNESS and TAPROOT for every block except the
 * listed exceptions (the blocks that historically violated them), plus DERSIG, CLTV, CSV
 * and NULLDUMMY from their buried heights (NULLDUMMY came with segwit).
 */
export function blockScriptFlags(index: IndexedHeader, params: ChainParams): number {
  let flags = params.scriptFlagExceptions.get(hashToHex(index.hash)) ?? VerifyFlags.P2SH | VerifyFlags.WITNESS | VerifyFlags.TAPROOT;
  if (buriedDeploymentActive(index.height, params, 'dersig')) flags |= VerifyFlags.DERSIG;
  if (buriedDeploymentActive(index.height, params, 'cltv')) flags |= VerifyFlags.CHECKLOCKTIMEVERIFY;
  if (buriedDeploymentActive(index.height, params, 'csv')) flags |= VerifyFlags.CHECKSEQUENCEVERIFY;
  if (buriedDeploymentActive(index.height, params, 'segwit')) flags |= VerifyFlags.NULLDUMMY;
  return flags;
}

/** ConnectBlock's lock-time flags: BIP68 sequence locks once CSV is active at `index`. */
export function blockLockTimeFlags(index: IndexedHeader, params: ChainParams): number {
  return buriedDeploymentActive(index.height, params, 'csv') ? LOCKTIME_VERIFY_SEQUENCE : 0;
}

/**
 * ContextualCheckBlock's nLockTime cutoff for the block after `prev` with timestamp
 * `blockTime`: the parent's median time past once CSV (BIP113) applies, else the block's
 * own time.
 */
export function lockTimeCutoff(prev: IndexedHeader | undefined, blockTime: number, params: ChainParams): number {
  return prev && deploymentActiveAfter(prev, params, 'csv') ? prev.medianTimePast() : blockTime;
}
