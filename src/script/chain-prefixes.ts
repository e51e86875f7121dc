/**
 * The address and key prefixes of each chain (Core's CChainParams base58Prefixes and
 * bech32_hrp). Chain names are Core's -chain values.
 */
export type ChainName = 'main' | 'test' | 'testnet4' | 'signet' | 'regtest';

export const CHAIN_NAMES: readonly ChainName[] = ['main', 'test', 'testnet4', 'signet', 'regtest'];

export interface ChainPrefixes {
  /** Version byte of P2PKH addresses. */
  readonly pubkeyAddress: number;
  /** Version byte of P2SH addresses. */
  readonly scriptAddress: number;
  /** Version byte of WIF private keys. */
  readonly secretKey: number;
  /** Human-readable part of segwit addresses. */
  readonly bech32Hrp: string;
}

const MAIN: ChainPrefixes = { pubkeyAddress: 0x00, scriptAddress: 0x05, secretKey: 0x80, bech32Hrp: 'bc' };
// testnet3, testnet4 and signet share every prefix.
const TEST: ChainPrefixes = { pubkeyAddress: 0x6f, scriptAddress: 0xc4, secretKey: 0xef, bech32Hrp: 'tb' };
const REGTEST: ChainPrefixes = { pubkeyAddress: 0x6f, scriptAddress: 0xc4, secretKey: 0xef, bech32Hrp: 'bcrt' };

const PREFIXES: Record<ChainName, ChainPrefixes> = {
  main: MAIN,
  test: TEST,
  testnet4: TEST,
  signet: TEST,
  regtest: REGTEST,
};

export function chainPrefixes(chain: ChainName): ChainPrefixes {
  return PREFIXES[chain];
}

export function isChainName(name: string): name is ChainName {
  return (CHAIN_NAMES as readonly string[]).includes(name);
}
