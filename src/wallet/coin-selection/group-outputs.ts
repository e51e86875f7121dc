/**
 * Turning coins into the output groups each eligibility filter allows (Core's GroupOutputs,
 * Groups and OutputGroupTypeMap in spend.cpp/coinselection.h).
 */
import { compareBytes, toHex } from '../../primitives/index.js';
import { COIN_OUTPUT_TYPES, entriesByOutputType, type AvailableCoins, type CoinOutputType } from './available-coins.js';
import type { SelectableCoin } from './coin.js';
import type { CoinSelectionParams } from './coin-selection-params.js';
import { filterKey, type CoinEligibilityFilter, type SelectionFilter } from './eligibility.js';
import { OutputGroup } from './output-group.js';

/**
 * OUTPUT_GROUP_MAX_ENTRIES: avoid-partial-spends groups at most this many coins of one address
 * together, so a much reused address does not surprise its user with a huge fee.
 */
export const OUTPUT_GROUP_MAX_ENTRIES = 100;

/** Core's Groups: groups of positive selection amount (BnB, CoinGrinder, SRD) and all of them (Knapsack). */
export interface Groups {
  readonly positiveGroup: OutputGroup[];
  readonly mixedGroup: OutputGroup[];
}

function emptyGroups(): Groups {
  return { positiveGroup: [], mixedGroup: [] };
}

/** Core's OutputGroupTypeMap: the groups by output type, and all of them together for a mixed-type attempt. */
export class OutputGroupTypeMap {
  readonly groupsByType = new Map<CoinOutputType, Groups>();
  readonly allGroups: Groups = emptyGroups();

  /** Push: into the mixed groups when asked, into the positive ones when asked and the group is worth something. */
  push(group: OutputGroup, type: CoinOutputType, insertPositive: boolean, insertMixed: boolean): void {
    if (group.outputs.length === 0) return;
    let groups = this.groupsByType.get(type);
    if (groups === undefined) {
      groups = emptyGroups();
      this.groupsByType.set(type, groups);
    }
    if (insertPositive && group.selectionAmount > 0n) {
      groups.positiveGroup.push(group);
      this.allGroups.positiveGroup.push(group);
    }
    if (insertMixed) {
      groups.mixedGroup.push(group);
      this.allGroups.mixedGroup.push(group);
    }
  }

  /** TypesCount: how many output types have groups. */
  typesCount(): number {
    return this.groupsByType.size;
  }

  /** The per-type groups in Core's OutputType order. */
  byType(): [CoinOutputType, Groups][] {
    return entriesByOutputType(this.groupsByType);
  }
}

/** Core's FilteredOutputGroups: a std::map from filter to its groups. */
export class FilteredOutputGroups {
  readonly #byFilter = new Map<string, OutputGroupTypeMap>();

  /** operator[]: the filter's groups, created empty on first use. */
  for(filter: CoinEligibilityFilter): OutputGroupTypeMap {
    const key = filterKey(filter);
    let groups = this.#byFilter.get(key);
    if (groups === undefined) {
      groups = new OutputGroupTypeMap();
      this.#byFilter.set(key, groups);
    }
    return groups;
  }

  /** find: the filter's groups, or undefined when no group passed it. */
  get(filter: CoinEligibilityFilter): OutputGroupTypeMap | undefined {
    return this.#byFilter.get(filterKey(filter));
  }
}

export type GroupingParams = Pick<CoinSelectionParams, 'longTermFeeRate' | 'subtractFeeOutputs' | 'avoidPartialSpends'>;

/**
 * GroupOutputs. Without avoid-partial-spends every coin is its own group. With it, coins paying
 * the same script (and output type) share groups of up to OUTPUT_GROUP_MAX_ENTRIES, built once
 * from all coins and once from the positive ones only; a script's last, partial group is left
 * out under filters that do not allow partial groups when full groups exist. Each group goes to
 * every filter it is eligible under; groups eligible under none are appended to `discarded`
 * (with avoid-partial-spends, from both the all-coins and the positive-only pass, as in Core).
 * Groups hold copies of the coins, so the caller's coins are never modified.
 */
