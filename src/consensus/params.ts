/**
 * Network parameters (Core's CChainParams and Consensus::Params, kernel/chainparams.cpp,
 * v31.0): identity (magic, ports, data directory), genesis, proof-of-work constants,
 * buried deployment heights, BIP9 deployments, script-flag exceptions and the release
 * data (assumevalid, minimum chain work, chain tx statistics).
 *
 * Conventions: block hashes that are compared with display strings (BIP34 hash,
 * assumevalid, script-flag exceptions) are display-order hex; `genesisHash` is in
 * internal order like every IndexedHeader.hash. BIP9 times are bigint because Core's
 * NO_TIMEOUT is INT64_MAX, which a double cannot hold, and getdeploymentinfo prints it.
 */
import { ByteWriter, fromHex, hashToHex, sha256d, type Block } from '../primitives/index.js';
import { chainPrefixes, VerifyFlags, type ChainName } from '../script/index.js';
import { FIXED_SEEDS_MAIN, FIXED_SEEDS_SIGNET, FIXED_SEEDS_TESTNET3, FIXED_SEEDS_TESTNET4 } from './chainparams-seeds.js';
import { genesisBlock } from './genesis.js';

export type { ChainName } from '../script/index.js';

/** Core's BIP9Deployment::ALWAYS_ACTIVE: the deployment is active from genesis. */
export const ALWAYS_ACTIVE = -1n;
/** Core's BIP9Deployment::NEVER_ACTIVE: the deployment is disabled (state FAILED, not reported). */
export const NEVER_ACTIVE = -2n;
/** Core's BIP9Deployment::NO_TIMEOUT (INT64_MAX). */
export const NO_TIMEOUT = 9223372036854775807n;

/** Core's DEFAULT_MAX_TIP_AGE: a tip older than this keeps the node in initial block download. */
export const DEFAULT_MAX_TIP_AGE = 24 * 60 * 60;

/** BIP9 deployments, in Core's DeploymentPos order (the order ComputeBlockVersion and RPCs walk them). */
export const BIP9_DEPLOYMENTS = ['testdummy', 'taproot'] as const;
export type Bip9DeploymentName = (typeof BIP9_DEPLOYMENTS)[number];

/**
 * Buried deployments by the names -testactivationheight accepts (Core's GetBuriedDeployment):
 * bip34 = DEPLOYMENT_HEIGHTINCB, dersig = BIP66, cltv = BIP65, csv = BIP68/112/113, segwit = BIP141/143/147.
 */
export const BURIED_DEPLOYMENTS = ['bip34', 'dersig', 'cltv', 'csv', 'segwit'] as const;
export type BuriedDeployment = (typeof BURIED_DEPLOYMENTS)[number];

export interface Bip9Deployment {
  /** Version bit signalled (0..28). */
  readonly bit: number;
  /** Median-time-past at which signalling starts, or ALWAYS_ACTIVE / NEVER_ACTIVE. */
  readonly startTime: bigint;
  /** Median-time-past after which an unlocked deployment fails, or NO_TIMEOUT. */
  readonly timeout: bigint;
  /** Lowest height at which a locked-in deployment may become active. */
  readonly minActivationHeight: number;
  /** Blocks per signalling period. */
  readonly period: number;
  /** Signalling blocks per period needed to lock in. */
  readonly threshold: number;
}

/** Core's ChainTxData: a known point on the chain, used to estimate verification progress. */
export interface ChainTxData {
  readonly time: number;
  readonly txCount: number;
  readonly txRate: number;
}

