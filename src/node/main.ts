/**
 * bitcoind's process contract for tsbtcd: parse the configuration, prepare the data
 * directory, open debug.log, then run the coordinator until it stops. Init errors print
 * `Error: <message>` on stderr and exit 1; otherwise nothing is written to stderr.
 */
import { createRequire } from 'node:module';
import { NodeClock } from './clock.js';
import { InitError, loadConfig, type NodeConfig } from './config.js';
import { Coordinator, PRODUCT_NAME } from './coordinator.js';
import { ensureDataDirs, readSettingsFile, writeSettingsFile } from './datadir.js';
import { createPidFile, lockDataDirectories, removePidFile } from './datadir-lock.js';
import type { Logger } from './logging.js';
import { networkOnlyOptions } from './option-table.js';
import { chooseSignatureBackend, NativeBackendUnavailableError } from '../script/index.js';
import { NET_IPV4, NET_IPV6, parseNetworkName } from '../net/index.js';
import { nodeServices } from './services.js';
import { createLogger, logStartup } from './startup-log.js';

const KNOWN_SECTIONS = new Set(['main', 'test', 'testnet4', 'signet', 'regtest']);
/** The values -test=<option> knows (Core's TEST_OPTIONS_DOC). */
const TEST_OPTIONS = new Set(['addrman', 'reindex_after_failure_noninteractive_yes', 'bip94']);

function productVersion(): string {
  const pkg = createRequire(import.meta.url)('../../../package.json') as { version: string };
  return `${PRODUCT_NAME} version v${pkg.version}`;
}

function printInitError(err: InitError): void {
  process.stderr.write(err.printed);
}

/** Options checked once logging is up, in Core's AppInitParameterInteraction order. */
function checkParameterInteraction(config: NodeConfig, log: Logger): void {
  // Core's InitParameterInteraction: with -onlynet leaving out IPv4 and IPv6 the DNS seeds
  // (which answer with IPv4 and IPv6 addresses) have nothing to give. After -connect's own soft-set.
  const onlynet = config.args.getArgs('onlynet').map(parseNetworkName);
  if (onlynet.length > 0 && !onlynet.some((n) => n === NET_IPV4 || n === NET_IPV6) && !config.args.isArgSet('connect') && config.args.softSetArg('dnsseed', '0')) {
    log.info('parameter interaction: -onlynet excludes IPv4 and IPv6 -> setting -dnsseed=0');
  }
  const misplaced = config.args.unsuitableSectionOnlyArgs(networkOnlyOptions());
  if (misplaced.length > 0) {
    throw new InitError(
      misplaced.map((arg) => `Config setting for ${arg} only applied on ${config.chain} network when in [${config.chain}] section.`).join('\n') + '\n',
    );
  }
  if (config.args.isArgSet('test')) {
    if (config.chain !== 'regtest') throw new InitError('-test=<option> can only be used with regtest');
    for (const option of config.args.getArgs('test')) {
      if (!TEST_OPTIONS.has(option)) warn(log, `Unrecognised option "${option}" provided in -test=<option>.`);
    }
  }
  if (config.chain === 'test') {
    log.info('Warning: Support for testnet3 is deprecated and will be removed in an upcoming release. Consider switching to testnet4.');
  }
  const unknown = config.confFile.sections.filter((s) => !KNOWN_SECTIONS.has(s.name));
  if (unknown.length > 0) {
    warn(log, unknown.map((s) => `${s.file}:${s.line} Section [${s.name}] is not recognized.\n`).join(''));
  }
  // Parse and validate the enabled filter types (Unknown -blockfilterindex value <name>.).
  void config.blockFilterTypes;
  // The signature backend, chosen before any service starts its worker pool (the pool
  // starts its threads on the same one). An addon that cannot load stops start-up: no
  // silent fallback to a backend fifty times slower.
  try {
    log.info(`Using signature backend ${chooseSignatureBackend(config.sigBackend).name}`);
  } catch (err) {
    if (err instanceof NativeBackendUnavailableError) throw new InitError(err.message);
    throw err;
  }
}

/** -help: Core's usage line, then tsbtcd's own options. */
const HELP_TEXT = `
Usage:  tsbtcd [options]                     Start tsbtcd

Options:

  -sigbackend=<backend>
       Signature verification backend: native (libsecp256k1 through the
       Node-API addon \`make build\` compiles; needs gcc and libsecp256k1-dev)
       or noble (@noble/secp256k1, pure JavaScript, about 50x slower). The node
       refuses to start when the chosen backend cannot load. (default: native)
`;

/** Core's InitWarning: logged, and shown on the console (stderr) as "Warning: …". */
function warn(log: Logger, text: string): void {
  log.warning(text);
  process.stderr.write(`Warning: ${text}\n`);
}

/** Runs the daemon; resolves to the process exit code. */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // Core's AppInitBasicSetup: umask(077), so the data directory, wallets, the cookie and logs
  // are the user's alone (files 0600, directories 0700).
  process.umask(0o077);
  let config: NodeConfig;
  let log: Logger;
  const clock = new NodeClock();
  try {
    config = loadConfig(argv, env);
    if (config.helpRequested || config.versionRequested) {
      process.stdout.write(`${productVersion()}\n${config.helpRequested ? HELP_TEXT : ''}`);
      return 0;
    }
    for (const w of config.confFile.stderrWarnings) process.stderr.write(`${w}\n`);
    ensureDataDirs(config);
    const settingsWarnings = readSettingsFile(config);
    writeSettingsFile(config, PRODUCT_NAME);
    // Core's order: settings, the directory locks (AppInitSanityChecks), the PID file, then debug.log.
    lockDataDirectories(config, PRODUCT_NAME);
    createPidFile(config);
    log = createLogger(config, () => clock.mocktime);
    try {
      log.open();
    } catch {
      throw new InitError(`Could not open debug log file ${config.debugLogFile}`);
    }
    logStartup(log, config, env, productVersion());
    for (const w of settingsWarnings) log.warning(w.replace(/^\[warning\] /, ''));
    clock.setMockTime(Math.max(0, config.mocktime));
  } catch (err) {
    if (err instanceof InitError) {
      printInitError(err);
      removePidFile(() => undefined);
      return 1;
    }
    throw err;
  }

  try {
    checkParameterInteraction(config, log);
  } catch (err) {
    if (!(err instanceof InitError)) throw err;
    for (const m of err.messages) log.error(m);
    printInitError(err);
    removePidFile((m) => log.info(m));
    log.close();
    return 1;
  }

  process.on('uncaughtException', (err) => {
    log.error(`Uncaught exception: ${err.stack ?? err.message}`);
    process.stderr.write(`Error: ${err.message}\n`);
    process.exit(1);
  });
  const coordinator = new Coordinator(config, log, clock, nodeServices(config));
  const onSignal = () => coordinator.requestShutdown();
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // A write to a closed pipe must not kill the node (Core ignores SIGPIPE).
  process.on('SIGPIPE', () => undefined);
  process.on('SIGHUP', () => log.reopen());
  const code = await coordinator.run();
  log.close();
  return code;
}

/** The bin/tsbtcd entry: exit with main's code (and log a crash instead of dying mute). */
export function runFromCommandLine(): void {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`Error: ${(err as Error)?.stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
