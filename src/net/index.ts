/**
 * The P2P layer's face. So far the v1 wire protocol: framing (frame.ts), the protocol's
 * constants and limits (protocol.ts) and message payload codecs (messages.ts). Peers,
 * sync and relay build on these.
 */
export * from './frame.js';
export * from './messages.js';
export * from './protocol.js';
export * from './compact-blocks.js';
export * from './addresses.js';
export * from './handshake.js';
export * from './locator.js';
