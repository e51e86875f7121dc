/**
 * The daemon's configuration: command line, then bitcoin.conf (+ includes), then chain
 * selection, in Core's order and with Core's init-error texts, exposed through typed
 * accessors. Nothing here touches the disk except reading config files.
 */
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { Args } from './args.js';
import { ConfigError, parseCommandLine } from './args-parse.js';
import { isDirectory, readConfigFiles, type ConfigFileReport } from './config-files.js';
import { ChainParamsError, readChainArgs, selectParams, type ChainArgs, type ChainName, type ChainParams } from '../consensus/index.js';
import type { MempoolPolicyOptions } from '../mempool/index.js';
import { DEFAULT_SIGNATURE_BACKEND, isSignatureBackendChoice, SIGNATURE_BACKEND_CHOICES, type SignatureBackendChoice } from '../script/index.js';
import { mempoolPolicyOptions } from './mempool-options.js';

/** A start-up failure: each message printed as `Error: <message>` on stderr, exit code 1. */
export class InitError extends Error {
  override readonly name = 'InitError';
  readonly messages: readonly string[];
  constructor(
    messages: string | readonly string[],
    /**
     * Core asked it as a question (ThreadSafeQuestion: "rebuild the databases?"), which a
     * daemon answers by printing the message bare — no "Error: " — and logging it as info.
     */
    readonly question = false,
  ) {
    const list = typeof messages === 'string' ? [messages] : messages;
    super(list.join('\n'));
    this.messages = list;
  }

  /** The stderr lines Core prints for it. */
  get printed(): string {
    return this.messages.map((m) => `${this.question ? '' : 'Error: '}${m}\n`).join('');
  }
}

/** Core's default data directory on Linux: $HOME/.bitcoin (/.bitcoin without HOME). */
export function defaultDataDir(env: NodeJS.ProcessEnv): string {
  const home = env['HOME'];
  return path.join(home === undefined || home === '' ? '/' : home, '.bitcoin');
}

export class NodeConfig {
  constructor(
    readonly args: Args,
    /** The selected chain's parameters, its chain options (-testactivationheight, ...) applied. */
    readonly network: ChainParams,
    /** The data directory (absolute); per-network files live in netDir. */
    readonly dataDir: string,
    readonly confFile: ConfigFileReport,
  ) {}

  get chain(): ChainName {
    return this.network.name;
  }

  /** Mempool policy options as Core reads them (mempool-options.ts); the coordinator refuses bad ones at start-up. */
  get mempoolPolicy(): MempoolPolicyOptions {
    return mempoolPolicyOptions(this.args);
  }

  /** -persistmempool: reload the mempool table at start-up (Core's mempool.dat). */
  get persistMempool(): boolean {
    return this.args.getBoolArg('persistmempool', true);
  }

  /** -prune as a byte target: 0 off, 1 manual (prune=1), else MiB converted to bytes. */
  get pruneTarget(): number {
    const prune = this.prune;
    return prune <= 1 ? Math.max(0, prune) : prune * 1024 * 1024;
  }

  get chainArgs(): ChainArgs {
    return chainArgsOf(this.args);
  }

  /** <datadir>/<network subfolder>, the datadir itself for main. */
  get netDir(): string {
    return this.network.dataSubdir === '' ? this.dataDir : path.join(this.dataDir, this.network.dataSubdir);
  }

  /**
   * Core's GetBlocksDirPath: the blk and rev files in <-blocksdir>/<network subfolder>/blocks
   * (-blocksdir relative to the working directory), by default <netdir>/blocks.
   */
  get blocksDir(): string {
    const given = this.args.getPathArg('blocksdir');
    const base = given === undefined ? this.dataDir : path.resolve(given);
    return path.join(base, this.network.dataSubdir, 'blocks');
  }

