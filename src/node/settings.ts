/**
 * Where an option's value comes from and which source wins — Core's common/settings
 * rules, kept exactly because harnesses depend on their quirks: forced > command line >
 * settings.json > config [chain] section > config top level; the command line's last
 * value wins but the config file's first value wins (except for chain selection); a
 * negation (-noX) hides everything before it; for non-main chains a network-only option
 * ignores the top level of the config file unless negated there.
 */

/** A raw setting: a string, false for a negation, true for a double negative (-nofoo=0). */
export type SettingValue = string | boolean | number;

type Source = 'forced' | 'cmdline' | 'rw' | 'section' | 'default';

export class Settings {
  readonly forced = new Map<string, SettingValue>();
  readonly commandLine = new Map<string, SettingValue[]>();
  /** settings.json: a value, or a list (Core keeps `wallet` as one). */
  readonly rw = new Map<string, SettingValue | SettingValue[]>();
  /** Config file values by section ('' = top level). */
  readonly config = new Map<string, Map<string, SettingValue[]>>();

  addConfig(section: string, name: string, value: SettingValue): void {
    let sec = this.config.get(section);
    if (!sec) this.config.set(section, (sec = new Map()));
    const values = sec.get(name);
    if (values) values.push(value);
    else sec.set(name, [value]);
  }

  addCommandLine(name: string, value: SettingValue): void {
    const values = this.commandLine.get(name);
    if (values) values.push(value);
    else this.commandLine.set(name, [value]);
  }

  private merge(section: string, name: string, fn: (span: readonly SettingValue[], source: Source) => void): void {
    const forced = this.forced.get(name);
    if (forced !== undefined) fn([forced], 'forced');
    const cmd = this.commandLine.get(name);
    if (cmd) fn(cmd, 'cmdline');
    const rw = this.rw.get(name);
    if (rw !== undefined) fn(Array.isArray(rw) ? rw : [rw], 'rw');
    if (section !== '') {
      const values = this.config.get(section)?.get(name);
      if (values) fn(values, 'section');
    }
    const top = this.config.get('')?.get(name);
    if (top) fn(top, 'default');
  }

  /** The single effective value (undefined = not set), Core's GetSetting. */
  get(section: string, name: string, ignoreDefaultSection: boolean, getChainType = false): SettingValue | undefined {
    let result: SettingValue | undefined;
    let done = false;
    this.merge(section, name, (span, source) => {
      if (done) return;
      const lastNeg = lastNegated(span);
      // A negation in the top level still applies to network-only options.
      if (ignoreDefaultSection && source === 'default' && !lastNeg) return;
      // Negated -regtest/-testnet on the command line are ignored for chain selection.
      if (getChainType && source === 'cmdline' && lastNeg) return;
      const live = span.slice(negatedCount(span));
      if (live.length > 0 && !lastNeg) {
        const fromConfig = source === 'section' || source === 'default';
        result = fromConfig && !getChainType ? live[0] : live[live.length - 1];
        done = true;
      } else if (lastNeg) {
        result = false;
        done = true;
      }
    });
    return result;
  }

  /** Every effective value of a multi-value option, Core's GetSettingsList. */
  getList(section: string, name: string, ignoreDefaultSection: boolean): SettingValue[] {
    const result: SettingValue[] = [];
    let done = false;
    let prevNegatedEmpty = false;
    this.merge(section, name, (span, source) => {
      // Config values come back after a command-line negation that is followed by values.
      const zombies = (source === 'section' || source === 'default') && !prevNegatedEmpty;
      if (ignoreDefaultSection && source === 'default') return;
      if (!done || zombies) result.push(...span.slice(negatedCount(span)));
      done ||= negatedCount(span) > 0 || source === 'forced';
      prevNegatedEmpty ||= lastNegated(span) && result.length === 0;
    });
    return result;
  }

  /** Set only in the config file's top level (the network-only misuse Core refuses). */
  onlyInDefaultSection(section: string, name: string): boolean {
    let inDefault = false;
    let elsewhere = false;
    this.merge(section, name, (span, source) => {
      if (span.length === 0 || lastNegated(span)) return;
      if (source === 'default') inDefault = true;
      else elsewhere = true;
    });
    return inDefault && !elsewhere;
  }
}

function isFalse(v: SettingValue): boolean {
  return v === false;
}

/** Number of leading values hidden by the last negation. */
function negatedCount(span: readonly SettingValue[]): number {
  for (let i = span.length; i > 0; i--) if (isFalse(span[i - 1]!)) return i;
  return 0;
}

function lastNegated(span: readonly SettingValue[]): boolean {
  return span.length > 0 && isFalse(span[span.length - 1]!);
}
