/**
 * What blocks mean to a wallet (Core's SyncTransaction / AddToWalletIfInvolvingMe over
 * connected blocks, and the coin and balance views built from the result): a transaction
 * is the wallet's when an output pays one of its scripts or an input spends one of its
 * coins; the coins are the outputs to its scripts not spent since; a coinbase coin is
 * immature until it has 100 confirmations after its own (Core's GetBlocksToMaturity).
 * Pure: blocks in, views out; the wallet decides what to write.
 */
import { hashToHex, type Block } from '../primitives/index.js';
import type { DescriptorSpkm } from './descriptor-spkm.js';

/** Core's COINBASE_MATURITY. */
const COINBASE_MATURITY = 100;

export interface WalletCoin {
  readonly txid: string;
  readonly vout: number;
  readonly value: bigint;
  readonly scriptPubKey: Uint8Array;
  readonly height: number;
  readonly coinbase: boolean;
}

export interface WalletChainBalances {
  /** Confirmed and spendable (Core's getbalances mine.trusted when nothing is pending). */
  readonly trusted: bigint;
  /** Coinbase outputs still maturing. */
  readonly immature: bigint;
}

/** The scripts a wallet's descriptors cover: every position of every descriptor's range (Core's IsMine set). */
export function walletScripts(spkms: readonly DescriptorSpkm[]): Set<string> {
  const scripts = new Set<string>();
  for (const spkm of spkms) {
    const { rangeStart, rangeEnd } = spkm.record;
    const end = spkm.isRange() ? rangeEnd : 1;
    for (let index = spkm.isRange() ? rangeStart : 0; index < end; index++) {
      for (const script of spkm.scriptsAt(index) ?? []) scripts.add(Buffer.from(script).toString('hex'));
    }
  }
  return scripts;
}

export class WalletChainScan {
  readonly #coins = new Map<string, WalletCoin>();
  /** The wallet's transactions in the order their blocks came, by txid. */
  readonly transactions = new Map<string, { readonly height: number; readonly index: number }>();
  tipHeight = -1;

  constructor(private readonly isMine: (scriptPubKey: Uint8Array) => boolean) {}

  /** Core's blockConnected for one block at `height`. */
  connectBlock(block: Block, height: number): void {
    block.transactions.forEach((tx, index) => {
      let relevant = false;
      if (!tx.isCoinbase()) {
        for (const input of tx.inputs) {
          const key = `${hashToHex(input.prevout.txid)}:${input.prevout.vout}`;
          if (this.#coins.delete(key)) relevant = true;
        }
      }
      const txid = tx.txidHex;
      tx.outputs.forEach((output, vout) => {
        if (!this.isMine(output.scriptPubKey)) return;
        relevant = true;
        this.#coins.set(`${txid}:${vout}`, { txid, vout, value: output.value, scriptPubKey: output.scriptPubKey, height, coinbase: tx.isCoinbase() });
      });
      if (relevant) this.transactions.set(txid, { height, index });
    });
    this.tipHeight = height;
  }

  /** The unspent coins, in the order they were found. */
  coins(): WalletCoin[] {
    return [...this.#coins.values()];
  }

  /** Core's GetBlocksToMaturity > 0: a coinbase with fewer than 100 blocks on top of its own. */
  isImmature(coin: WalletCoin): boolean {
    return coin.coinbase && this.tipHeight - coin.height < COINBASE_MATURITY;
  }

  balances(): WalletChainBalances {
    let trusted = 0n;
    let immature = 0n;
    for (const coin of this.#coins.values()) {
      if (this.isImmature(coin)) immature += coin.value;
      else trusted += coin.value;
    }
    return { trusted, immature };
  }
}
