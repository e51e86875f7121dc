/**
 * Reading bitcoin.conf (-conf, default `bitcoin.conf` in the data directory) and its
 * -includeconf files into the settings, with Core's errors and warnings.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError, parseConfigText, type OptionFlagsLookup, type ParsedConfigFile } from './args-parse.js';
import type { Args } from './args.js';

export interface ConfigFileReport {
  /** The config file path ('' with -noconf). */
  readonly path: string;
  exists: boolean;
  /** Lines for debug.log once it is open (unknown keys, included files). */
  readonly logLines: string[];
  /** Section names seen with file and line, checked against the known ones later. */
  readonly sections: { name: string; file: string; line: number }[];
  /** Core prints these on stderr immediately (recursive -includeconf). */
  readonly stderrWarnings: string[];
}

export function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function readText(p: string): string | undefined {
  try {
    return fs.readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}

function apply(args: Args, parsed: ParsedConfigFile, file: string, report: ConfigFileReport): void {
  for (const o of parsed.options) args.settings.addConfig(o.section, o.name, o.value);
  for (const s of parsed.sections) report.sections.push({ ...s, file });
  for (const k of parsed.unknown) report.logLines.push(`[warning] Ignoring unknown configuration value ${k}`);
}

/**
 * Reads the config file(s); throws ConfigError with the text after "Error reading configuration file: ".
 * `flagsOf` is the reading program's option table (keys it does not know are ignored).
 */
export function readConfigFiles(args: Args, datadir: string, flagsOf?: OptionFlagsLookup): ConfigFileReport {
  const conf = args.getPathArg('conf', 'bitcoin.conf');
  const confPath = conf === undefined ? '' : path.isAbsolute(conf) ? conf : path.join(datadir, conf);
  const report: ConfigFileReport = { path: confPath, exists: false, logLines: [], sections: [], stderrWarnings: [] };
  if (confPath === '') return report;
  if (isDirectory(confPath)) throw new ConfigError(`Config file "${confPath}" is a directory.`);
  const text = readText(confPath);
  if (text === undefined) {
    if (args.isArgSet('conf')) throw new ConfigError(`specified config file "${confPath}" could not be opened.`);
    return report;
  }
  report.exists = true;
  apply(args, parseConfigText(text, flagsOf), confPath, report);

  // -noincludeconf on the command line disables includes altogether.
  if (args.settings.commandLine.has('includeconf')) return report;
  const chain = chainSection(args);
  const includes = (section: string, skip = 0): string[] => {
    const values = args.settings.config.get(section)?.get('includeconf') ?? [];
    let negated = 0;
    values.forEach((v, i) => {
      if (v === false) negated = i + 1;
    });
    return values.slice(Math.max(skip, negated)).map(String);
  };
  const chainCount = args.settings.config.get(chain)?.get('includeconf')?.length ?? 0;
  const topCount = args.settings.config.get('')?.get('includeconf')?.length ?? 0;
  for (const name of [...includes(chain), ...includes('')]) {
    const p = path.isAbsolute(name) ? name : path.join(datadir, name);
    if (isDirectory(p)) throw new ConfigError(`Included config file "${p}" is a directory.`);
    const included = readText(p);
    if (included === undefined) throw new ConfigError(`Failed to include configuration file ${name}`);
    apply(args, parseConfigText(included, flagsOf), name, report);
    report.logLines.push(`Included configuration file ${name}`);
  }
  // Included files may not include further files.
  for (const name of [...includes(chain, chainCount), ...includes('', topCount)]) {
    report.stderrWarnings.push(`warning: -includeconf cannot be used from included files; ignoring -includeconf=${name}`);
  }
  return report;
}

/** The chain's section name as far as the settings read so far tell (errors surface later). */
function chainSection(args: Args): string {
  try {
    return args.chain();
  } catch {
    return '';
  }
}
