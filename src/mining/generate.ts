/**
 * The regtest mining flows behind generatetoaddress, generatetodescriptor and
 * generateblock (Core's GenerateBlock loop): build a template, grind the nonce, and
 * submit through the same path as any other block.
 */
import type { Chainstate } from '../chain/index.js';
import type { Block } from '../primitives/index.js';
import { createBlockTemplate, type MempoolSelection, type TemplateTransaction } from './assembler.js';
import { solveBlock } from './solve.js';

/** ProcessNewBlock refused a block we mined ourselves: Core's RPC_INTERNAL_ERROR "ProcessNewBlock, block not accepted". */
export class BlockNotAcceptedError extends Error {
  override readonly name = 'BlockNotAcceptedError';
  constructor(readonly reason: string) {
    super('ProcessNewBlock, block not accepted');
  }
}

/** Chooses the mempool transactions of the next block (BlockAssembler's selection); runs inside the chain's queue. */
export type SelectTransactions = () => MempoolSelection;

/**
 * Mines up to `count` blocks paying `payoutScript`, each carrying what `select` chooses
 * from the mempool; stops early when `maxTries` nonces are used up. Returns their hashes.
 */
export async function generateBlocks(chain: Chainstate, payoutScript: Uint8Array, count: number, maxTries: number, select?: SelectTransactions): Promise<string[]> {
  const hashes: string[] = [];
  const tries = { remaining: maxTries };
  // Like Core's loop, a shutdown ends generation between blocks.
  while (hashes.length < count && !chain.interrupted) {
    // Selection and template under the chain's queue: neither the tip nor the pool moves in between.
    const template = await chain.exclusive(() => {
      const selection = select?.();
      return createBlockTemplate(chain, payoutScript, selection?.transactions ?? [], selection ? { selection } : {});
    });
    const solved = solveBlock(template.block, chain.params, tries);
    if (!solved) break;
    await submitMined(chain, solved);
    hashes.push(solved.header.hashHex);
  }
  return hashes;
}

/** Mines one block with exactly `transactions` after the coinbase (generateblock). */
export async function generateBlockWith(
  chain: Chainstate,
  payoutScript: Uint8Array,
  transactions: readonly TemplateTransaction[],
  submit: boolean,
  maxTries: number,
): Promise<Block | null> {
  const template = createBlockTemplate(chain, payoutScript, transactions);
  const verdict = await chain.testBlockValidity(template.block, false);
  if (!verdict.ok) throw new TemplateInvalidError(verdict.debug ? `${verdict.reason}, ${verdict.debug}` : verdict.reason);
  const solved = solveBlock(template.block, chain.params, { remaining: maxTries });
  if (!solved) return null;
  if (submit) await submitMined(chain, solved);
  return solved;
}

/** TestBlockValidity failed for a generateblock template: Core's RPC_VERIFY_ERROR "TestBlockValidity failed: ...". */
export class TemplateInvalidError extends Error {
  override readonly name = 'TemplateInvalidError';
  constructor(readonly state: string) {
    super(`TestBlockValidity failed: ${state}`);
  }
}

async function submitMined(chain: Chainstate, block: Block): Promise<void> {
  const result = await chain.processBlock(block);
  if (!result.accepted) throw new BlockNotAcceptedError(result.checked && !result.checked.ok ? result.checked.reason : 'unknown');
}
