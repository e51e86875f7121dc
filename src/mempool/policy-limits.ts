/** Core's standardness limits (policy/policy.h, v31). */

/** TX_MAX_STANDARD_VERSION: version 3 is TRUC. */
export const TX_MAX_STANDARD_VERSION = 3;
export const MAX_STANDARD_TX_WEIGHT = 400_000;
/** Below this many non-witness bytes a transaction could pass for a merkle node (CVE-2017-12842). */
export const MIN_STANDARD_TX_NONWITNESS_SIZE = 65;
export const MAX_STANDARD_SCRIPTSIG_SIZE = 1650;
/** MAX_BLOCK_SIGOPS_COST / 5. */
export const MAX_STANDARD_TX_SIGOPS_COST = 16_000;
export const MAX_P2SH_SIGOPS = 15;
export const MAX_STANDARD_P2WSH_SCRIPT_SIZE = 3600;
export const MAX_STANDARD_P2WSH_STACK_ITEMS = 100;
export const MAX_STANDARD_P2WSH_STACK_ITEM_SIZE = 80;
export const MAX_STANDARD_TAPSCRIPT_STACK_ITEM_SIZE = 80;
/** Ephemeral dust: at most one dust output, and only in a zero-fee transaction. */
export const MAX_DUST_OUTPUTS_PER_TX = 1;
/** Core's MAX_REPLACEMENT_CANDIDATES: conflicting clusters one replacement may evict. */
export const MAX_REPLACEMENT_CANDIDATES = 100;
/** -mempoolexpiry default, hours. */
export const DEFAULT_MEMPOOL_EXPIRY_HOURS = 336;
