/**
 * Genesis blocks (Core's CreateGenesisBlock in kernel/chainparams.cpp): every network's
 * first block is rebuilt from its constants and its hash checked against the value Core
 * asserts, so a wrong constant fails at start-up instead of forking the node off.
 */
import {
  BlockHeader,
  computeMerkleRoot,
  concatBytes,
  fromHex,
  hashToHex,
  NULL_OUTPOINT,
  Transaction,
  type Block,
} from '../primitives/index.js';
import { encodeScriptNum, OP, pushData } from '../script/index.js';
import { COIN } from './amounts.js';

/** The headline every genesis block except testnet4's commits to. */
export const SATOSHI_GENESIS_MESSAGE = 'The Times 03/Jan/2009 Chancellor on brink of second bailout for banks';

/** The uncompressed key Satoshi's genesis output pays to (main, testnet3, signet, regtest). */
const SATOSHI_GENESIS_KEY = fromHex(
  '04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f',
);

export const TESTNET4_GENESIS_MESSAGE = '03/May/2024 000000000000000000001ebd58c244970b3aa9d783bb001011fbe8ea8e98e00e';

/** The output script of testnet4's genesis coinbase: a push of 33 zero bytes, OP_CHECKSIG. */
const TESTNET4_GENESIS_SCRIPT = concatBytes(pushData(new Uint8Array(33)), Uint8Array.of(OP.OP_CHECKSIG));

export interface GenesisSpec {
  readonly message: string;
  readonly outputScript: Uint8Array;
  readonly time: number;
  readonly nonce: number;
  readonly bits: number;
  readonly version: number;
  readonly reward: bigint;
  /** The hash Core asserts, in display order. */
  readonly expectedHash: string;
}

/**
 * Builds a genesis block as Core does: one coinbase whose scriptSig is
 * push(486604799) push(CScriptNum 4) push(message), paying `reward` to `outputScript`.
 * 486604799 is 0x1d00ffff, the difficulty-1 bits, kept for every network.
 */
export function createGenesisBlock(spec: GenesisSpec): Block {
  const scriptSig = concatBytes(
    pushData(encodeScriptNum(486604799)),
    pushData(encodeScriptNum(4)),
    pushData(new TextEncoder().encode(spec.message)),
  );
  const coinbase = new Transaction({
    version: 1,
    inputs: [{ prevout: NULL_OUTPOINT, scriptSig, sequence: 0xffffffff, witness: [] }],
    outputs: [{ value: spec.reward, scriptPubKey: spec.outputScript }],
    locktime: 0,
  });
  const header = new BlockHeader({
    version: spec.version,
    prevHash: new Uint8Array(32),
    merkleRoot: computeMerkleRoot([coinbase.txid]).root,
    time: spec.time,
    bits: spec.bits,
    nonce: spec.nonce,
  });
  if (header.hashHex !== spec.expectedHash) {
    throw new Error(`genesis block hash ${header.hashHex} differs from ${spec.expectedHash}: a chain constant is wrong`);
  }
  return { header, transactions: [coinbase] };
}

/** Satoshi's headline and key with per-network time, nonce and bits (Core's short CreateGenesisBlock overload). */
function satoshiGenesis(time: number, nonce: number, bits: number, expectedHash: string): GenesisSpec {
  const outputScript = concatBytes(pushData(SATOSHI_GENESIS_KEY), Uint8Array.of(OP.OP_CHECKSIG));
  return { message: SATOSHI_GENESIS_MESSAGE, outputScript, time, nonce, bits, version: 1, reward: 50n * COIN, expectedHash };
}

/** The genesis constants of each network, in Core's order of chain types. */
export const GENESIS_SPECS = {
  main: satoshiGenesis(1231006505, 2083236893, 0x1d00ffff, '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f'),
  test: satoshiGenesis(1296688602, 414098458, 0x1d00ffff, '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943'),
  testnet4: {
    message: TESTNET4_GENESIS_MESSAGE,
    outputScript: TESTNET4_GENESIS_SCRIPT,
    time: 1714777860,
    nonce: 393743547,
    bits: 0x1d00ffff,
    version: 1,
    reward: 50n * COIN,
    expectedHash: '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043',
  },
  // Every signet, whatever its challenge, shares this genesis block.
  signet: satoshiGenesis(1598918400, 52613770, 0x1e0377ae, '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6'),
  regtest: satoshiGenesis(1296688602, 2, 0x207fffff, '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206'),
} as const satisfies Record<string, GenesisSpec>;

const built = new Map<keyof typeof GENESIS_SPECS, Block>();

/** The genesis block of a network, built once and shared (blocks are immutable). */
export function genesisBlock(chain: keyof typeof GENESIS_SPECS): Block {
  let block = built.get(chain);
  if (!block) {
    block = createGenesisBlock(GENESIS_SPECS[chain]);
    built.set(chain, block);
  }
  return block;
}

/** Display-order hex of a genesis block's hash (what getblockhash 0 prints). */
export function genesisHashHex(chain: keyof typeof GENESIS_SPECS): string {
  return hashToHex(genesisBlock(chain).header.hash);
}
