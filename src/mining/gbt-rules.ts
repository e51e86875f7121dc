/**
 * getblocktemplate's rules, vbavailable and version (BIP9's GBT changes, Core's
 * VersionBitsCache::GBTStatus): "csv" always, "!segwit" once segwit applies, "!signet" on
 * signet, then every active BIP9 deployment; deployments that are started or locked in
 * are offered in vbavailable with their bit. Core groups them in name-sorted maps, so
 * within each state they appear in name order. A "!" marks rules a client must
 * understand; a client that does not list such a rule gets its bit cleared from the
 * version, or (once active) an error.
 */
import { BIP9_DEPLOYMENTS, type Bip9DeploymentName, type ChainParams, type IndexedHeader, type VersionBitsCache } from '../consensus/index.js';

/** Core's VBDeploymentInfo::gbt_optional_rule: true where a client may ignore the rule. */
export const GBT_OPTIONAL_RULE: Readonly<Record<Bip9DeploymentName, boolean>> = {
  testdummy: true,
  taproot: true,
};

/** An active rule the client did not claim to support, which it must (Core: RPC_INVALID_PARAMETER). */
export class UnsupportedRuleError extends Error {
  override readonly name = 'UnsupportedRuleError';
  constructor(readonly rule: string) {
    super(`Support for '${rule}' rule requires explicit client support`);
  }
}

export interface GbtVersionBits {
  readonly version: number;
  readonly rules: string[];
  /** Rule name → bit, in Core's order (insertion order is kept by the JSON writer). */
  readonly vbavailable: Record<string, number>;
}

/** Core's gbt_rule_value: "!" before the name of a rule clients must understand. */
export function gbtRuleName(name: string, optional: boolean): string {
  return optional ? name : `!${name}`;
}

/**
 * The version-bits part of a template for the child of `prev`, starting from the
 * template's `version`; `segwitActive` and signet decide the fixed rules.
 */
export function gbtVersionBits(
  prev: IndexedHeader,
  params: ChainParams,
  cache: VersionBitsCache,
  version: number,
  clientRules: ReadonlySet<string>,
  segwitActive: boolean,
): GbtVersionBits {
  const rules = ['csv'];
  if (segwitActive) rules.push('!segwit');
  if (params.signetBlocks) rules.push('!signet');
  const byState = { started: [] as Bip9DeploymentName[], locked_in: [] as Bip9DeploymentName[], active: [] as Bip9DeploymentName[] };
  for (const name of [...BIP9_DEPLOYMENTS].sort()) {
    const state = cache.state(prev, params, name);
    if (state === 'started' || state === 'locked_in' || state === 'active') byState[state].push(name);
  }
  const vbavailable: Record<string, number> = {};
  for (const name of byState.started) {
    const { bit } = params.deployments[name];
    vbavailable[gbtRuleName(name, GBT_OPTIONAL_RULE[name])] = bit;
    if (!GBT_OPTIONAL_RULE[name] && !clientRules.has(name)) version &= ~(1 << bit);
  }
  for (const name of byState.locked_in) {
    const { bit } = params.deployments[name];
    version |= 1 << bit;
    vbavailable[gbtRuleName(name, GBT_OPTIONAL_RULE[name])] = bit;
    if (!GBT_OPTIONAL_RULE[name] && !clientRules.has(name)) version &= ~(1 << bit);
  }
  for (const name of byState.active) {
    rules.push(gbtRuleName(name, GBT_OPTIONAL_RULE[name]));
    if (!GBT_OPTIONAL_RULE[name] && !clientRules.has(name)) throw new UnsupportedRuleError(name);
  }
  return { version: version | 0, rules, vbavailable };
}