export interface ChainParams {
  readonly name: ChainName;
  /** P2P message start and blk*.dat framing magic. */
  readonly messageStart: Uint8Array;
  readonly defaultPort: number;
  /** DNS seeds queried for peer addresses when the address manager is empty (Core's vSeeds). */
  readonly dnsSeeds: readonly string[];
  /**
   * Core's vFixedSeeds: BIP155-serialized (network, address, port) tuples, byte for byte
   * as Core carries them (chainparams-seeds.ts), added to an empty address manager as a
   * last resort. None on regtest and on a custom signet.
   */
  readonly fixedSeeds: Uint8Array;
  readonly rpcPort: number;
  /** Sub-directory of the data directory ('' for main). */
  readonly dataSubdir: string;
  readonly genesis: Block;
  /** Internal byte order, as IndexedHeader.hash. */
  readonly genesisHash: Uint8Array;
  readonly genesisHashHex: string;
  readonly powLimit: bigint;
  readonly powLimitBits: number;
  readonly targetSpacing: number;
  readonly targetTimespan: number;
  /** Blocks per retarget period (Core's DifficultyAdjustmentInterval). */
  readonly difficultyAdjustmentInterval: number;
  readonly allowMinDifficultyBlocks: boolean;
  readonly noRetargeting: boolean;
  /** BIP94: timewarp rule and first-block-of-period retarget base (testnet4; regtest with -test=bip94). */
  readonly enforceBip94: boolean;
  /** Whether blocks carry a BIP325 signet solution. */
  readonly signetBlocks: boolean;
  readonly signetChallenge: Uint8Array | undefined;
  readonly subsidyHalvingInterval: number;
  /** The block exempted from P2SH (the script-flag exception mapped to no flags), if any. */
  readonly bip16ExceptionHash: string | undefined;
  readonly bip34Height: number;
  /** Display hex; all zeros where Core leaves it null. */
  readonly bip34Hash: string;
  readonly bip65Height: number;
  readonly bip66Height: number;
  readonly csvHeight: number;
  readonly segwitHeight: number;
  readonly deployments: Readonly<Record<Bip9DeploymentName, Bip9Deployment>>;
  /** Display-hex block hash → the script verification flags that block is checked with instead of the defaults. */
  readonly scriptFlagExceptions: ReadonlyMap<string, number>;
  /** Display hex; all zeros means none (script checks always run). */
  readonly defaultAssumeValid: string;
  readonly minimumChainWork: bigint;
  readonly pruneAfterHeight: number;
  readonly isMockableChain: boolean;
  readonly isTestChain: boolean;
  readonly defaultConsistencyChecks: boolean;
  readonly maxTipAge: number;
  /** Core's MinBIP9WarningHeight: blocks below it never count toward unknown-rule warnings. */
  readonly minBip9WarningHeight: number;
  readonly bech32Hrp: string;
  readonly chainTxData: ChainTxData;
}

/** A BIP9 override from -vbparams (regtest only). */
export interface VersionBitsOverride {
  start: bigint | number;
  timeout: bigint | number;
  minActivationHeight?: number;
}

export interface SelectParamsOptions {
  /** -signetchallenge (signet only); the default signet's challenge when absent. */
  signetChallenge?: Uint8Array;
  /** -signetseednode (signet only): replaces the signet's DNS seeds (Core's SigNetOptions::seeds). */
  signetSeeds?: readonly string[];
  /** -testactivationheight (regtest only). */
  testActivationHeights?: Partial<Record<BuriedDeployment, number>>;
  /** -vbparams (regtest only), by deployment name. */
  vbparams?: Record<string, VersionBitsOverride>;
  /** -test=bip94 (regtest only). */
  enforceBip94?: boolean;
  /** -fastprune (regtest only): prune after height 100 instead of 1000. */
  fastprune?: boolean;
}

/** An invalid chain option; `message` is Core's text for the same failure. */
export class ChainParamsError extends Error {
  override readonly name = 'ChainParamsError';
}

/** The challenge of the default public signet (1-of-2 bare multisig). */
export const DEFAULT_SIGNET_CHALLENGE = fromHex(
  '512103ad5e0edad18cb1f0fc0d28a3d4f1f3e445640337489abb10404f2d1e086be430210359ef5021964fe22d6f8e05b2463c9540ce96883fe3b278760f048f5189f2e6c452ae',
);