  /** Core's check of -blocksdir (AppInitParameterInteraction): it must name an existing directory. */
  blocksDirError(): string | undefined {
    const given = this.args.getPathArg('blocksdir');
    if (given === undefined || isDirectory(path.resolve(given))) return undefined;
    return `Specified blocks directory "${this.args.getArg('blocksdir') ?? ''}" does not exist.`;
  }

  /** A path option resolved against the network directory (Core's AbsPathForConfigVal). */
  netPath(p: string): string {
    return path.isAbsolute(p) ? p : path.join(this.netDir, p);
  }

  get helpRequested(): boolean {
    return ['?', 'h', 'help', 'help-debug'].some((n) => this.args.isArgSet(n));
  }
  get versionRequested(): boolean {
    return this.args.isArgSet('version');
  }

  // RPC server
  get server(): boolean {
    return this.args.getBoolArg('server', true);
  }
  get rest(): boolean {
    return this.args.getBoolArg('rest', false);
  }
  get rpcPortArg(): string | undefined {
    return this.args.getArg('rpcport');
  }
  get rpcBind(): string[] {
    return this.args.getArgs('rpcbind');
  }
  get rpcAllowIp(): string[] {
    return this.args.getArgs('rpcallowip');
  }
  get rpcUser(): string {
    return this.args.getArg('rpcuser') ?? '';
  }
  get rpcPassword(): string {
    return this.args.getArg('rpcpassword') ?? '';
  }
  get rpcAuth(): string[] {
    return this.args.getArgs('rpcauth');
  }
  /** undefined with -norpccookiefile. */
  get rpcCookieFile(): string | undefined {
    const p = this.args.getPathArg('rpccookiefile', '.cookie');
    return p === undefined ? undefined : this.netPath(p);
  }
  get rpcCookiePerms(): string | undefined {
    return this.args.getArg('rpccookieperms');
  }
  get rpcWhitelist(): string[] {
    return this.args.getArgs('rpcwhitelist');
  }
  get rpcWhitelistDefault(): boolean {
    return this.args.getBoolArg('rpcwhitelistdefault', this.rpcWhitelist.length > 0);
  }
  get rpcServerTimeout(): number {
    return this.args.getIntArg('rpcservertimeout', 30);
  }
  get rpcThreads(): number {
    return this.args.getIntArg('rpcthreads', 16);
  }
  get rpcWorkQueue(): number {
    return this.args.getIntArg('rpcworkqueue', 64);
  }
  /**
   * Core's bound on requests in flight (its worker threads plus its work queue, each at
   * least 1), beyond which it answers 503: only when -rpcthreads or -rpcworkqueue is given,
   * else null (unbounded: tsbtcd's front-ends have no threads to run out of).
   */
  get rpcRequestBound(): number | null {
    if (!this.args.isArgSet('rpcthreads') && !this.args.isArgSet('rpcworkqueue')) return null;
    return Math.max(this.rpcThreads, 1) + Math.max(this.rpcWorkQueue, 1);
  }
  /** Number of HTTP front-end processes sharing the RPC port (tsbtcd's own option); default one per core. */
  get rpcFrontends(): number {
    return Math.max(1, this.args.getIntArg('rpcfrontends', availableParallelism()));
  }

  // Logging
  /** undefined with -nodebuglogfile. */
  get debugLogFile(): string | undefined {
    const p = this.args.getPathArg('debuglogfile', 'debug.log');
    return p === undefined ? undefined : this.netPath(p);
  }
  get printToConsole(): boolean {
    return this.args.getBoolArg('printtoconsole', !this.args.getBoolArg('daemon', false));
  }
  get logTimestamps(): boolean {
    return this.args.getBoolArg('logtimestamps', true);
  }
  get logTimeMicros(): boolean {
    return this.args.getBoolArg('logtimemicros', false);
  }
  get logThreadNames(): boolean {
    return this.args.getBoolArg('logthreadnames', false);
  }
  get logLevelAlways(): boolean {
    return this.args.getBoolArg('loglevelalways', false);
  }
  get debug(): string[] {
    return this.args.getArgs('debug');
  }
  get debugExclude(): string[] {
    return this.args.getArgs('debugexclude');
  }
  get logLevel(): string[] {
    return this.args.getArgs('loglevel');
  }
  get shrinkDebugFile(): boolean | undefined {
    return this.args.getBoolArg('shrinkdebugfile');
  }

