/**
 * createmultisig (Core's rpc/output_script.cpp): a k-of-n multisig redeem script from hex
 * public keys, wrapped as P2SH, P2SH-P2WSH or P2WSH, with its address and descriptor and
 * Core's warning when uncompressed keys force the legacy wrapping.
 */
import { fromHex, toHex } from '../primitives/index.js';
import { addChecksum, encodeAddress, isFullyValidPublicKey, payToScriptHashOf, payToWitnessScriptHashOf, pushInt, type ChainName } from '../script/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER, RPC_TYPE_ERROR, RpcError } from './errors.js';
import { typeMismatchMessage } from './json.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';

/** Core's MAX_PUBKEYS_PER_MULTISIG and MAX_SCRIPT_ELEMENT_SIZE. */
const MAX_PUBKEYS_PER_MULTISIG = 20;
const MAX_SCRIPT_ELEMENT_SIZE = 520;
const OP_CHECKMULTISIG = 0xae;

type MultisigType = 'legacy' | 'p2sh-segwit' | 'bech32';

/** Core's HexToPubKey. */
function hexToPubKey(text: string): Uint8Array {
  if (!/^([0-9a-fA-F]{2})*$/.test(text) || text.length === 0) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Pubkey "${text}" must be a hex string`);
  if (text.length !== 66 && text.length !== 130) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Pubkey "${text}" must have a length of either 33 or 65 bytes`);
  const key = fromHex(text);
  if (!isFullyValidPublicKey(key)) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Pubkey "${text}" must cover a valid public key`);
  return key;
}

function multisigScript(required: number, keys: readonly Uint8Array[]): Uint8Array {
  const parts = [pushInt(required), ...keys.map((k) => Uint8Array.of(k.length, ...k)), pushInt(keys.length), Uint8Array.of(OP_CHECKMULTISIG)];
  return Uint8Array.from(parts.flatMap((p) => [...p]));
}

/** Core's ParseOutputType limited to what createmultisig accepts. */
function parseMultisigType(text: string): MultisigType {
  if (text === 'legacy' || text === 'p2sh-segwit' || text === 'bech32') return text;
  if (text === 'bech32m') throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'createmultisig cannot create bech32m multisig addresses');
  throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Unknown address type '${text}'`);
}

export function createMultisig(required: number, keyTexts: readonly unknown[], requestedType: MultisigType, chain: ChainName): Record<string, unknown> {
  const keys = keyTexts.map((k) => {
    if (typeof k !== 'string') throw new RpcError(RPC_TYPE_ERROR, typeMismatchMessage(k, 'string'));
    return hexToPubKey(k);
  });
  if (required < 1) throw new RpcError(RPC_INVALID_PARAMETER, 'a multisignature address must require at least one key to redeem');
  if (keys.length < required) throw new RpcError(RPC_INVALID_PARAMETER, `not enough keys supplied (got ${keys.length} keys, but need at least ${required} to redeem)`);
  if (keys.length > MAX_PUBKEYS_PER_MULTISIG) {
    throw new RpcError(RPC_INVALID_PARAMETER, `Number of keys involved in the multisignature address creation > ${MAX_PUBKEYS_PER_MULTISIG}\nReduce the number`);
  }
  const redeemScript = multisigScript(required, keys);
  // Uncompressed keys cannot go into segwit scripts: the type falls back to legacy.
  const type: MultisigType = keys.some((k) => k.length !== 33) ? 'legacy' : requestedType;
  if (type === 'legacy' && redeemScript.length > MAX_SCRIPT_ELEMENT_SIZE) {
    throw new RpcError(RPC_INVALID_PARAMETER, `redeemScript exceeds size limit: ${redeemScript.length} > ${MAX_SCRIPT_ELEMENT_SIZE}`);
  }
  const multi = `multi(${required},${keys.map(toHex).join(',')})`;
  const [scriptPubKey, descriptor] =
    type === 'legacy'
      ? [payToScriptHashOf(redeemScript), `sh(${multi})`]
      : type === 'bech32'
        ? [payToWitnessScriptHashOf(redeemScript), `wsh(${multi})`]
        : [payToScriptHashOf(payToWitnessScriptHashOf(redeemScript)), `sh(wsh(${multi}))`];
  const result: Record<string, unknown> = { address: encodeAddress(scriptPubKey, chain), redeemScript: toHex(redeemScript), descriptor: addChecksum(descriptor) };
  if (type !== requestedType) result.warnings = ['Unable to make chosen address type, please ensure no uncompressed public keys are present.'];
  return result;
}

const EXAMPLE_KEYS = ['03789ed0bb717d88f7d321a368d905e7430207ebbd82bd342cf11ae157a7ace5fd', '03dbc6764b8884a92e871274b87583e6d5c2a58819473e17e107ef3f6aa5a61626'];

export function multisigMethods(chain: ChainName): RpcMethod[] {
  const createmultisig = defineRpcMethod({
    name: 'createmultisig',
    category: 'util',
    description: 'Creates a multi-signature address with n signatures of m keys required.\nIt returns a json object with the address and redeemScript.\n',
    args: [
      { name: 'nrequired', type: 'num', description: 'The number of required signatures out of the m keys.' },
      { name: 'keys', type: 'arr', description: 'The hex-encoded public keys.', inner: [{ name: 'key', type: 'hex', optional: true, description: 'The hex-encoded public key' }] },
      { name: 'address_type', type: 'str', default: 'legacy', description: 'The address type to use. Options are "legacy", "p2sh-segwit", and "bech32".' },
    ],
    results: [
      {
        type: 'obj',
        description: '',
        inner: [
          { type: 'str', key: 'address', description: 'The value of the new multisig address.' },
          { type: 'str_hex', key: 'redeemScript', description: 'The string value of the hex-encoded redemption script.' },
          { type: 'str', key: 'descriptor', description: 'The descriptor for this multisig' },
          {
            type: 'arr',
            key: 'warnings',
            optional: true,
            description: 'Any warnings resulting from the creation of this multisig',
            inner: [{ type: 'str', description: '' }],
          },
        ],
      },
    ],
    examples:
      '\nCreate a multisig address from 2 public keys\n' +
      helpExampleCli('createmultisig', `2 "[\\"${EXAMPLE_KEYS[0]}\\",\\"${EXAMPLE_KEYS[1]}\\"]"`) +
      '\nAs a JSON-RPC call\n' +
      helpExampleRpc('createmultisig', `2, ["${EXAMPLE_KEYS[0]}","${EXAMPLE_KEYS[1]}"]`),
    handler: (args) => {
      const required = args.int('nrequired');
      const keys = args.array('keys');
      const type = args.has('address_type') ? parseMultisigType(args.string('address_type')) : 'legacy';
      return createMultisig(required, keys, type, chain);
    },
  });
  return [createmultisig];
}
