/**
 * tsbtcd beside the reference bitcoind on one chain, for differential tests: bitcoind
 * mines (to a TestWallet), tsbtcd takes the same blocks through submitblock, and every
 * transaction goes to both, which must answer it the same way.
 */
import assert from 'node:assert/strict';
import { fromHex, parseBlock, toHex, type Transaction } from '../../src/primitives/index.js';
import type { TestWallet } from '../support/wallet.js';
import { NODE_STARTERS, startTsbtcd, type NodeUnderTest } from './node-under-test.js';

/** The reference bitcoind's starter (undefined when it is missing). */
export const referenceStarter = NODE_STARTERS.find(([name]) => name === 'bitcoind')![1];

export interface PairedNodes {
  readonly reference: NodeUnderTest;
  readonly node: NodeUnderTest;
  /** bitcoind mines `n` blocks to the wallet; tsbtcd takes them; the wallet learns of them. */
  mine(wallet: TestWallet, n: number): Promise<void>;
  /** Sends to both; returns 'accepted' or the rejection (`code: message`), after asserting both agree. */
  send(tx: Transaction): Promise<string>;
  /** The same call on both: [bitcoind's answer, tsbtcd's]. */
  both<T = any>(method: string, params?: unknown[]): Promise<[T, T]>;
  stop(): Promise<void>;
}

/** Starts both with the same arguments (needs the reference bitcoind). */
export async function startPairedNodes(args: readonly string[] = []): Promise<PairedNodes> {
  const reference = await referenceStarter!({ args });
  const node = await startTsbtcd({ args });
  const both = <T>(method: string, params: unknown[] = []) => Promise.all([reference.call<T>(method, params), node.call<T>(method, params)]) as Promise<[T, T]>;
  return {
    reference,
    node,
    both,
    async mine(wallet, n) {
      for (const hash of await reference.call<string[]>('generatetoaddress', [n, wallet.address('p2tr-key')])) {
        const hex = await reference.call<string>('getblock', [hash, 0]);
        assert.equal(await node.call('submitblock', [hex]), null);
        wallet.processBlock(parseBlock(fromHex(hex)), (await reference.call<{ height: number }>('getblockheader', [hash])).height);
      }
    },
    async send(tx) {
      const outcomes = await Promise.all(
        [reference, node].map((n) =>
          n.call<string>('sendrawtransaction', [toHex(tx.toBytes())]).then(
            () => 'accepted',
            (err: Error & { code?: number }) => `${err.code}: ${err.message.replace(/^sendrawtransaction: (error -?\d+: )?/, '')}`,
          ),
        ),
      );
      assert.equal(outcomes[1], outcomes[0], `tx ${tx.txidHex}: tsbtcd and bitcoind disagree`);
      return outcomes[0]!;
    },
    async stop() {
      await Promise.all([reference.stop(), node.stop()]);
    },
  };
}