  // Chainstate and validation (read by the chainstate service)
  get par(): number {
    return this.args.getIntArg('par', 0);
  }
  /** -sigbackend (tsbtcd's own): native libsecp256k1 by default, or noble; anything else is an InitError. */
  get sigBackend(): SignatureBackendChoice {
    const value = this.args.getArg('sigbackend') ?? DEFAULT_SIGNATURE_BACKEND;
    if (!isSignatureBackendChoice(value)) {
      throw new InitError(`Invalid -sigbackend value "${value}" (one of ${SIGNATURE_BACKEND_CHOICES.join(', ')}).`);
    }
    return value;
  }
  get dbcache(): number {
    return this.args.getIntArg('dbcache', 450);
  }
  /**
   * Core's CalculateCacheSizes split of -dbcache as getchainstates reports it: the block
   * tree takes an eighth (at most 2 MiB), the coins database half the rest (at most 8
   * MiB), the coins cache what remains.
   */
  get coinsCacheBytes(): { db: number; tip: number } {
    let total = Math.max(0, this.dbcache) * 1024 * 1024;
    total -= Math.min(Math.floor(total / 8), 2 * 1024 * 1024);
    const db = Math.min(Math.floor(total / 2), 8 * 1024 * 1024);
    return { db, tip: total - db };
  }
  /** -maxsigcachesize in bytes for each of the signature and script-execution caches: half the MiB given (default 32), as Core splits it. */
  get sigCacheBytesEach(): number {
    const mib = Math.max(0, this.args.getIntArg('maxsigcachesize', 32));
    return Math.floor((mib * 1024 * 1024) / 2);
  }
  get assumeValid(): string | undefined {
    return this.args.getArg('assumevalid');
  }
  get txindex(): boolean {
    return this.args.getBoolArg('txindex', false);
  }
  /**
   * -blockfilterindex as Core parses it: unset or "0" none, "" or "1" every filter type,
   * otherwise every value must name a type ("basic" is the only one), else InitError.
   */
  get blockFilterTypes(): 'basic'[] {
    const value = this.args.getArg('blockfilterindex') ?? '0';
    if (value === '' || value === '1') return ['basic'];
    if (value === '0') return [];
    for (const name of this.args.getArgs('blockfilterindex')) {
      if (name !== 'basic') throw new InitError(`Unknown -blockfilterindex value ${name}.`);
    }
    return ['basic'];
  }
  /** -blockfilterindex covers the basic filter (validated at start-up by blockFilterTypes). */
  get blockFilterIndex(): boolean {
    return this.blockFilterTypes.includes('basic');
  }
  /** -coinstatsindex. */
  get coinStatsIndex(): boolean {
    return this.args.getBoolArg('coinstatsindex', false);
  }
  /** -txospenderindex (Core v31): spent output → the transaction spending it, for gettxspendingprevout. */
  get txoSpenderIndex(): boolean {
    return this.args.getBoolArg('txospenderindex', false);
  }
  /** -addressindex (tsbtcd's own): script hash → history, unspent outputs and spenders. */
  get addressIndex(): boolean {
    return this.args.getBoolArg('addressindex', false);
  }
  /** -websocket (tsbtcd's own): push events to subscribers on /ws of the RPC port. */
  get websocket(): boolean {
    return this.args.getBoolArg('websocket', false);
  }
  /** -esplora (tsbtcd's own): the Esplora-compatible HTTP API under /api/, unauthenticated like REST. */
  get esplora(): boolean {
    return this.args.getBoolArg('esplora', false);
  }
  get prune(): number {
    return this.args.getIntArg('prune', 0);
  }
  get reindex(): boolean {
    return this.args.getBoolArg('reindex', false);
  }
  get reindexChainstate(): boolean {
    return this.args.getBoolArg('reindex-chainstate', false);
  }
  get loadBlock(): string[] {
    return this.args.getArgs('loadblock').map((p) => path.resolve(p));
  }
  /** 0 = off. */
  get stopAtHeight(): number {
    return this.args.getIntArg('stopatheight', 0);
  }
  get checkBlocks(): number {
    return this.args.getIntArg('checkblocks', 6);
  }
  get checkLevel(): number {
    return this.args.getIntArg('checklevel', 3);
  }
  get blocksXor(): boolean {
    return this.args.getBoolArg('blocksxor', true);
  }
  /** 0 = real time. */
  get mocktime(): number {
    return this.args.getIntArg('mocktime', 0);
  }
  /** Test-only: milliseconds the start-up stays in warm-up (see services.ts). */
  get testWarmupMs(): number {
    return this.args.getIntArg('testwarmupms', 0);
  }
}