const ZERO_HASH_HEX = '0'.repeat(64);
const POW_LIMIT_DIFF1 = BigInt('0x00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffff');
const POW_LIMIT_SIGNET = BigInt('0x00000377ae000000000000000000000000000000000000000000000000000000');
const POW_LIMIT_REGTEST = BigInt('0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff');
const TWO_WEEKS = 14 * 24 * 60 * 60;
const TEN_MINUTES = 10 * 60;

/**
 * Signet's message start: the first four bytes of SHA256d of the challenge serialized
 * with its CompactSize length, so every custom signet gets its own network magic.
 */
export function signetMessageStart(challenge: Uint8Array): Uint8Array {
  return sha256d(new ByteWriter(challenge.length + 9).varBytes(challenge).finish()).slice(0, 4);
}

/** A BIP9 deployment from Core's fields, in chainparams.cpp's order (threshold before period). */
function deployment(bit: number, startTime: bigint, timeout: bigint, minActivationHeight: number, threshold: number, period: number): Bip9Deployment {
  return { bit, startTime, timeout, minActivationHeight, period, threshold };
}

/** What most networks share; each network below states only where it differs. */
const DEFAULTS = {
  powLimit: POW_LIMIT_DIFF1,
  powLimitBits: 0x1d00ffff,
  targetSpacing: TEN_MINUTES,
  targetTimespan: TWO_WEEKS,
  allowMinDifficultyBlocks: false,
  noRetargeting: false,
  enforceBip94: false,
  signetBlocks: false,
  signetChallenge: undefined,
  fixedSeeds: new Uint8Array(0),
  subsidyHalvingInterval: 210000,
  scriptFlagExceptions: new Map<string, number>(),
  pruneAfterHeight: 1000,
  minBip9WarningHeight: 0,
  isMockableChain: false,
  defaultConsistencyChecks: false,
} satisfies Partial<ChainParams>;

/** Buried heights of the networks that start with every soft fork active (testnet4, signet). */
const ACTIVE_FROM_HEIGHT_1 = { bip34Height: 1, bip34Hash: ZERO_HASH_HEX, bip65Height: 1, bip66Height: 1, csvHeight: 1, segwitHeight: 1 };

/** Fields computed from the others rather than stated per network. */
type Derived = 'name' | 'genesis' | 'genesisHash' | 'genesisHashHex' | 'difficultyAdjustmentInterval' | 'bip16ExceptionHash' | 'isTestChain' | 'maxTipAge' | 'bech32Hrp';
type Stated = Omit<ChainParams, Derived | keyof typeof DEFAULTS> & Partial<Pick<ChainParams, keyof typeof DEFAULTS>>;

/** Completes a network's stated fields with the defaults and the derived fields, frozen. */
function finish(name: ChainName, genesis: Block, stated: Stated): ChainParams {
  const rest = { ...DEFAULTS, ...stated };
  let bip16ExceptionHash: string | undefined;
  for (const [hash, flags] of rest.scriptFlagExceptions) if (flags === VerifyFlags.NONE) bip16ExceptionHash = hash;
  return Object.freeze({
    ...rest,
    name,
    genesis,
    genesisHash: genesis.header.hash,
    genesisHashHex: hashToHex(genesis.header.hash),
    difficultyAdjustmentInterval: rest.targetTimespan / rest.targetSpacing,
    bip16ExceptionHash,
    isTestChain: name !== 'main',
    maxTipAge: DEFAULT_MAX_TIP_AGE,
    bech32Hrp: chainPrefixes(name).bech32Hrp,
  });
}

