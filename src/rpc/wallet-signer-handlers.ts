/**
 * walletdisplayaddress (Core's CWallet::DisplayAddress through
 * ExternalSignerScriptPubKeyMan::DisplayAddress): the address's descriptor, inferred with the
 * wallet's key origins, is shown on the external signer, which must echo the address back.
 */
import { decodeAddress, encodeAddress } from '../script/index.js';
import { connectedSigner, WALLET_FLAG } from '../wallet/index.js';
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_MISC_ERROR, RpcError } from './errors.js';
import { scanDescriptorFor } from './scan-descriptors.js';
import { walletForRequest, type WalletHandlers, type WalletRpcDeps } from './wallet-request.js';

export function walletSignerHandlers(deps: WalletRpcDeps): WalletHandlers {
  return {
    walletdisplayaddress: async (args, ctx) => {
      const wallet = walletForRequest(deps, ctx);
      const text = args.string('address');
      const decoded = decodeAddress(text, wallet.chainName);
      if (!decoded.ok) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Invalid address');
      const script = decoded.scriptPubKey;
      const owner = wallet.ownerOf(script);
      const expansion = owner?.spkm.expansionAt(owner.index);
      // Only an external signer wallet's descriptors can show an address.
      if (!owner || !expansion || !wallet.hasFlag(WALLET_FLAG.EXTERNAL_SIGNER)) throw new RpcError(RPC_MISC_ERROR, 'There is no ScriptPubKeyManager for this address');
      try {
        const signer = await connectedSigner(deps.signer, wallet.chainName);
        const descriptor = scanDescriptorFor(expansion.descriptor, owner.index, expansion.keys, wallet.chainName, script);
        await signer.displayAddress(descriptor, encodeAddress(script, wallet.chainName) ?? text);
      } catch (err) {
        throw new RpcError(RPC_MISC_ERROR, (err as Error).message);
      }
      return { address: text };
    },
  };
}