function chainArgsOf(args: Args): ChainArgs {
  const flag = args.getBoolArg('fastprune');
  return {
    signetchallenge: args.getArgs('signetchallenge'),
    signetseednode: args.getArgs('signetseednode'),
    testactivationheight: args.getArgs('testactivationheight'),
    vbparams: args.getArgs('vbparams'),
    test: args.getArgs('test'),
    ...(flag === undefined ? {} : { fastprune: flag }),
  };
}

/** Command line and config files to a NodeConfig, or an InitError with Core's wording. */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): NodeConfig {
  const args = new Args();
  try {
    for (const o of parseCommandLine(argv)) args.settings.addCommandLine(o.name, o.value);
  } catch (err) {
    if (err instanceof ConfigError) throw new InitError(`Error parsing command line arguments: ${err.message}`);
    throw err;
  }
  const dataDirArg = (): string | undefined => args.getPathArg('datadir');
  const resolveDataDir = (): string => {
    const d = dataDirArg();
    return d === undefined ? defaultDataDir(env) : path.resolve(d);
  };
  const given = dataDirArg();
  if (given !== undefined && !isDirectory(path.resolve(given))) {
    throw new InitError(`Specified data directory "${args.getArg('datadir') ?? ''}" does not exist.`);
  }
  let report: ConfigFileReport;
  try {
    report = readConfigFiles(args, resolveDataDir());
    // The config file may move the data directory.
    const moved = dataDirArg();
    if (moved !== undefined && !isDirectory(path.resolve(moved))) {
      throw new ConfigError(`specified data directory "${args.getArg('datadir') ?? ''}" does not exist.`);
    }
  } catch (err) {
    if (err instanceof ConfigError) throw new InitError(`Error reading configuration file: ${err.message}`);
    throw err;
  }
  let params: ChainParams;
  try {
    const chain = args.chain();
    args.selectNetwork(chain);
    params = selectParams(chain, readChainArgs(chain, chainArgsOf(args)));
  } catch (err) {
    if (err instanceof ConfigError || err instanceof ChainParamsError) throw new InitError(err.message);
    throw err;
  }
  // Core's -minimumchainwork overrides the network's on any chain (headers presync, IBD, assumevalid).
  const minimumChainWork = args.getArg('minimumchainwork');
  if (minimumChainWork !== undefined) {
    const hex = minimumChainWork.replace(/^0x/i, '');
    if (!/^[0-9a-fA-F]{1,64}$/.test(hex)) throw new InitError(`Invalid minimum work specified (${minimumChainWork}), must be up to 64 hex digits`);
    params = { ...params, minimumChainWork: BigInt(`0x${hex}`) };
  }
  return new NodeConfig(args, params, resolveDataDir(), report);
}