function mainParams(): ChainParams {
  return finish('main', genesisBlock('main'), {
    messageStart: Uint8Array.of(0xf9, 0xbe, 0xb4, 0xd9),
    defaultPort: 8333,
    dnsSeeds: ['seed.bitcoin.sipa.be.', 'dnsseed.bluematt.me.', 'seed.bitcoin.jonasschnelli.ch.', 'seed.btc.petertodd.net.', 'seed.bitcoin.sprovoost.nl.', 'dnsseed.emzy.de.', 'seed.bitcoin.wiz.biz.', 'seed.mainnet.achownodes.xyz.'],
    fixedSeeds: FIXED_SEEDS_MAIN,
    rpcPort: 8332,
    dataSubdir: '',
    bip34Height: 227931,
    bip34Hash: '000000000000024b89b42a942fe0d9fea3bb44ab7bd1b19115dd6a759c0808b8',
    bip65Height: 388381,
    bip66Height: 363725,
    csvHeight: 419328,
    segwitHeight: 481824,
    // Taproot's activation height and one signalling window.
    minBip9WarningHeight: 711648,
    deployments: {
      testdummy: deployment(28, NEVER_ACTIVE, NO_TIMEOUT, 0, 1815, 2016),
      taproot: deployment(2, 1619222400n, 1628640000n, 709632, 1815, 2016),
    },
    scriptFlagExceptions: new Map([
      ['00000000000002dc756eebf4f49723ed8d30cc28a5f108eb94b1ba88ac4f9c22', VerifyFlags.NONE],
      ['0000000000000000000f14c35b2d841e986ab5441de8c585d5ffe55ea1e395ad', VerifyFlags.P2SH | VerifyFlags.WITNESS],
    ]),
    defaultAssumeValid: '00000000000000000000ccebd6d74d9194d8dcdc1d177c478e094bfad51ba5ac', // 938343
    minimumChainWork: BigInt('0x0000000000000000000000000000000000000001128750f82f4c366153a3a030'),
    pruneAfterHeight: 100000,
    chainTxData: { time: 1772055173, txCount: 1315805869, txRate: 5.40111006496122 },
  });
}

function testnet3Params(): ChainParams {
  return finish('test', genesisBlock('test'), {
    messageStart: Uint8Array.of(0x0b, 0x11, 0x09, 0x07),
    defaultPort: 18333,
    dnsSeeds: ['testnet-seed.bitcoin.jonasschnelli.ch.', 'seed.tbtc.petertodd.net.', 'seed.testnet.bitcoin.sprovoost.nl.', 'testnet-seed.bluematt.me.', 'seed.testnet.achownodes.xyz.'],
    fixedSeeds: FIXED_SEEDS_TESTNET3,
    rpcPort: 18332,
    dataSubdir: 'testnet3',
    allowMinDifficultyBlocks: true,
    bip34Height: 21111,
    bip34Hash: '0000000023b3a96d3484e5abb3755c413e7d41500f8e2a5c3f0dd01299cd8ef8',
    bip65Height: 581885,
    bip66Height: 330776,
    csvHeight: 770112,
    segwitHeight: 834624,
    // Segwit's activation height and one signalling window.
    minBip9WarningHeight: 836640,
    deployments: {
      testdummy: deployment(28, NEVER_ACTIVE, NO_TIMEOUT, 0, 1512, 2016),
      taproot: deployment(2, 1619222400n, 1628640000n, 0, 1512, 2016),
    },
    scriptFlagExceptions: new Map([['00000000dd30457c001f4095d208cc1296b0eed002427aa599874af7a432b105', VerifyFlags.NONE]]),
    defaultAssumeValid: '000000007a61e4230b28ac5cb6b5e5a0130de37ac1faf2f8987d2fa6505b67f4', // 4842348
    minimumChainWork: BigInt('0x0000000000000000000000000000000000000000000017dde1c649f3708d14b6'),
    chainTxData: { time: 1772051651, txCount: 536108416, txRate: 0.02691479016257117 },
  });
}

