/**
 * -maxuploadtarget (Core's CConnman outbound limit): bytes sent are counted in 24-hour
 * cycles that start with the first byte after the previous cycle ended. Once the target is
 * near (less than a block per remaining 10 minutes left), historical blocks (more than a
 * week older than the best header) are no longer served to peers without the download
 * permission; once it is reached, mempool requests are refused too.
 */

/** Core's MAX_UPLOAD_TIMEFRAME. */
export const MAX_UPLOAD_TIMEFRAME_S = 24 * 60 * 60;
/** Core's MAX_BLOCK_SERIALIZED_SIZE: the buffer kept per remaining 10 minutes. */
const MAX_BLOCK_SERIALIZED_SIZE = 4_000_000;
/** Core's HISTORICAL_BLOCK_AGE. */
export const HISTORICAL_BLOCK_AGE_S = 7 * 24 * 60 * 60;

/** Core's ParseByteUnits with -maxuploadtarget's default unit M: k/m/g/t are 1000-based, K/M/G/T 1024-based. */
export function parseByteUnits(text: string): number | undefined {
  const m = /^(\d+)([kKmMgGtT]?)$/.exec(text.trim());
  if (!m) return undefined;
  const unit = m[2] || 'M';
  const exponent = 'kmgt'.indexOf(unit.toLowerCase()) + 1;
  const base = unit === unit.toLowerCase() ? 1000 : 1024;
  const value = Number(m[1]) * base ** exponent;
  return Number.isSafeInteger(value) ? value : undefined;
}

export class UploadTarget {
  #cycleStart = 0;
  #sentInCycle = 0;

  constructor(
    /** Bytes per cycle; 0 means no limit. */
    readonly limit: number,
    private readonly now: () => number,
  ) {}

  recordSent(bytes: number): void {
    if (this.limit === 0) return;
    const now = this.now();
    if (this.#cycleStart + MAX_UPLOAD_TIMEFRAME_S < now) {
      this.#cycleStart = now;
      this.#sentInCycle = 0;
    }
    this.#sentInCycle += bytes;
  }

  timeLeftInCycle(): number {
    if (this.limit === 0) return 0;
    if (this.#cycleStart === 0) return MAX_UPLOAD_TIMEFRAME_S;
    const end = this.#cycleStart + MAX_UPLOAD_TIMEFRAME_S;
    const now = this.now();
    return end < now ? 0 : end - now;
  }

  /** Core's OutboundTargetReached: `historical` keeps a buffer of a block per 10 minutes left. */
  reached(historical: boolean): boolean {
    if (this.limit === 0) return false;
    if (historical) {
      const buffer = Math.floor(this.timeLeftInCycle() / 600) * MAX_BLOCK_SERIALIZED_SIZE;
      return buffer >= this.limit || this.#sentInCycle >= this.limit - buffer;
    }
    return this.#sentInCycle >= this.limit;
  }

  bytesLeft(): number {
    if (this.limit === 0) return 0;
    return this.#sentInCycle >= this.limit ? 0 : this.limit - this.#sentInCycle;
  }
}
