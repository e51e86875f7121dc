/**
 * BIP30: no transaction may overwrite an unspent output of an earlier one with the same
 * txid. Two mainnet blocks did so before the rule (their coinbases duplicated earlier
 * ones), and after BIP34 the check can be skipped on the known chain until height
 * 1,983,702, where pre-BIP34 coinbases could first be duplicated (Core's ConnectBlock).
 */
import { hashToHex } from '../primitives/index.js';
import type { IndexedHeader } from './indexed-header.js';
import type { ChainParams } from './params.js';

/** Below this height on the BIP34 chain BIP34 guarantees unique coinbases; from it on, BIP30 is checked again. */
export const BIP34_IMPLIES_BIP30_LIMIT = 1983702;

/** Core's IsBIP30Repeat: the two mainnet blocks whose coinbase overwrote an earlier one. */
export function isBIP30Repeat(index: IndexedHeader): boolean {
  const hash = hashToHex(index.hash);
  return (
    (index.height === 91842 && hash === '00000000000a4d0a398161ffc163c503763b1f4360639393e0e4c8e300e0caec') ||
    (index.height === 91880 && hash === '00000000000743f190a18c5577a3c2d2a1f610ae9601ac046a38084ccb7cd721')
  );
}

/** Core's IsBIP30Unspendable: the two mainnet blocks whose coinbase outputs were overwritten (and so never spendable). */
export function isBIP30Unspendable(blockHash: Uint8Array, height: number): boolean {
  const hash = hashToHex(blockHash);
  return (
    (height === 91722 && hash === '00000000000271a2dc26e7667f8419f2e15416dc6955e5a6c6cdf3f2574dd08e') ||
    (height === 91812 && hash === '00000000000af0aed4792b1acee3d966af36cf5def14935db8de83d6f9306f2f')
  );
}

/**
 * Whether ConnectBlock must check that `index`'s transactions overwrite no unspent
 * output ("bad-txns-BIP30"): always, except for the two repeat blocks, and except on the
 * chain through the known BIP34 activation block below BIP34_IMPLIES_BIP30_LIMIT.
 */
export function bip30CheckRequired(index: IndexedHeader, params: ChainParams): boolean {
  let enforce = !isBIP30Repeat(index);
  const bip34Block = index.prev?.ancestor(params.bip34Height);
  enforce = enforce && (!bip34Block || hashToHex(bip34Block.hash) !== params.bip34Hash);
  return enforce || index.height >= BIP34_IMPLIES_BIP30_LIMIT;
}
