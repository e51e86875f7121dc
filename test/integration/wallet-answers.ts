/** Comparing two nodes' wallets: both on one chain, a call's result or its error as {code, message}. */
import assert from 'node:assert/strict';
import type { WalletCaller } from './daemon-harness.js';

export interface NodeRpc {
  call<T = any>(method: string, params?: unknown[]): Promise<T>;
}

/** The blocks and pool of one node given to the other (submitblock, sendrawtransaction), so both stand on the same chain. */
export async function copyChain(from: NodeRpc, to: NodeRpc): Promise<void> {
  const tip = await from.call<number>('getblockcount');
  for (let height = (await to.call<number>('getblockcount')) + 1; height <= tip; height++) {
    const hex = await from.call<string>('getblock', [await from.call<string>('getblockhash', [height]), 0]);
    assert.equal(await to.call('submitblock', [hex]), null);
  }
  assert.equal(await to.call('getbestblockhash'), await from.call('getbestblockhash'));
  // Parents before children: by ancestor count.
  const pool = await from.call<Record<string, { ancestorcount: number }>>('getrawmempool', [true]);
  const present = new Set(await to.call<string[]>('getrawmempool'));
  for (const txid of Object.keys(pool).sort((a, b) => pool[a]!.ancestorcount - pool[b]!.ancestorcount)) {
    if (present.has(txid)) continue;
    await to.call('sendrawtransaction', [await from.call<string>('getrawtransaction', [txid])]);
  }
}

/** A call's answer, its result or its error, for comparing two nodes. */
export async function answerOf(w: WalletCaller, method: string, params: unknown[]): Promise<{ result: unknown } | { error: { code: number; message: string } | undefined }> {
  try {
    return { result: await w(method, params) };
  } catch (err) {
    return { error: await errorOf(() => Promise.reject(err)) };
  }
}

/** bitcoind's error for a call, as {code, message}; undefined when it succeeds. */
export async function errorOf(call: () => Promise<unknown>): Promise<{ code: number; message: string } | undefined> {
  try {
    await call();
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    const m = /^\w+: (?:error )?(-?\d+):? (.*)$/s.exec(message);
    return m ? { code: Number(m[1]), message: m[2]! } : { code: NaN, message };
  }
}
