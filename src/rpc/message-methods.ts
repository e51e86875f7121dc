/**
 * verifymessage and signmessagewithprivkey (Core's rpc/signmessage.cpp): message signatures
 * for P2PKH addresses, answered without chain access.
 */
import { decodeSecret, signMessage, verifyMessage, type ChainName } from '../script/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_TYPE_ERROR, RpcError } from './errors.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcMethod } from './spec.js';

const EXAMPLE_ADDRESS = '1D1ZrZNe3JUo7ZycKEYQQiQAWd9y54F4XX';

const VERIFY_EXAMPLE = helpExampleCli('verifymessage', `"${EXAMPLE_ADDRESS}" "signature" "my message"`);

export function messageMethods(chain: ChainName): RpcMethod[] {
  const verifymessage = defineRpcMethod({
    name: 'verifymessage',
    category: 'util',
    description: 'Verify a signed message.\n',
    args: [
      { name: 'address', type: 'str', description: 'The bitcoin address to use for the signature.' },
      { name: 'signature', type: 'str', description: 'The signature provided by the signer in base 64 encoding (see signmessage).' },
      { name: 'message', type: 'str', description: 'The message that was signed.' },
    ],
    results: [{ type: 'bool', description: 'If the signature is verified or not.' }],
    examples:
      '\nUnlock the wallet for 30 seconds\n' +
      helpExampleCli('walletpassphrase', '"mypassphrase" 30') +
      '\nCreate the signature\n' +
      helpExampleCli('signmessage', `"${EXAMPLE_ADDRESS}" "my message"`) +
      '\nVerify the signature\n' +
      VERIFY_EXAMPLE +
      '\nAs a JSON-RPC call\n' +
      helpExampleRpc('verifymessage', `"${EXAMPLE_ADDRESS}", "signature", "my message"`),
    handler: (args) => {
      switch (verifyMessage(args.string('address'), args.string('signature'), args.string('message'), chain)) {
        case 'invalid_address':
          throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid address');
        case 'address_no_key':
          throw new RpcError(RPC_TYPE_ERROR, 'Address does not refer to key');
        case 'malformed_signature':
          throw new RpcError(RPC_TYPE_ERROR, 'Malformed base64 encoding');
        case 'pubkey_not_recovered':
        case 'not_signed':
          return false;
        case 'ok':
          return true;
      }
    },
  });

  const signmessagewithprivkey = defineRpcMethod({
    name: 'signmessagewithprivkey',
    category: 'util',
    description: 'Sign a message with the private key of an address',
    args: [
      { name: 'privkey', type: 'str', description: 'The private key to sign the message with.' },
      { name: 'message', type: 'str', description: 'The message to create a signature of.' },
    ],
    results: [{ type: 'str', description: 'The signature of the message encoded in base 64' }],
    examples:
      '\nCreate the signature\n' +
      helpExampleCli('signmessagewithprivkey', '"privkey" "my message"') +
      '\nVerify the signature\n' +
      VERIFY_EXAMPLE +
      '\nAs a JSON-RPC call\n' +
      helpExampleRpc('signmessagewithprivkey', '"privkey", "my message"'),
    handler: (args) => {
      const privkey = args.string('privkey');
      const message = args.string('message');
      const key = decodeSecret(privkey, chain);
      if (!key) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid private key');
      return signMessage(key.secret, key.compressed, message);
    },
  });

  return [verifymessage, signmessagewithprivkey];
}
