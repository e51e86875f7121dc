/**
 * The version handshake of one connection, as Core's net_processing.cpp runs it, as a pure
 * state machine: it is told each message the peer sent and answers with what to send,
 * whether to drop the message, or why to disconnect. Feature negotiation (BIP339
 * wtxidrelay, BIP155 sendaddrv2) is only valid between version and verack; other messages
 * before the handshake completes are ignored, as Core ignores them.
 */
import { DecodeError } from '../primitives/index.js';
import { decodeVersion, type VersionMessage } from './messages.js';
import { MIN_PEER_PROTO_VERSION, PROTOCOL_VERSION, WTXID_RELAY_VERSION } from './protocol.js';

export type HandshakeAction =
  /** Send these (command, payload) pairs, in order. */
  | { readonly kind: 'send'; readonly messages: readonly { command: string; payload: Uint8Array }[] }
  /** Drop the message and go on (Core logs and returns). */
  | { readonly kind: 'ignore'; readonly reason: string }
  /** End the connection. */
  | { readonly kind: 'disconnect'; readonly reason: string }
  /** The handshake is complete: the message is the caller's to process. */
  | { readonly kind: 'deliver' };

export interface HandshakeOptions {
  /** Whether we opened the connection (we send version first) or the peer did. */
  readonly outbound: boolean;
  /** Our version message's payload, sent first (outbound) or in answer (inbound). */
  readonly ourVersion: Uint8Array;
  /** True when a version nonce is one of ours: a connection to ourselves. */
  readonly isOwnNonce: (nonce: bigint) => boolean;
  /** Services an outbound peer must offer (Core's desirable services), 0n for none. */
  readonly requiredServices: bigint;
}

const EMPTY = new Uint8Array(0);

export class Handshake {
  #theirs: VersionMessage | null = null;
  #verackReceived = false;
  #wtxidRelay = false;
  #addrV2 = false;

  constructor(private readonly options: HandshakeOptions) {}

  /** What an outbound connection sends first. */
  opening(): HandshakeAction {
    return this.options.outbound ? { kind: 'send', messages: [{ command: 'version', payload: this.options.ourVersion }] } : { kind: 'send', messages: [] };
  }

  get peerVersion(): VersionMessage | null {
    return this.#theirs;
  }

  /** Both sides' versions and the peer's verack are in. */
  get complete(): boolean {
    return this.#theirs !== null && this.#verackReceived;
  }

  /** BIP339 was negotiated: transactions are announced by wtxid. */
  get wtxidRelay(): boolean {
    return this.#wtxidRelay;
  }

  /** BIP155 was negotiated: addresses travel as addrv2. */
  get addrV2(): boolean {
    return this.#addrV2;
  }

  receive(command: string, payload: Uint8Array): HandshakeAction {
    if (command === 'version') return this.#version(payload);
    if (this.#theirs === null) return { kind: 'ignore', reason: `non-version message before version handshake. Message "${command}"` };
    switch (command) {
      case 'verack':
        if (this.#verackReceived) return { kind: 'ignore', reason: 'ignoring redundant verack message' };
        this.#verackReceived = true;
        return { kind: 'send', messages: [] };
      case 'wtxidrelay':
        if (this.#verackReceived) return { kind: 'disconnect', reason: 'wtxidrelay received after verack' };
        if (this.#theirs.version >= WTXID_RELAY_VERSION) this.#wtxidRelay = true;
        return { kind: 'send', messages: [] };
      case 'sendaddrv2':
        if (this.#verackReceived) return { kind: 'disconnect', reason: 'sendaddrv2 received after verack' };
        this.#addrV2 = true;
        return { kind: 'send', messages: [] };
    }
    if (!this.#verackReceived) return { kind: 'ignore', reason: `unsupported message "${command}" prior to verack` };
    return { kind: 'deliver' };
  }

  #version(payload: Uint8Array): HandshakeAction {
    if (this.#theirs !== null) return { kind: 'ignore', reason: 'redundant version message' };
    let theirs: VersionMessage;
    try {
      theirs = decodeVersion(payload);
    } catch (err) {
      if (err instanceof DecodeError) return { kind: 'disconnect', reason: `malformed version message: ${err.message}` };
      throw err;
    }
    const required = this.options.requiredServices;
    if (this.options.outbound && (theirs.services & required) !== required) {
      return { kind: 'disconnect', reason: `does not offer the expected services (${hex(theirs.services)} offered, ${hex(required)} expected)` };
    }
    if (theirs.version < MIN_PEER_PROTO_VERSION) return { kind: 'disconnect', reason: `using obsolete version ${theirs.version}` };
    if (!this.options.outbound && this.options.isOwnNonce(theirs.nonce)) return { kind: 'disconnect', reason: 'connected to self' };
    this.#theirs = theirs;
    const messages: { command: string; payload: Uint8Array }[] = [];
    if (!this.options.outbound) messages.push({ command: 'version', payload: this.options.ourVersion });
    if (Math.min(theirs.version, PROTOCOL_VERSION) >= WTXID_RELAY_VERSION) messages.push({ command: 'wtxidrelay', payload: EMPTY });
    messages.push({ command: 'sendaddrv2', payload: EMPTY });
    messages.push({ command: 'verack', payload: EMPTY });
    return { kind: 'send', messages };
  }
}

function hex(services: bigint): string {
  return services.toString(16).padStart(16, '0');
}