function testnet4Params(): ChainParams {
  return finish('testnet4', genesisBlock('testnet4'), {
    messageStart: Uint8Array.of(0x1c, 0x16, 0x3f, 0x28),
    defaultPort: 48333,
    dnsSeeds: ['seed.testnet4.bitcoin.sprovoost.nl.', 'seed.testnet4.wiz.biz.'],
    fixedSeeds: FIXED_SEEDS_TESTNET4,
    rpcPort: 48332,
    dataSubdir: 'testnet4',
    allowMinDifficultyBlocks: true,
    enforceBip94: true,
    ...ACTIVE_FROM_HEIGHT_1,
    deployments: {
      testdummy: deployment(28, NEVER_ACTIVE, NO_TIMEOUT, 0, 1512, 2016),
      taproot: deployment(2, ALWAYS_ACTIVE, NO_TIMEOUT, 0, 1512, 2016),
    },
    defaultAssumeValid: '0000000002368b1e4ee27e2e85676ae6f9f9e69579b29093e9a82c170bf7cf8a', // 123613
    minimumChainWork: BigInt('0x0000000000000000000000000000000000000000000009a0fe15d0177d086304'),
    chainTxData: { time: 1772013387, txCount: 14191421, txRate: 0.01848579579528412 },
  });
}

/**
 * Signet with the default challenge, or a custom signet (Core's SigNetParams). Only the
 * default signet has fixed seeds and DNS seeds; -signetseednode replaces the DNS seeds of
 * either (Core assigns vSeeds from SigNetOptions::seeds after choosing the challenge).
 */
function signetParams(challenge: Uint8Array | undefined, seeds: readonly string[] | undefined): ChainParams {
  const isDefault = challenge === undefined;
  const bin = challenge ?? DEFAULT_SIGNET_CHALLENGE;
  return finish('signet', genesisBlock('signet'), {
    messageStart: signetMessageStart(bin),
    defaultPort: 38333,
    dnsSeeds: seeds ? [...seeds] : isDefault ? ['seed.signet.bitcoin.sprovoost.nl.', 'seed.signet.achownodes.xyz.'] : [],
    fixedSeeds: isDefault ? FIXED_SEEDS_SIGNET : new Uint8Array(0),
    rpcPort: 38332,
    dataSubdir: 'signet',
    powLimit: POW_LIMIT_SIGNET,
    powLimitBits: 0x1e0377ae,
    signetBlocks: true,
    signetChallenge: bin.slice(),
    ...ACTIVE_FROM_HEIGHT_1,
    deployments: {
      testdummy: deployment(28, NEVER_ACTIVE, NO_TIMEOUT, 0, 1815, 2016),
      taproot: deployment(2, ALWAYS_ACTIVE, NO_TIMEOUT, 0, 1815, 2016),
    },
    // A custom challenge is a different network: none of the public signet's release data applies.
    defaultAssumeValid: isDefault ? '00000008414aab61092ef93f1aacc54cf9e9f16af29ddad493b908a01ff5c329' : ZERO_HASH_HEX, // 293175
    minimumChainWork: isDefault ? BigInt('0x00000000000000000000000000000000000000000000000000000b463ea0a4b8') : 0n,
    chainTxData: isDefault ? { time: 1772055248, txCount: 28676833, txRate: 0.06736623436338929 } : { time: 0, txCount: 0, txRate: 0 },
  });
}

/** Regtest's buried heights, field by -testactivationheight name. */
const BURIED_FIELD = {
  bip34: 'bip34Height',
  dersig: 'bip66Height',
  cltv: 'bip65Height',
  csv: 'csvHeight',
  segwit: 'segwitHeight',
} as const satisfies Record<BuriedDeployment, keyof ChainParams>;

/** An option value as Core's int64, or Core's "Invalid <what> (<value>)" error. */
function toInt64(value: bigint | number, what: string): bigint {
  const v = typeof value === 'bigint' ? value : Number.isSafeInteger(value) ? BigInt(value) : undefined;
  if (v === undefined || v < -(2n ** 63n) || v >= 2n ** 63n) throw new ChainParamsError(`Invalid ${what} (${String(value)})`);
  return v;
}

