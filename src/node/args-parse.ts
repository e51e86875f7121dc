/**
 * Turning `-name=value` words and bitcoin.conf lines into settings, with Core's key
 * interpretation: a leading `no` negates, `section.name` keys are for config files only,
 * unknown names are rejected on the command line and ignored (with a warning) in files.
 * Errors carry Core's exact text; the caller adds Core's outer wording.
 */
import { DISALLOW_ELISION, DISALLOW_NEGATION, optionFlags } from './option-table.js';
import type { SettingValue } from './settings.js';

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * The flags of an option name, undefined for a name the program does not know: bitcoind's
 * table by default; bitcoin-cli registers its own options and reads the same files.
 */
export type OptionFlagsLookup = (name: string) => number | undefined;

interface KeyInfo {
  name: string;
  section: string;
  negated: boolean;
}

/** Splits "section.noname" into its parts (Core's InterpretKey). */
export function interpretKey(key: string): KeyInfo {
  let section = '';
  const dot = key.indexOf('.');
  if (dot >= 0) {
    section = key.slice(0, dot);
    key = key.slice(dot + 1);
  }
  const negated = key.startsWith('no');
  return { name: negated ? key.slice(2) : key, section, negated };
}

/** Core's InterpretBool: empty is true, otherwise the leading integer is non-zero. */
export function interpretBool(value: string): boolean {
  return value === '' || parseIntLikeCore(value) !== 0;
}

/**
 * LocaleIndependentAtoi: optional whitespace and sign, leading digits (trailing text
 * ignored), 0 when there are none, saturating at the int64 range.
 */
export function parseIntLikeCore(value: string): number {
  let s = value.trim();
  if (s.startsWith('+')) {
    if (s.startsWith('+-')) return 0;
    s = s.slice(1);
  }
  const m = /^-?\d+/.exec(s);
  if (!m) return 0;
  const n = BigInt(m[0]);
  const max = 2n ** 63n - 1n;
  if (n > max) return Number(max);
  if (n < -max - 1n) return Number(-max - 1n);
  return Number(n);
}

/** The stored value of one occurrence, or an error for a forbidden form (Core's InterpretValue). */
export function interpretValue(key: KeyInfo, value: string | undefined, flags: number): SettingValue {
  if (key.negated) {
    if (flags & DISALLOW_NEGATION) throw new ConfigError(`Negating of -${key.name} is meaningless and therefore forbidden`);
    // -nofoo=0 is a double negative: true (Core logs it as confusing).
    if (value !== undefined && !interpretBool(value)) return true;
    return false;
  }
  if (value === undefined && flags & DISALLOW_ELISION) {
    throw new ConfigError(`Can not set -${key.name} with no value. Please specify value with -${key.name}=value.`);
  }
  return value ?? '';
}

export interface ParsedOption {
  readonly name: string;
  readonly value: SettingValue;
}

/** Command-line words to settings; throws ConfigError("Invalid parameter -foo=1") etc. */
export function parseCommandLine(argv: readonly string[], flagsOf: OptionFlagsLookup = optionFlags): ParsedOption[] {
  const out: ParsedOption[] = [];
  for (const word of argv) {
    if (word === '-') break;
    const eq = word.indexOf('=');
    let key = eq >= 0 ? word.slice(0, eq) : word;
    const value = eq >= 0 ? word.slice(eq + 1) : undefined;
    if (!key.startsWith('-')) {
      // bitcoind registers no commands, so the first bare word is an error.
      throw new ConfigError(`Invalid command '${word}'`);
    }
    if (key.length > 1 && key[1] === '-') key = key.slice(1);
    const info = interpretKey(key.slice(1));
    const flags = flagsOf(info.name);
    if (flags === undefined || info.section !== '') throw new ConfigError(`Invalid parameter ${word}`);
    out.push({ name: info.name, value: interpretValue(info, value, flags) });
  }
  const include = out.filter((o) => o.name === 'includeconf');
  if (include.length > 0 && include[include.length - 1]!.value !== false) {
    const first = include.find((o) => o.value !== false)!;
    throw new ConfigError(`-includeconf cannot be used from commandline; -includeconf=${JSON.stringify(first.value)}`);
  }
  return out;
}

export interface ConfigLine {
  readonly section: string;
  readonly name: string;
  readonly value: SettingValue;
}

export interface ParsedConfigFile {
  readonly options: ConfigLine[];
  /** Section names seen, with their line, for the "not recognized" warning. */
  readonly sections: { name: string; line: number }[];
  /** Keys that are not options: Core ignores them with a warning. */
  readonly unknown: string[];
}

/** One bitcoin.conf text (Core's GetConfigOptions + ReadConfigStream). */
export function parseConfigText(text: string, flagsOf: OptionFlagsLookup = optionFlags): ParsedConfigFile {
  const options: ConfigLine[] = [];
  const sections: { name: string; line: number }[] = [];
  const unknown: string[] = [];
  let prefix = '';
  const lines = text.split('\n');
  // A file ending with a newline has no extra empty line to count.
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((raw, i) => {
    const lineNo = i + 1;
    let str = raw;
    let usedHash = false;
    const hash = str.indexOf('#');
    if (hash >= 0) {
      str = str.slice(0, hash);
      usedHash = true;
    }
    str = str.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
    if (str === '') return;
    if (str.startsWith('[') && str.endsWith(']')) {
      const section = str.slice(1, -1);
      sections.push({ name: section, line: lineNo });
      prefix = section + '.';
      return;
    }
    if (str.startsWith('-')) {
      throw new ConfigError(`parse error on line ${lineNo}: ${str}, options in configuration file must be specified without leading -`);
    }
    const eq = str.indexOf('=');
    if (eq < 0) {
      let msg = `parse error on line ${lineNo}: ${str}`;
      if (str.length >= 2 && str.startsWith('no')) msg += `, if you intended to specify a negated option, use ${str}=1 instead`;
      throw new ConfigError(msg);
    }
    const name = prefix + str.slice(0, eq).replace(/[ \t\r\n]+$/, '');
    const value = str.slice(eq + 1).replace(/^[ \t\r\n]+/, '');
    if (usedHash && name.includes('rpcpassword')) {
      throw new ConfigError(`parse error on line ${lineNo}, using # in rpcpassword can be ambiguous and should be avoided`);
    }
    const dot = name.lastIndexOf('.');
    if (dot >= 0 && prefix.length <= dot) sections.push({ name: name.slice(0, dot), line: lineNo });
    const key = interpretKey(name);
    if (key.name === 'conf') {
      throw new ConfigError('conf cannot be set in the configuration file; use includeconf= if you want to include additional config files');
    }
    const flags = flagsOf(key.name);
    if (flags === undefined) {
      unknown.push(name);
      return;
    }
    options.push({ section: key.section, name: key.name, value: interpretValue(key, value, flags) });
  });
  return { options, sections, unknown };
}
