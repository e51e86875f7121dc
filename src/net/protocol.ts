/**
 * Bitcoin P2P protocol constants as Core v31 uses them (protocol.h, net.h,
 * net_processing.cpp): the version spoken, service bits, inventory types and the limits a
 * decoder enforces before it allocates anything.
 */

/** Core's PROTOCOL_VERSION. */
export const PROTOCOL_VERSION = 70016;
/** Peers older than this are disconnected (MIN_PEER_PROTO_VERSION). */
export const MIN_PEER_PROTO_VERSION = 31800;
/** From this version on, peers may send wtxidrelay before verack (WTXID_RELAY_VERSION). */
export const WTXID_RELAY_VERSION = 70016;

/** Service bits (protocol.h ServiceFlags). */
export const NODE_NETWORK = 1n << 0n;
export const NODE_BLOOM = 1n << 2n;
export const NODE_WITNESS = 1n << 3n;
export const NODE_COMPACT_FILTERS = 1n << 6n;
export const NODE_NETWORK_LIMITED = 1n << 10n;
export const NODE_P2P_V2 = 1n << 11n;

/** Inventory types (protocol.h GetDataMsg). */
export const MSG_TX = 1;
export const MSG_BLOCK = 2;
export const MSG_FILTERED_BLOCK = 3;
export const MSG_CMPCT_BLOCK = 4;
export const MSG_WTX = 5;
export const MSG_WITNESS_FLAG = 1 << 30;
export const MSG_WITNESS_BLOCK = MSG_BLOCK | MSG_WITNESS_FLAG;
export const MSG_WITNESS_TX = MSG_TX | MSG_WITNESS_FLAG;

/** Largest payload a v1 message may carry (MAX_PROTOCOL_MESSAGE_LENGTH). */
export const MAX_PROTOCOL_MESSAGE_LENGTH = 4_000_000;
/** Entries in one inv, getdata or notfound (MAX_INV_SZ). */
export const MAX_INV_SZ = 50_000;
/** Headers in one headers message (MAX_HEADERS_RESULTS). */
export const MAX_HEADERS_RESULTS = 2000;
/** Hashes in a block locator (MAX_LOCATOR_SZ). */
export const MAX_LOCATOR_SZ = 101;
/** Longest user agent accepted in a version message (MAX_SUBVERSION_LENGTH). */
export const MAX_SUBVERSION_LENGTH = 256;
/** Addresses in one addr or addrv2 message (MAX_ADDR_TO_SEND). */
export const MAX_ADDR_TO_SEND = 1000;

/** magic (4) ‖ command (12) ‖ payload length (4) ‖ checksum (4). */
export const MESSAGE_HEADER_SIZE = 24;
export const COMMAND_SIZE = 12;
