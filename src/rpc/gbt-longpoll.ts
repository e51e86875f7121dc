/**
 * BIP22 long polling for getblocktemplate, as Core does it: a longpollid is the tip hash
 * followed by the mempool's transactions-updated counter. The call waits until the tip
 * is no longer the watched hash (at once if it already is not), checking the counter
 * first after a minute and then every ten seconds; shutdown ends the wait with
 * "Shutting down". A longpollid that is not a string watches the current tip and counter.
 */
import type { Chainstate } from '../chain/index.js';
import type { Json } from './json.js';
import { RPC_CLIENT_NOT_CONNECTED, RpcError } from './errors.js';
import { parseHash } from './values.js';
import { hashToHex } from '../primitives/index.js';

/** How often the wait looks at the tip (the chainstate has no tip-change signal to await). */
const POLL_MS = 50;
const FIRST_COUNTER_CHECK_MS = 60_000;
const LATER_COUNTER_CHECK_MS = 10_000;

export interface LongPollTarget {
  /** Display hex of the watched tip. */
  readonly tip: string;
  readonly transactionsUpdated: number;
}

/**
 * Core's LocaleIndependentAtoi<int64_t> (atoi-like: trimmed, optional sign, leading
 * digits, saturating) narrowed to unsigned int as Core assigns it.
 */
export function atoiCounter(text: string): number {
  let s = text.replace(/^[ \f\n\r\t\v]+|[ \f\n\r\t\v]+$/g, '');
  if (s.startsWith('+')) {
    if (s.startsWith('+-')) return 0;
    s = s.slice(1);
  }
  const m = /^-?\d+/.exec(s);
  if (!m) return 0;
  let value = BigInt(m[0]);
  const min = -(1n << 63n);
  const max = (1n << 63n) - 1n;
  if (value < min) value = min;
  if (value > max) value = max;
  return Number(BigInt.asUintN(32, value));
}

/** What a longpollid asks to wait for; a malformed hash part fails as Core's ParseHashV. */
export function parseLongPollId(lpval: Json, currentTip: string, currentCounter: number): LongPollTarget {
  if (typeof lpval !== 'string') return { tip: currentTip, transactionsUpdated: currentCounter };
  const hash = parseHash(lpval.slice(0, 64), 'longpollid');
  return { tip: hashToHex(hash), transactionsUpdated: atoiCounter(lpval.slice(64)) };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Core's Mining::waitTipChanged: resolves with the tip once it differs from `watched` or
 * `timeoutMs` passed; undefined when shutdown began.
 */
async function waitTipChanged(chain: Chainstate, watched: string, timeoutMs: number, shuttingDown: () => boolean): Promise<string | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (shuttingDown()) return undefined;
    const tip = chain.tip!.hashHex;
    if (tip !== watched || Date.now() >= deadline) return tip;
    await sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
  }
}

/** Waits as Core's long poll loop does; throws -9 "Shutting down" when shutdown ends it. */
export async function waitForLongPoll(
  chain: Chainstate,
  target: LongPollTarget,
  transactionsUpdated: () => number,
  shuttingDown: () => boolean,
): Promise<void> {
  let checkMs = FIRST_COUNTER_CHECK_MS;
  while (!shuttingDown()) {
    const tip = await waitTipChanged(chain, target.tip, checkMs, shuttingDown);
    if (tip === undefined || tip !== target.tip) break;
    if (transactionsUpdated() !== target.transactionsUpdated) break;
    checkMs = LATER_COUNTER_CHECK_MS;
  }
  if (shuttingDown()) throw new RpcError(RPC_CLIENT_NOT_CONNECTED, 'Shutting down');
}
