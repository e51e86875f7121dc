/**
 * http: the front-end side of the node — the uWS process entry (frontend-main.ts), the
 * request pipeline (ACL, auth, JSON-RPC, REST routing), and reply formatting. The
 * coordinator uses only the pieces it needs to prepare front-end settings.
 */
export { LOOPBACK_SUBNETS, addressBytes, allowsEveryPeer, canonicalAddress, formatAddress, parseSubnet, subnetMatches } from '../primitives/index.js';
export { Authenticator, Whitelist } from './auth.js';
export { handleJsonRpc, type CallOutcome, type JsonRpcContext } from './jsonrpc.js';
export { RestRouter, type RestHandler, type RestRequest } from './rest.js';
export { emptyReply, jsonReply, libeventErrorPage, textPiecesReply, type BodyWriter, type Reply } from './reply.js';
export { takeReplyBuffer, type ReplyBuffer } from './reply-buffers.js';
export { loadUws, uwsBinaryPath, type UwsModule } from './uws.js';
export { wireHexEncoder } from './wire.js';
export { MAX_BODY_BYTES, FAILED_LOGIN_DELAY_MS, createApp, urlDecode, type AppDeps, type FrontendState } from './app.js';
