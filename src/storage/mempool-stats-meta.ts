/**
 * The mempool's figures that are not per entry, kept beside the mempool table so
 * front-ends answer getmempoolinfo from the same snapshot: Core's DynamicMemoryUsage
 * and the rolling minimum fee's state (rate, last update, whether a block connected
 * since the last raise). Fixed 25 bytes: u64 usage, f64 rate, i64 last update, u8 flag,
 * all little-endian.
 */
import { DecodeError } from '../primitives/index.js';
import type { MetaCodec } from './meta-codec.js';

export interface MempoolStatsRecord {
  readonly usage: number;
  /** sat/kvB, the double Core keeps. */
  readonly rollingMinFeeRate: number;
  /** Unix seconds. */
  readonly lastRollingFeeUpdate: number;
  readonly blockSinceLastRollingFeeBump: boolean;
}

const SIZE = 25;

export const mempoolStatsMeta: MetaCodec<MempoolStatsRecord> = {
  kind: 'mempool stats',
  encode(value) {
    const out = new Uint8Array(SIZE);
    const view = new DataView(out.buffer);
    view.setBigUint64(0, BigInt(value.usage), true);
    view.setFloat64(8, value.rollingMinFeeRate, true);
    view.setBigInt64(16, BigInt(value.lastRollingFeeUpdate), true);
    out[24] = value.blockSinceLastRollingFeeBump ? 1 : 0;
    return out;
  },
  decode(bytes) {
    if (bytes.length !== SIZE) throw new DecodeError(`mempool stats meta value must be ${SIZE} bytes, got ${bytes.length}`);
    const view = new DataView(bytes.buffer, bytes.byteOffset, SIZE);
    if (bytes[24]! > 1) throw new DecodeError(`mempool stats flag must be 0 or 1, got ${bytes[24]}`);
    return {
      usage: Number(view.getBigUint64(0, true)),
      rollingMinFeeRate: view.getFloat64(8, true),
      lastRollingFeeUpdate: Number(view.getBigInt64(16, true)),
      blockSinceLastRollingFeeBump: bytes[24] === 1,
    };
  },
};
