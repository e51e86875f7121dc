/**
 * The two point additions key derivation does over and over: BIP32's public child (parent
 * + IL·G) and BIP341's output key (lift_x(internal) + t·G). Noble computes them in BigInt
 * arithmetic; with the native backend chosen, libsecp256k1 does (a wallet's thousands of
 * positions then load in a fraction of the time). Both give the same bytes.
 */
export interface NativeKeyTweaks {
  /** parent + tweak·G, compressed; null when the key or the sum is invalid. */
  pubkeyTweakAdd(publicKey: Uint8Array, tweak: Uint8Array): Uint8Array | null;
  /** lift_x(internal) + tweak·G, compressed (its first byte gives the parity); null when invalid. */
  xonlyTweakAdd(internalKey: Uint8Array, tweak: Uint8Array): Uint8Array | null;
}

let native: NativeKeyTweaks | null = null;

/** Makes this thread add points through the native addon (or, with null, through noble again). */
export function useNativeKeyTweaks(tweaks: NativeKeyTweaks | null): void {
  native = tweaks;
}

export function nativeKeyTweaks(): NativeKeyTweaks | null {
  return native;
}
