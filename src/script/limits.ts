/** Script limits from Core's script.h and interpreter.h. */
export const MAX_SCRIPT_ELEMENT_SIZE = 520;
export const MAX_OPS_PER_SCRIPT = 201;
export const MAX_PUBKEYS_PER_MULTISIG = 20;
export const MAX_SCRIPT_SIZE = 10000;
export const MAX_STACK_SIZE = 1000;

export const WITNESS_V0_SCRIPTHASH_SIZE = 32;
export const WITNESS_V0_KEYHASH_SIZE = 20;
export const WITNESS_V1_TAPROOT_SIZE = 32;

export const ANNEX_TAG = 0x50;
export const TAPROOT_LEAF_MASK = 0xfe;
export const TAPROOT_LEAF_TAPSCRIPT = 0xc0;
export const TAPROOT_CONTROL_BASE_SIZE = 33;
export const TAPROOT_CONTROL_NODE_SIZE = 32;
export const TAPROOT_CONTROL_MAX_NODE_COUNT = 128;
export const TAPROOT_CONTROL_MAX_SIZE = TAPROOT_CONTROL_BASE_SIZE + TAPROOT_CONTROL_NODE_SIZE * TAPROOT_CONTROL_MAX_NODE_COUNT;

/** BIP342 signature-operation budget: witness size plus this offset, 50 spent per signature checked. */
export const VALIDATION_WEIGHT_OFFSET = 50;
export const VALIDATION_WEIGHT_PER_SIGOP_PASSED = 50;
