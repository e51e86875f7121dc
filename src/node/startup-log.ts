/**
 * Logging set-up from the options (-debug, -debugexclude, -loglevel, with Core's error
 * texts) and the lines Core writes when logging starts: version, data directory, config
 * file, then every config-file and command-line argument (secrets masked).
 */
import { InitError, defaultDataDir, type NodeConfig } from './config.js';
import { logCategoriesString, resolveLogCategory, SELECTABLE_LOG_LEVELS, type LogLevel } from './log-categories.js';
import { Logger } from './logging.js';
import { SENSITIVE, optionFlags } from './option-table.js';
import type { SettingValue } from './settings.js';

export function createLogger(config: NodeConfig, mocktime: () => number): Logger {
  const log = new Logger({
    filePath: config.debugLogFile,
    printToConsole: config.printToConsole,
    timestamps: config.logTimestamps,
    timeMicros: config.logTimeMicros,
    threadNames: config.logThreadNames,
    alwaysPrintCategoryLevel: config.logLevelAlways,
    // Core shrinks by default only when no -debug category is on.
    shrink: config.shrinkDebugFile ?? config.debug.length === 0,
    mocktime,
  });
  const categories = config.debug;
  // Categories listed before the last -debug=0 / -debug=none are disregarded.
  const last = Math.max(categories.lastIndexOf('0'), categories.lastIndexOf('none'));
  for (const cat of categories.slice(last + 1)) {
    if (!log.enableCategory(cat)) throw new InitError(`Unsupported logging category -debug=${cat}.`);
  }
  for (const cat of config.debugExclude) {
    if (!log.disableCategory(cat)) throw new InitError(`Unsupported logging category -debugexclude=${cat}.`);
  }
  const levels = SELECTABLE_LOG_LEVELS.join(', ');
  for (const value of config.logLevel) {
    if (value.indexOf(':', 3) < 0) {
      if (!SELECTABLE_LOG_LEVELS.includes(value as LogLevel)) {
        throw new InitError(`Unsupported global logging level -loglevel=${value}. Valid values: ${levels}.`);
      }
      log.setLevel(value as LogLevel);
      continue;
    }
    const [cat, level, ...extra] = value.split(':');
    const cats = resolveLogCategory(cat!);
    if (extra.length > 0 || !cats || cats.length !== 1 || !SELECTABLE_LOG_LEVELS.includes(level as LogLevel)) {
      throw new InitError(
        `Unsupported category-specific logging level -loglevel=${value}. Expected -loglevel=<category>:<loglevel>. Valid categories: ${logCategoriesString()}. Valid loglevels: ${levels}.`,
      );
    }
    log.setLevel(level as LogLevel, cat);
  }
  return log;
}

function writeSetting(name: string, value: SettingValue): string {
  if ((optionFlags(name) ?? 0) & SENSITIVE) return '****';
  return JSON.stringify(value);
}

/** The lines Core logs once debug.log is open. */
export function logStartup(log: Logger, config: NodeConfig, env: NodeJS.ProcessEnv, productVersion: string): void {
  log.info(`${productVersion}`);
  log.info(`Default data directory ${defaultDataDir(env)}`);
  log.info(`Using data directory ${config.netDir}`);
  const conf = config.confFile;
  if (conf.path === '') log.info('Config file: <disabled>');
  else if (conf.exists) log.info(`Config file: ${conf.path}`);
  else log.info(`Config file: ${conf.path} (not found, skipping)`);
  for (const line of conf.logLines) {
    if (line.startsWith('[warning] ')) log.warning(line.slice('[warning] '.length));
    else log.info(line);
  }
  const settings = config.args.settings;
  for (const [section, values] of settings.config) {
    for (const [name, list] of values) {
      for (const v of list) log.info(`Config file arg: ${section === '' ? '' : `[${section}] `}${name}=${writeSetting(name, v)}`);
    }
  }
  for (const [name, v] of settings.rw) log.info(`Setting file arg: ${name} = ${JSON.stringify(v)}`);
  for (const [name, list] of settings.commandLine) {
    for (const v of list) log.info(`Command-line arg: ${name}=${writeSetting(name, v)}`);
  }
}
