/**
 * The chain options of bitcoind's command line and bitcoin.conf, parsed exactly as Core's
 * ReadSigNetArgs / ReadRegTestArgs do (chainparams.cpp), into SelectParamsOptions. Every
 * failure is a ChainParamsError carrying Core's message, so start-up errors read the same.
 */
import {
  BIP9_DEPLOYMENTS,
  BURIED_DEPLOYMENTS,
  ChainParamsError,
  type BuriedDeployment,
  type ChainName,
  type SelectParamsOptions,
  type VersionBitsOverride,
} from './params.js';

/** The raw option values as the config layer collected them (each may be given several times). */
export interface ChainArgs {
  signetchallenge?: readonly string[];
  signetseednode?: readonly string[];
  testactivationheight?: readonly string[];
  vbparams?: readonly string[];
  /** Values of -test=<option>. */
  test?: readonly string[];
  fastprune?: boolean;
}

const INT_RANGES = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
} as const;

/**
 * Core's ToIntegral<T>: the whole string is an optional '-' and decimal digits (no '+',
 * no spaces) and the value fits T; otherwise no value.
 */
export function parseIntegral(text: string, type: keyof typeof INT_RANGES): bigint | undefined {
  if (!/^-?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  const [min, max] = INT_RANGES[type];
  return value < min || value > max ? undefined : value;
}

/**
 * Core's TryParseHex: pairs of hex digits, with whitespace allowed between pairs (not
 * inside one); an odd digit count or any other character fails.
 */
export function tryParseHex(text: string): Uint8Array | undefined {
  const out: number[] = [];
  let i = 0;
  while (i < text.length) {
    if (/[ \f\n\r\t\v]/.test(text[i]!)) {
      i++;
      continue;
    }
    if (i + 1 >= text.length) return undefined;
    const pair = text.slice(i, i + 2);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) return undefined;
    out.push(parseInt(pair, 16));
    i += 2;
  }
  return Uint8Array.from(out);
}

/** -signetchallenge: at most one value, in hex. */
export function parseSignetChallenge(values: readonly string[]): Uint8Array | undefined {
  if (values.length === 0) return undefined;
  if (values.length !== 1) throw new ChainParamsError('-signetchallenge cannot be multiple values.');
  const bytes = tryParseHex(values[0]!);
  if (!bytes) throw new ChainParamsError(`-signetchallenge must be hex, not '${values[0]!}'.`);
  return bytes;
}

/** One -testactivationheight=name@height value; the height is checked before the name, as in Core. */
export function parseTestActivationHeight(arg: string): [BuriedDeployment, number] {
  const at = arg.indexOf('@');
  if (at < 0) throw new ChainParamsError(`Invalid format (${arg}) for -testactivationheight=name@height.`);
  const height = parseIntegral(arg.slice(at + 1), 'int32');
  if (height === undefined || height < 0n || height >= 2n ** 31n - 1n) {
    throw new ChainParamsError(`Invalid height value (${arg}) for -testactivationheight=name@height.`);
  }
  const name = arg.slice(0, at);
  if (!(BURIED_DEPLOYMENTS as readonly string[]).includes(name)) {
    throw new ChainParamsError(`Invalid name (${arg}) for -testactivationheight=name@height.`);
  }
  return [name as BuriedDeployment, Number(height)];
}

/** One -vbparams=deployment:start:end[:min_activation_height] value. */
export function parseVbParams(arg: string): [string, VersionBitsOverride] {
  const parts = arg.split(':');
  if (parts.length < 3 || parts.length > 4) {
    throw new ChainParamsError('Version bits parameters malformed, expecting deployment:start:end[:min_activation_height]');
  }
  const start = parseIntegral(parts[1]!, 'int64');
  if (start === undefined) throw new ChainParamsError(`Invalid nStartTime (${parts[1]!})`);
  const timeout = parseIntegral(parts[2]!, 'int64');
  if (timeout === undefined) throw new ChainParamsError(`Invalid nTimeout (${parts[2]!})`);
  let minActivationHeight = 0;
  if (parts.length === 4) {
    const value = parseIntegral(parts[3]!, 'int64');
    if (value === undefined) throw new ChainParamsError(`Invalid min_activation_height (${parts[3]!})`);
    // Core keeps it in an int: the int64 value is narrowed the way the C++ conversion does.
    minActivationHeight = Number(BigInt.asIntN(32, value));
  }
  if (!(BIP9_DEPLOYMENTS as readonly string[]).includes(parts[0]!)) throw new ChainParamsError(`Invalid deployment (${parts[0]!})`);
  return [parts[0]!, { start, timeout, minActivationHeight }];
}

/**
 * All chain options at once, in Core's order (signet, then regtest's activation heights,
 * then version bits). Options of other chains are parsed only for the chain they shape,
 * because Core reads them only there; a bad -vbparams on mainnet is therefore not an error.
 */
export function readChainArgs(chain: ChainName, args: ChainArgs): SelectParamsOptions {
  const options: SelectParamsOptions = {};
  if (chain === 'signet') {
    const challenge = parseSignetChallenge(args.signetchallenge ?? []);
    if (challenge) options.signetChallenge = challenge;
    // Core's ReadSigNetArgs: any -signetseednode replaces the signet's DNS seeds, custom challenge or not.
    const seeds = args.signetseednode ?? [];
    if (seeds.length > 0) options.signetSeeds = seeds;
  }
  if (chain === 'regtest') {
    if (args.fastprune !== undefined) options.fastprune = args.fastprune;
    if ((args.test ?? []).includes('bip94')) options.enforceBip94 = true;
    const heights: Partial<Record<BuriedDeployment, number>> = {};
    for (const arg of args.testactivationheight ?? []) {
      const [name, height] = parseTestActivationHeight(arg);
      heights[name] = height;
    }
    options.testActivationHeights = heights;
    const vbparams: Record<string, VersionBitsOverride> = {};
    for (const arg of args.vbparams ?? []) {
      const [name, override] = parseVbParams(arg);
      vbparams[name] = override;
    }
    options.vbparams = vbparams;
  }
  return options;
}
