/** Help texts shared by Blockchain methods. */
export const CHAIN_TIP_STATUS_HELP =
  'status of the chain, "active" for the main chain\n' +
  'Possible values for status:\n' +
  '1.  "invalid"               This branch contains at least one invalid block\n' +
  '2.  "headers-only"          Not all blocks for this branch are available, but the headers are valid\n' +
  '3.  "valid-headers"         All blocks are available for this branch, but they were never fully validated\n' +
  '4.  "valid-fork"            This branch is not part of the active chain, but is fully validated\n' +
  '5.  "active"                This is the tip of the active main chain, which is certainly valid';
