/**
 * Core's FlatSigningProvider behind a HidingSigningProvider, as a PsbtSigner: private keys,
 * public keys, scripts and key origins (from descriptors), with secrets or origins hidden
 * as utxoupdatepsbt and descriptorprocesspsbt ask.
 */
import { hash160, toHex, type Transaction } from '../primitives/index.js';
import { SigningKeyStore, transactionInputSigner, type InputSigner, type KeyOriginInfo, type PrecomputedTransactionData } from '../script/index.js';
import type { PsbtSigner } from './sign.js';
import { taprootSigner, type TaprootKeys, type TaprootSpendData } from './taproot-sign.js';
import type { PsbtInput } from './types.js';

const xonlyIds = (xonly: Uint8Array) => [2, 3].map((prefix) => toHex(hash160(Uint8Array.of(prefix, ...xonly))));

export class PsbtProvider implements PsbtSigner, TaprootKeys {
  /** Core's tr_trees: taproot spend data by hex output key. */
  readonly taprootOutputs = new Map<string, TaprootSpendData>();
  readonly keys = new SigningKeyStore();
  readonly pubkeys = new Map<string, Uint8Array>();
  readonly origins = new Map<string, KeyOriginInfo>();
  hideSecret = false;
  hideOrigin = false;

  get taprootKeys(): TaprootKeys {
    return this;
  }

  /** Core's aggregate_pubkeys: MuSig2 aggregate keys (hex) and their participants. */
  readonly musigAggregates = new Map<string, Uint8Array[]>();

  addMusigAggregate(aggregate: Uint8Array, participants: Uint8Array[]): void {
    if (!this.musigAggregates.has(toHex(aggregate))) this.musigAggregates.set(toHex(aggregate), participants);
  }

  musigParticipants(): ReadonlyMap<string, Uint8Array[]> {
    return this.musigAggregates;
  }

  originOf(pubkey: Uint8Array): KeyOriginInfo | undefined {
    return this.hideOrigin ? undefined : this.origins.get(toHex(hash160(pubkey)));
  }

  addPubkey(pubkey: Uint8Array, origin: KeyOriginInfo): void {
    const id = toHex(hash160(pubkey));
    if (!this.pubkeys.has(id)) this.pubkeys.set(id, pubkey);
    if (!this.origins.has(id)) this.origins.set(id, origin);
  }

  script(scriptId: Uint8Array): Uint8Array | undefined {
    return this.keys.script(scriptId);
  }

  secretByXOnly(xonly: Uint8Array): Uint8Array | undefined {
    if (this.hideSecret) return undefined;
    for (const id of xonlyIds(xonly)) {
      const key = this.keys.key(id);
      if (key) return key.secret;
    }
    return undefined;
  }

  originByXOnly(xonly: Uint8Array): KeyOriginInfo | undefined {
    if (this.hideOrigin) return undefined;
    for (const id of xonlyIds(xonly)) {
      const origin = this.origins.get(id);
      if (origin) return origin;
    }
    return undefined;
  }

  spendData(outputKey: Uint8Array): TaprootSpendData | undefined {
    return this.taprootOutputs.get(toHex(outputKey));
  }

  taproot(input: PsbtInput, tx: Transaction, index: number, hashType: number, txdata: PrecomputedTransactionData | null) {
    return taprootSigner(this, input, tx, index, hashType, txdata);
  }

  forInput(tx: Transaction, index: number, amount: bigint, hashType: number, txdata: PrecomputedTransactionData | null): InputSigner {
    const signing = txdata ? transactionInputSigner(this.keys, tx, index, amount, hashType, txdata) : null;
    return {
      pubkey: (keyId) => this.pubkeys.get(keyId) ?? this.keys.key(keyId)?.pubkey,
      script: (scriptId) => this.keys.script(scriptId),
      sign: (keyId, scriptCode, sigversion) => (this.hideSecret || !signing ? null : signing.sign(keyId, scriptCode, sigversion)),
      keyOrigin: (keyId) => (this.hideOrigin ? undefined : this.origins.get(keyId)),
    };
  }
}