export function groupOutputs(
  coins: AvailableCoins,
  params: GroupingParams,
  filters: readonly SelectionFilter[],
  discarded: OutputGroup[] = [],
): FilteredOutputGroups {
  const filtered = new FilteredOutputGroups();
  const groupParams = { longTermFeeRate: params.longTermFeeRate, subtractFeeOutputs: params.subtractFeeOutputs };

  if (!params.avoidPartialSpends) {
    for (const [type, outputs] of coins.byType()) {
      for (const output of outputs) {
        const group = new OutputGroup(groupParams);
        group.insert(output.clone(), output.ancestors, output.descendants);
        let accepted = false;
        for (const { filter } of filters) {
          if (!group.eligibleForSpending(filter)) continue;
          filtered.for(filter).push(group, type, true, true);
          accepted = true;
        }
        if (!accepted) discarded.push(group);
      }
    }
    return filtered;
  }

  // (script, type) -> its groups; the last one is filled until it holds OUTPUT_GROUP_MAX_ENTRIES.
  type ScriptGroups = { readonly script: Uint8Array; readonly type: CoinOutputType; readonly groups: OutputGroup[] };
  const insertOutput = (coin: SelectableCoin, type: CoinOutputType, map: Map<string, ScriptGroups>): void => {
    const key = `${toHex(coin.scriptPubKey)}/${type}`;
    let entry = map.get(key);
    if (entry === undefined) {
      entry = { script: coin.scriptPubKey, type, groups: [new OutputGroup(groupParams)] };
      map.set(key, entry);
    }
    let group = entry.groups[entry.groups.length - 1]!;
    if (group.outputs.length >= OUTPUT_GROUP_MAX_ENTRIES) {
      group = new OutputGroup(groupParams);
      entry.groups.push(group);
    }
    group.insert(coin, coin.ancestors, coin.descendants);
  };

  const allByScript = new Map<string, ScriptGroups>();
  const positiveByScript = new Map<string, ScriptGroups>();
  for (const [type, outputs] of coins.byType()) {
    for (const output of outputs) {
      // One copy shared by both maps, as Core shares one make_shared<COutput>.
      const shared = output.clone();
      if (shared.effectiveValue > 0n) insertOutput(shared, type, positiveByScript);
      insertOutput(shared, type, allByScript);
    }
  }

  const pushOutputGroups = (map: Map<string, ScriptGroups>, positiveOnly: boolean): void => {
    for (const { type, groups } of orderedLikeScriptMap(map)) {
      // Backwards, so the partial group (the last one) comes first.
      for (let i = groups.length - 1; i >= 0; i--) {
        const group = groups[i]!;
        const isPartial = i === groups.length - 1 && groups.length > 1;
        let accepted = false;
        for (const { filter } of filters) {
          if (!group.eligibleForSpending(filter)) continue;
          // No partial group next to full ones unless the filter allows it.
          if (isPartial && !filter.includePartialGroups) continue;
          filtered.for(filter).push(group, type, positiveOnly, !positiveOnly);
          accepted = true;
        }
        if (!accepted) discarded.push(group);
      }
    }
  };
  pushOutputGroups(allByScript, false);
  pushOutputGroups(positiveByScript, true);
  return filtered;
}

/**
 * The entries in std::map<std::pair<CScript, OutputType>> order: CScript (a prevector) compares
 * by size first, then bytes; then the output type in enum order.
 */
function orderedLikeScriptMap<T extends { readonly script: Uint8Array; readonly type: CoinOutputType }>(map: Map<string, T>): T[] {
  return [...map.values()].sort(
    (a, b) =>
      a.script.length - b.script.length ||
      compareBytes(a.script, b.script) ||
      COIN_OUTPUT_TYPES.indexOf(a.type) - COIN_OUTPUT_TYPES.indexOf(b.type),
  );
}
