/**
 * The mempool's rolling minimum fee (Core's rollingMinimumFeeRate, GetMinFee and
 * trackPackageRemoved): evicting a chunk for size raises it to the chunk's feerate plus
 * -incrementalrelayfee; once a block has connected since the last raise it halves every
 * 12 hours (every 6 below half the pool's limit, every 3 below a quarter), falling to
 * zero under half the incremental fee. GetMinFee decays the state as it reads it, so the
 * coordinator keeps one mutable copy; front-ends evaluate the stored state at their own
 * time with `minFeeAt`, which leaves it as it is.
 */

/** Core's ROLLING_FEE_HALFLIFE. */
export const ROLLING_FEE_HALFLIFE_SECONDS = 60 * 60 * 12;

export interface RollingMinFeeState {
  /** sat/kvB as a double, as Core keeps it. */
  readonly rate: number;
  /** Unix seconds of the last decay (or of the last block). */
  readonly lastUpdate: number;
  readonly blockSinceBump: boolean;
}

export const NO_ROLLING_MIN_FEE: RollingMinFeeState = { rate: 0, lastUpdate: 0, blockSinceBump: false };

export interface MinFeeContext {
  readonly now: number;
  /** DynamicMemoryUsage now. */
  readonly usage: number;
  readonly maxMempoolBytes: number;
  /** -incrementalrelayfee, sat/kvB. */
  readonly incrementalRelayFee: bigint;
}

/** Core's llround: halves away from zero. */
function llround(x: number): bigint {
  return BigInt(x < 0 ? -Math.round(-x) : Math.round(x));
}

/**
 * GetMinFee: the state decayed to `ctx.now` and the fee it asks (sat/kvB, 0 when none).
 * Decay waits until 10 seconds have passed since the last update.
 */
export function decayedMinFee(state: RollingMinFeeState, ctx: MinFeeContext): { state: RollingMinFeeState; fee: bigint } {
  if (!state.blockSinceBump || state.rate === 0) return { state, fee: llround(state.rate) };
  let next = state;
  if (ctx.now > state.lastUpdate + 10) {
    let halflife = ROLLING_FEE_HALFLIFE_SECONDS;
    if (ctx.usage < Math.floor(ctx.maxMempoolBytes / 4)) halflife /= 4;
    else if (ctx.usage < Math.floor(ctx.maxMempoolBytes / 2)) halflife /= 2;
    const rate = state.rate / Math.pow(2.0, (ctx.now - state.lastUpdate) / halflife);
    next = { ...state, rate, lastUpdate: ctx.now };
    if (rate < Number(ctx.incrementalRelayFee) / 2) return { state: { ...next, rate: 0 }, fee: 0n };
  }
  const fee = llround(next.rate);
  return { state: next, fee: fee > ctx.incrementalRelayFee ? fee : ctx.incrementalRelayFee };
}

/** What a front-end reports: GetMinFee at its time, without changing what is stored. */
export function minFeeAt(state: RollingMinFeeState, ctx: MinFeeContext): bigint {
  return decayedMinFee(state, ctx).fee;
}

/** The coordinator's copy, changed as Core's CTxMemPool changes it. */
export class RollingMinFee {
  state: RollingMinFeeState = NO_ROLLING_MIN_FEE;

  /** GetMinFee. */
  minFee(ctx: MinFeeContext): bigint {
    const { state, fee } = decayedMinFee(this.state, ctx);
    this.state = state;
    return fee;
  }

  /** trackPackageRemoved: a removal at `ratePerKvB` raises the floor to it. */
  trackRemoved(ratePerKvB: bigint): void {
    if (Number(ratePerKvB) > this.state.rate) this.state = { ...this.state, rate: Number(ratePerKvB), blockSinceBump: false };
  }

  /** removeForBlock: decay restarts from the block's time. */
  blockConnected(now: number): void {
    this.state = { ...this.state, lastUpdate: now, blockSinceBump: true };
  }
}
