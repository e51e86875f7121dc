/**
 * Option lookup over the merged settings (Core's ArgsManager getters): the string,
 * integer and boolean views, multi-value lists, negation, and chain selection.
 */
import * as path from 'node:path';
import { ConfigError, interpretBool, parseIntLikeCore } from './args-parse.js';
import { NETWORK_ONLY, optionFlags } from './option-table.js';
import { Settings, type SettingValue } from './settings.js';
import { CHAIN_NAMES, type ChainName } from '../script/index.js';

function settingToString(v: SettingValue): string {
  if (v === false) return '0';
  if (v === true) return '1';
  return String(v);
}

export class Args {
  readonly settings = new Settings();
  /** The selected chain's section name; '' until the chain is selected. */
  private network = '';

  selectNetwork(chain: ChainName): void {
    this.network = chain;
  }

  /** Network-only options of a non-main chain skip the config file's top level. */
  private useDefaultSection(name: string): boolean {
    return this.network === 'main' || !((optionFlags(name) ?? 0) & NETWORK_ONLY);
  }

  private setting(name: string): SettingValue | undefined {
    return this.settings.get(this.network, name, !this.useDefaultSection(name));
  }

  isArgSet(name: string): boolean {
    return this.setting(name) !== undefined;
  }

  isArgNegated(name: string): boolean {
    return this.setting(name) === false;
  }

  getArg(name: string): string | undefined {
    const v = this.setting(name);
    return v === undefined ? undefined : settingToString(v);
  }

  getArgs(name: string): string[] {
    return this.settings.getList(this.network, name, !this.useDefaultSection(name)).map(settingToString);
  }

  getIntArg(name: string, fallback: number): number;
  getIntArg(name: string): number | undefined;
  getIntArg(name: string, fallback?: number): number | undefined {
    const v = this.setting(name);
    if (v === undefined) return fallback;
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (typeof v === 'number') return Math.trunc(v);
    return parseIntLikeCore(v);
  }

  getBoolArg(name: string, fallback: boolean): boolean;
  getBoolArg(name: string): boolean | undefined;
  getBoolArg(name: string, fallback?: boolean): boolean | undefined {
    const v = this.setting(name);
    if (v === undefined) return fallback;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'number') return v !== 0;
    return interpretBool(v);
  }

  /** A path option: undefined when negated, the default when unset or empty; trailing slash removed. */
  getPathArg(name: string, fallback?: string): string | undefined {
    if (this.isArgNegated(name)) return undefined;
    const v = this.getArg(name) ?? '';
    if (v === '') return fallback;
    const normal = path.normalize(v);
    return normal.length > 1 && normal.endsWith(path.sep) ? normal.slice(0, -1) : normal;
  }

  softSetArg(name: string, value: string): boolean {
    if (this.isArgSet(name)) return false;
    this.settings.forced.set(name, value);
    return true;
  }

  /** -regtest / -testnet / -testnet4 / -signet / -chain=NAME, at most one (Core's GetChainArg). */
  chain(): ChainName {
    const flag = (name: string): boolean => {
      const v = this.settings.get('', name, false, true);
      if (v === undefined) return false;
      return typeof v === 'string' ? interpretBool(v) : v !== false && v !== 0;
    };
    const flags = { regtest: flag('regtest'), signet: flag('signet'), test: flag('testnet'), testnet4: flag('testnet4') };
    const chainArg = this.getArg('chain');
    const count = Object.values(flags).filter(Boolean).length + (chainArg !== undefined ? 1 : 0);
    if (count > 1) throw new ConfigError('Invalid combination of -regtest, -signet, -testnet, -testnet4 and -chain. Can use at most one.');
    if (chainArg !== undefined) {
      if ((CHAIN_NAMES as readonly string[]).includes(chainArg)) return chainArg as ChainName;
      throw new ConfigError(`Unknown chain ${chainArg}.`);
    }
    if (flags.regtest) return 'regtest';
    if (flags.signet) return 'signet';
    if (flags.test) return 'test';
    if (flags.testnet4) return 'testnet4';
    return 'main';
  }

  /** Network-only options given only in the config file's top level (Core refuses to start). */
  unsuitableSectionOnlyArgs(networkOnly: readonly string[]): string[] {
    if (this.network === '' || this.network === 'main') return [];
    return networkOnly.filter((name) => this.settings.onlyInDefaultSection(this.network, name)).map((n) => `-${n}`);
  }
}
