/**
 * Core's FlatSigningProvider behind a HidingSigningProvider, as a PsbtSigner: private keys,
 * public keys, scripts and key origins (from descriptors), with secrets or origins hidden
 * as utxoupdatepsbt and descriptorprocesspsbt ask.
 */
import { hash160, toHex, type Transaction } from '../primitives/index.js';
import { SigningKeyStore, transactionInputSigner, type InputSigner, type KeyOriginInfo, type PrecomputedTransactionData } from '../script/index.js';
import type { PsbtSigner } from './sign.js';

export class PsbtProvider implements PsbtSigner {
  readonly keys = new SigningKeyStore();
  readonly pubkeys = new Map<string, Uint8Array>();
  readonly origins = new Map<string, KeyOriginInfo>();
  hideSecret = false;
  hideOrigin = false;

  addPubkey(pubkey: Uint8Array, origin: KeyOriginInfo): void {
    const id = toHex(hash160(pubkey));
    if (!this.pubkeys.has(id)) this.pubkeys.set(id, pubkey);
    if (!this.origins.has(id)) this.origins.set(id, origin);
  }

  script(scriptId: Uint8Array): Uint8Array | undefined {
    return this.keys.script(scriptId);
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
