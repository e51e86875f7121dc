/**
 * Core's DescriptorCache as TopUp writes it (walletdescriptorcache and
 * walletdescriptorlhcache records): what a descriptor's BIP32 keys need so that it expands
 * from the file alone, without private keys (DescriptorScriptPubKeyMan::SetCache refuses to
 * load a wallet whose descriptors cannot: "Unable to expand wallet descriptor from cache").
 * Keys are numbered as Core's key expression index numbers them: in the order they are
 * written, a script's own keys before those of the scripts inside it.
 */
import { Bip32Key, OriginKey, type Descriptor, type ExtPubKey, type KeyExpression, type KeyStore } from '../script/index.js';

function keyExpressionsInOrder(d: Descriptor, out: KeyExpression[] = []): KeyExpression[] {
  out.push(...d.keyArgs);
  for (const sub of d.subArgs) keyExpressionsInOrder(sub, out);
  return out;
}

export interface CacheEntry {
  readonly keyIndex: number;
  /** undefined: the parent xpub (or, with `lastHardened`, the last hardened one); else a derived xpub at this position. */
  readonly derivationIndex?: number;
  readonly lastHardened?: boolean;
  readonly xpub: ExtPubKey;
}

/** What the cache already holds: those entries are not derived again. */
export interface CachedXpubs {
  parent(keyIndex: number): boolean;
  derived(keyIndex: number, pos: number): boolean;
}

/**
 * The cache entries expanding positions [from, to) adds to `cached`, for each BIP32 key (a
 * hardened wildcard gives one per position, other keys the same entries whatever the
 * position). Keys that cannot be derived here (a locked wallet) give nothing.
 */
export function descriptorCacheEntries(d: Descriptor, keys: KeyStore, from: number, to: number, cached: CachedXpubs): CacheEntry[] {
  const entries: CacheEntry[] = [];
  keyExpressionsInOrder(d).forEach((expression, keyIndex) => {
    const key = expression instanceof OriginKey ? expression.inner : expression;
    if (!(key instanceof Bip32Key)) return;
    const missing: number[] = [];
    if (key.deriveType === 'hardened') {
      for (let pos = from; pos < to; pos++) if (!cached.derived(keyIndex, pos)) missing.push(pos);
    } else if (!cached.parent(keyIndex)) {
      missing.push(from);
    }
    for (const pos of missing) {
      const found = key.cacheEntries(pos, keys);
      if (!found) continue;
      if (found.derived) entries.push({ keyIndex, derivationIndex: pos, xpub: found.derived });
      if (found.parent) entries.push({ keyIndex, xpub: found.parent });
      if (found.lastHardened) entries.push({ keyIndex, lastHardened: true, xpub: found.lastHardened });
    }
  });
  return entries;
}
