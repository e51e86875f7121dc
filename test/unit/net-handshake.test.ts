/**
 * The version handshake state machine (src/net/handshake.ts), message by message, with
 * Core's answers: what each side sends, what is ignored, and what ends the connection.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeVersion, Handshake, ipv4Mapped, locatorHeights, NODE_NETWORK, NODE_WITNESS, PROTOCOL_VERSION, type HandshakeAction, type VersionMessage } from '../../src/net/index.js';

const EMPTY = new Uint8Array(0);

function version(overrides: Partial<VersionMessage> = {}): Uint8Array {
  return encodeVersion({
    version: PROTOCOL_VERSION,
    services: NODE_NETWORK | NODE_WITNESS,
    timestamp: 1_700_000_000n,
    receiver: { services: 0n, ip: ipv4Mapped(127, 0, 0, 1), port: 18444 },
    sender: { services: 0n, ip: new Uint8Array(16), port: 0 },
    nonce: 99n,
    userAgent: '/peer/',
    startHeight: 5,
    relay: true,
    ...overrides,
  });
}

const OURS = version({ nonce: 1n, userAgent: '/tsbtcd/' });

function make(outbound: boolean): Handshake {
  return new Handshake({ outbound, ourVersion: OURS, isOwnNonce: (n) => n === 1n, requiredServices: NODE_NETWORK | NODE_WITNESS });
}

const sent = (action: HandshakeAction) => (action.kind === 'send' ? action.messages.map((m) => m.command) : action.kind);

test('outbound: version first; their version gets wtxidrelay, sendaddrv2 and verack; their verack completes it', () => {
  const h = make(true);
  assert.deepEqual(sent(h.opening()), ['version']);
  assert.deepEqual(sent(h.receive('version', version())), ['wtxidrelay', 'sendaddrv2', 'verack']);
  assert.deepEqual(sent(h.receive('wtxidrelay', EMPTY)), []);
  assert.deepEqual(sent(h.receive('sendaddrv2', EMPTY)), []);
  assert.equal(h.complete, false);
  assert.equal(h.receive('ping', new Uint8Array(8)).kind, 'ignore');
  assert.deepEqual(sent(h.receive('verack', EMPTY)), []);
  assert.ok(h.complete && h.wtxidRelay && h.addrV2);
  assert.equal(h.peerVersion?.userAgent, '/peer/');
  assert.equal(h.receive('ping', new Uint8Array(8)).kind, 'deliver');
  assert.equal(h.receive('verack', EMPTY).kind, 'ignore');
  assert.equal(h.receive('version', version()).kind, 'ignore');
  assert.equal(h.receive('wtxidrelay', EMPTY).kind, 'disconnect');
  assert.equal(h.receive('sendaddrv2', EMPTY).kind, 'disconnect');
});

test('inbound: nothing first; their version is answered with ours, then the features and verack', () => {
  const h = make(false);
  assert.deepEqual(sent(h.opening()), []);
  assert.equal(h.receive('verack', EMPTY).kind, 'ignore');
  const answer = h.receive('version', version({ version: 70015 }));
  assert.deepEqual(sent(answer), ['version', 'sendaddrv2', 'verack'], 'no wtxidrelay for a peer below 70016');
  assert.equal(answer.kind === 'send' && answer.messages[0]!.payload, OURS);
  h.receive('wtxidrelay', EMPTY);
  assert.equal(h.wtxidRelay, false);
});

test('a connection is ended for an obsolete version, a missing service, our own nonce, or a malformed version', () => {
  assert.match(JSON.stringify(make(true).receive('version', version({ version: 31799 }))), /obsolete version 31799/);
  assert.match(JSON.stringify(make(true).receive('version', version({ services: NODE_NETWORK }))), /does not offer the expected services/);
  // Only an outbound connection requires services.
  assert.equal(make(false).receive('version', version({ services: 0n })).kind, 'send');
  assert.match(JSON.stringify(make(false).receive('version', version({ nonce: 1n }))), /connected to self/);
  assert.equal(make(false).receive('version', Uint8Array.of(1, 2, 3)).kind, 'disconnect');
});

test('block locators step back one block eleven times, then double the step, and end at genesis', () => {
  assert.deepEqual(locatorHeights(0), [0]);
  assert.deepEqual(locatorHeights(5), [5, 4, 3, 2, 1, 0]);
  assert.deepEqual(locatorHeights(20), [20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 7, 3, 0]);
  const mainnetTip = locatorHeights(900_000);
  assert.equal(mainnetTip.length, 31);
  assert.equal(mainnetTip[mainnetTip.length - 1], 0);
  assert.throws(() => locatorHeights(-1), RangeError);
});