/** Regtest with its test options applied (Core's CRegTestParams(RegTestOptions)). */
function regtestParams(options: SelectParamsOptions): ChainParams {
  const heights = { bip34Height: 1, bip66Height: 1, bip65Height: 1, csvHeight: 1, segwitHeight: 0 };
  for (const [name, height] of Object.entries(options.testActivationHeights ?? {})) {
    if (height === undefined) continue;
    const arg = `${name}@${height}`;
    if (!Number.isInteger(height) || height < 0 || height >= 0x7fffffff) {
      throw new ChainParamsError(`Invalid height value (${arg}) for -testactivationheight=name@height.`);
    }
    if (!(name in BURIED_FIELD)) throw new ChainParamsError(`Invalid name (${arg}) for -testactivationheight=name@height.`);
    heights[BURIED_FIELD[name as BuriedDeployment]] = height;
  }
  const deployments: Record<Bip9DeploymentName, Bip9Deployment> = {
    testdummy: deployment(28, 0n, NO_TIMEOUT, 0, 108, 144),
    taproot: deployment(2, ALWAYS_ACTIVE, NO_TIMEOUT, 0, 108, 144),
  };
  for (const [name, override] of Object.entries(options.vbparams ?? {})) {
    if (!(BIP9_DEPLOYMENTS as readonly string[]).includes(name)) throw new ChainParamsError(`Invalid deployment (${name})`);
    const current = deployments[name as Bip9DeploymentName];
    // Core stores min_activation_height in an int: wider values wrap as the C++ conversion does.
    const minActivationHeight = Number(BigInt.asIntN(32, toInt64(override.minActivationHeight ?? 0, 'min_activation_height')));
    deployments[name as Bip9DeploymentName] = {
      ...current,
      startTime: toInt64(override.start, 'nStartTime'),
      timeout: toInt64(override.timeout, 'nTimeout'),
      minActivationHeight,
    };
  }
  return finish('regtest', genesisBlock('regtest'), {
    messageStart: Uint8Array.of(0xfa, 0xbf, 0xb5, 0xda),
    defaultPort: 18444,
    dnsSeeds: ['dummySeed.invalid.'],
    rpcPort: 18443,
    dataSubdir: 'regtest',
    powLimit: POW_LIMIT_REGTEST,
    powLimitBits: 0x207fffff,
    targetTimespan: 24 * 60 * 60,
    allowMinDifficultyBlocks: true,
    noRetargeting: true,
    enforceBip94: options.enforceBip94 ?? false,
    subsidyHalvingInterval: 150,
    ...heights,
    bip34Hash: ZERO_HASH_HEX,
    deployments,
    defaultAssumeValid: ZERO_HASH_HEX,
    minimumChainWork: 0n,
    pruneAfterHeight: options.fastprune ? 100 : 1000,
    isMockableChain: true,
    defaultConsistencyChecks: true,
    chainTxData: { time: 0, txCount: 0, txRate: 0.001 },
  });
}

const fixed = new Map<ChainName, ChainParams>();

/**
 * Core's CreateChainParams: the parameters of `chain` with its command-line options
 * applied. As in Core, options that belong to another chain are ignored (-signetchallenge
 * only shapes signet; -testactivationheight, -vbparams, -test=bip94 and -fastprune only
 * regtest). Throws ChainParamsError with Core's message for an invalid option.
 */
export function selectParams(chain: ChainName, options: SelectParamsOptions = {}): ChainParams {
  switch (chain) {
    case 'signet':
      return signetParams(options.signetChallenge, options.signetSeeds);
    case 'regtest':
      return regtestParams(options);
    default: {
      let params = fixed.get(chain);
      if (!params) {
        params = chain === 'main' ? mainParams() : chain === 'test' ? testnet3Params() : testnet4Params();
        fixed.set(chain, params);
      }
      return params;
    }
  }
}

/** Height at which a buried deployment activates (Core's Consensus::Params::DeploymentHeight). */
export function buriedDeploymentHeight(params: ChainParams, dep: BuriedDeployment): number {
  return params[BURIED_FIELD[dep]];
}
