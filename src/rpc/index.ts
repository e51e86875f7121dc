/**
 * rpc: the JSON-RPC method registry and everything that runs a call — RpcError and
 * Core's codes, argument specs (named/positional/mixed mapping, type errors, help text),
 * the dispatcher with warm-up, and the Control family. Other folders add methods with
 * `registry.register(defineRpcMethod({...}))`.
 */
export * from './errors.js';
export * from './json.js';
export * from './spec.js';
export * from './args.js';
export * from './params.js';
export * from './help.js';
export * from './registry.js';
export * from './server.js';
export * from './control.js';
export * from './values.js';
export * from './chain-access.js';
export * from './blockchain.js';
export * from './blockchain-read.js';
export * from './blockchain-blocks.js';
export * from './blockfilter-methods.js';
export * from './mempool-methods.js';
export * from './mempool-view.js';
export * from './mempool-submit.js';
export * from './mempool-persist-methods.js';
export * from './prioritisation-methods.js';
export * from './fee-methods.js';
export * from './tip-waiters.js';
export * from './blockchain-wait.js';
export * from './mining.js';
export * from './node-facts.js';
export * from './number-format.js';
export * from './gbt-result.js';
export * from './gbt-longpoll.js';
export * from './mining-template.js';
export * from './mining-info.js';
export * from './format/index.js';
export * from './value-parse.js';
export * from './json-entries-view.js';
export * from './rawtransaction-methods.js';
export * from './util-methods.js';
export * from './network-methods.js';
export * from './txoutproof.js';
export * from './scan-descriptors.js';
export * from './scantxoutset.js';
export * from './scanblocks.js';
export * from './descriptor-activity.js';
export * from './wallet-stubs.js';
export * from './pure-methods.js';
export * from './signer-methods.js';
export * from './sign-rawtransaction.js';
export * from './dump-txoutset.js';
export * from './psbt-update-methods.js';
export * from './peer-network.js';
export * from './peer-methods.js';
export { walletCoinHandlers, walletBalances } from './wallet-coin-handlers.js';
export { walletKeyHandlers } from './wallet-key-handlers.js';
export { walletManageHandlers } from './wallet-manage-handlers.js';
export { walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';
export { walletHistoryHandlers } from './wallet-history-handlers.js';
export { walletSendHandlers } from './wallet-send-handlers.js';
export { walletPsbtHandlers } from './wallet-psbt-handlers.js';
export { walletFundHandlers } from './wallet-fund-handlers.js';
export { walletImportHandlers } from './wallet-import-handlers.js';
export { walletBumpHandlers } from './wallet-bump-handlers.js';
export { walletSendAllHandlers } from './wallet-send-all-handlers.js';
export { walletSignerHandlers } from './wallet-signer-handlers.js';
export { zmqMethods, type ZmqNotification } from './zmq-methods.js';
