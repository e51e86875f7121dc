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
export * from './peer-connection.js';
export * from './peer.js';
export * from './peer-manager.js';
export * from './net-address.js';
export * from './block-download.js';
export * from './tx-orphanage.js';
export * from './ban-manager.js';
export * from './connection-manager.js';
export * from './eviction.js';
export * from './fee-filter.js';
export * from './upload-target.js';
export * from './socks5.js';
export * from './compact-filters.js';
export * from './addrman.js';
export * from './addrman-file.js';
export * from './headers-sync.js';
export * from './fixed-seeds.js';
export * from './anchors.js';
export * from './automatic-outbound.js';
export * from './chain-sync-timeout.js';
export * from './extra-outbound-eviction.js';
export * from './stale-tip.js';
export * from './tx-request-tracker.js';
export * from './bad-ports.js';
export * from './message-capture.js';
