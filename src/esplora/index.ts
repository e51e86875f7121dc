/**
 * esplora: the Esplora-compatible HTTP API (Blockstream's electrs REST) that indexers'
 * and wallets' clients speak, answered by the front-ends from the chain snapshot, the
 * txindex and the address index (-esplora, -addressindex, -txindex).
 */
export { handleEsplora, type EsploraContext, type EsploraRequest, type EsploraRpcOutcome } from './routes.js';
export { esploraAsm, esploraScriptType } from './script-asm.js';
export { feeHistogram } from './mempool.js';
