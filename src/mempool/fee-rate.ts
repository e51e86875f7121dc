/**
 * Fee arithmetic of Core's CFeeRate and policy sizes: fee rates are satoshis per 1,000
 * virtual bytes, a rate's fee for a size rounds up (never to zero for a positive rate),
 * and the virtual size counts each sigop as -bytespersigop bytes when that is larger.
 */
const WITNESS_SCALE_FACTOR = 4;

/** CFeeRate::GetFee: the fee `satPerKvB` asks of `vsize` bytes, rounded up. */
export function feeForSize(satPerKvB: bigint, vsize: number): bigint {
  if (vsize === 0) return 0n;
  const size = BigInt(vsize);
  const product = satPerKvB * size;
  const fee = product >= 0n ? (product + 999n) / 1000n : product / 1000n;
  if (fee === 0n && satPerKvB > 0n) return 1n;
  return fee;
}

/** CFeeRate(fee, size).GetFeePerK(): the rate a fee pays for a size, rounded down. */
export function feeRatePerKvB(fee: bigint, vsize: number): bigint {
  return vsize > 0 ? (fee * 1000n) / BigInt(vsize) : 0n;
}

/** GetSigOpsAdjustedWeight: the weight, or the sigop cost priced at bytesPerSigop if that is more. */
export function adjustedWeight(weight: number, sigOpCost: number, bytesPerSigop: number): number {
  return Math.max(weight, sigOpCost * bytesPerSigop);
}

/** GetVirtualTransactionSize with sigops: the adjusted weight in virtual bytes, rounded up. */
export function virtualSize(weight: number, sigOpCost: number, bytesPerSigop: number): number {
  return Math.ceil(adjustedWeight(weight, sigOpCost, bytesPerSigop) / WITNESS_SCALE_FACTOR);
}

/** CFeeRate::ToString: BTC per kvB with eight decimals. */
export function formatFeeRate(satPerKvB: bigint): string {
  const sign = satPerKvB < 0n ? '-' : '';
  const abs = satPerKvB < 0n ? -satPerKvB : satPerKvB;
  return `${sign}${abs / 100_000_000n}.${(abs % 100_000_000n).toString().padStart(8, '0')} BTC/kvB`;
}
