/**
 * The Wallet family as a wallet-enabled Bitcoin Core v31 answers it while no wallet is
 * loaded (tsbtcd has no wallet yet): every method is registered with Core's arguments, so
 * `help` lists it, named parameters map and argument counts and types are checked as
 * Core checks them; then methods that need a wallet fail as GetWalletForJSONRPCRequest
 * does (-18 "No wallet is loaded…" on `/`, -18 "Requested wallet does not exist or is not
 * loaded" on `/wallet/<name>`), listwallets reports none and listwalletdir the wallet files
 * found in the wallet directory (as Core's ListDatabases finds them), loadwallet and
 * unloadwallet fail as they do for a wallet that is not there, and the calls that would
 * make a wallet (createwallet, restorewallet, migratewallet) check their arguments as
 * Core does and then fail with -4: this node cannot hold a wallet.
 * With -disablewallet none of them is registered (-32601), as in Core.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  RPC_INVALID_PARAMETER,
  RPC_WALLET_ERROR,
  RPC_WALLET_NOT_FOUND,
  RpcError,
} from './errors.js';
import type { RpcArgs } from './args.js';
import { defineRpcMethod } from './registry.js';
import { helpExampleCli, helpExampleRpc, type RpcArgSpec, type RpcCallContext, type RpcHandler, type RpcMethod } from './spec.js';
import { getStr } from './value-parse.js';

/** What tsbtcd answers where Core would create, restore or migrate a wallet. */
export const NO_WALLET_SUPPORT = 'Wallet support is not available in this version of tsbtcd: wallets cannot be created, loaded or restored';

export const NO_WALLET_LOADED =
  'No wallet is loaded. Load a wallet using loadwallet or create a new one with createwallet. (Note: A default wallet is no longer automatically created)';
export const WALLET_NOT_LOADED = 'Requested wallet does not exist or is not loaded';

export interface WalletStubDeps {
  /** Core's GetWalletDir(): -walletdir, else <netdir>/wallets when it is a directory, else the network directory. */
  walletDir(): string;
  /** Core's ListDatabases over the wallet directory: the wallets there, in its order. */
  listWalletDatabases(): readonly { readonly name: string; readonly format: 'sqlite' | 'bdb' }[];
  /** The methods the loaded wallets answer; the others keep the answers below. */
  readonly handlers?: Partial<Record<string, RpcHandler>>;
  /**
   * For methods not built yet while wallets may be loaded: resolves the request's wallet
   * (so the -18/-19 answers stay Core's) and then refuses the call.
   */
  notBuilt?(ctx: RpcCallContext, method: string): never;
}

/** listwalletdir's warning for a Berkeley DB (legacy) wallet. */
const LEGACY_WALLET_WARNING = 'This wallet is a legacy wallet and will need to be migrated with migratewallet before it can be loaded';

/** Core's GetWalletForJSONRPCRequest with no wallet loaded: always an error. */
export function requireWallet(ctx: RpcCallContext): never {
  if (ctx.wallet !== undefined) throw new RpcError(RPC_WALLET_NOT_FOUND, WALLET_NOT_LOADED);
  throw new RpcError(RPC_WALLET_NOT_FOUND, NO_WALLET_LOADED);
}

// Argument shorthands: name, description, and default (a value) or optional (undefined).
type Opt = { default?: RpcArgSpec['default']; hint?: string; optional?: boolean; oneline?: string; inner?: RpcArgSpec[]; skip?: boolean };
const arg = (name: string, type: RpcArgSpec['type'], description: string, opt: Opt = {}): RpcArgSpec => ({
  name,
  type,
  description,
  ...(opt.default !== undefined ? { default: opt.default } : {}),
  ...(opt.hint !== undefined ? { defaultHint: opt.hint } : {}),
  ...(opt.optional ? { optional: true } : {}),
  ...(opt.oneline !== undefined ? { onelineDescription: opt.oneline } : {}),
  ...(opt.inner !== undefined ? { inner: opt.inner } : {}),
  ...(opt.skip ? { skipTypeCheck: true } : {}),
});
const str = (name: string, d: string, o?: Opt) => arg(name, 'str', d, o);
const hex = (name: string, d: string, o?: Opt) => arg(name, 'hex', d, o);
const num = (name: string, d: string, o?: Opt) => arg(name, 'num', d, o);
const bool = (name: string, d: string, o?: Opt) => arg(name, 'bool', d, o);
const amount = (name: string, d: string, o?: Opt) => arg(name, 'amount', d, o);
const OPT = { optional: true };

const ESTIMATE_MODE = 'The fee estimate mode, must be one of (case insensitive):\n"unset"\n"economical"\n"conservative"';
const FEE_RATE = 'Specify a fee rate in sat/vB.';
const CONF_TARGET = 'Confirmation target in blocks';
const INCLUDE_WATCHONLY = 'No longer used';
const MINCONF_1 = () => num('minconf', 'Only include transactions confirmed at least this many times.', { default: 1 });
const INCLUDE_IMMATURE = () => bool('include_immature_coinbase', 'Include immature coinbase transactions.', { default: false });
const LOAD_ON_STARTUP = () =>
  bool('load_on_startup', 'Save wallet name to persistent settings and load on startup. True to add wallet to startup list, false to remove, null to leave unchanged.', OPT);
const SIGHASH_TYPES = '"DEFAULT"\n"ALL"\n"NONE"\n"SINGLE"\n"ALL|ANYONECANPAY"\n"NONE|ANYONECANPAY"\n"SINGLE|ANYONECANPAY"';
const TXID_TO_BUMP = () => hex('txid', 'The txid to be bumped');
const OPTIONS = () => arg('options', 'obj', '', { optional: true, oneline: 'options' });

/** Core's OutputsDoc() inner members (send, walletcreatefundedpsbt). */
const outputsInner = (): RpcArgSpec[] => [
  arg('', 'obj_user_keys', '', {
    optional: true,
    inner: [amount('address', 'A key-value pair. The key (string) is the bitcoin address, the value (float or string) is the amount in BTC')],
  }),
  arg('', 'obj', '', { optional: true, inner: [hex('data', 'A key-value pair. The key must be "data", the value is hex-encoded data that becomes a part of an OP_RETURN output')] }),
];

type Kind = 'wallet' | ((args: RpcArgs, ctx: RpcCallContext) => unknown);

interface StubSpec {
  readonly name: string;
  readonly description: string;
  readonly args: RpcArgSpec[];
  readonly kind: Kind;
  /** The handler reads the chain through the call's snapshot (coins for signing). */
  readonly readsSnapshot?: boolean;
  /** The help group, when not Wallet (fundrawtransaction is a wallet method listed under Rawtransactions). */
  readonly category?: string;
}

export function walletStubMethods(deps: WalletStubDeps): RpcMethod[] {
  const walletPath = (name: string) => path.resolve(deps.walletDir(), name);

  /** unloadwallet / migratewallet: the wallet named by the endpoint or the parameter. */
  const endpointOrParameter = (value: unknown, ctx: RpcCallContext, missing?: string): string => {
    if (ctx.wallet !== undefined) {
      if (!(value === null || value === undefined || value === ctx.wallet)) {
        throw new RpcError(RPC_INVALID_PARAMETER, 'The RPC endpoint wallet and the wallet name parameter specify different wallets');
      }
      return ctx.wallet;
    }
    if ((value === null || value === undefined) && missing !== undefined) throw new RpcError(RPC_INVALID_PARAMETER, missing);
    return getStr(value as never);
  };

  const stubs: StubSpec[] = [
    { name: 'abandontransaction', description: 'Mark in-wallet transaction <txid> as abandoned', args: [hex('txid', 'The transaction id')], kind: 'wallet' },
    { name: 'abortrescan', description: 'Stops current wallet rescan triggered by an RPC call, e.g. by a rescanblockchain call.', args: [], kind: 'wallet' },
    { name: 'backupwallet', description: 'Safely copies the current wallet file to the specified destination, which can either be a directory or a path with a filename.', args: [str('destination', 'The destination directory or file')], kind: 'wallet' },
    { name: 'bumpfee', description: 'Bumps the fee of a transaction T, replacing it with a new transaction B.', args: [TXID_TO_BUMP(), OPTIONS()], kind: 'wallet' },
    {
      name: 'createwallet',
      description: 'Creates and loads a new wallet.',
      args: [
        str('wallet_name', 'The name for the new wallet. If this is a path, the wallet will be created at the path location.'),
        bool('disable_private_keys', 'Disable the possibility of private keys (only watchonlys are possible in this mode).', { default: false }),
        bool('blank', 'Create a blank wallet. A blank wallet has no keys.', { default: false }),
        str('passphrase', 'Encrypt the wallet with this passphrase.', OPT),
        bool('avoid_reuse', 'Keep track of coin reuse, and treat dirty and clean coins differently with privacy considerations in mind.', { default: false }),
        bool('descriptors', 'If set, must be "true"', { default: true }),
        LOAD_ON_STARTUP(),
        bool('external_signer', 'Use an external signer such as a hardware wallet. Requires -signer to be configured. Wallet creation will fail if keys cannot be fetched. Requires disable_private_keys and descriptors set to true.', { default: false }),
      ],
      kind: (args) => {
        args.string('wallet_name');
        if (args.optBoolean('descriptors') === false) {
          throw new RpcError(RPC_WALLET_ERROR, 'descriptors argument must be set to "true"; it is no longer possible to create a legacy wallet.');
        }
        throw new RpcError(RPC_WALLET_ERROR, NO_WALLET_SUPPORT);
      },
    },
    {
      name: 'createwalletdescriptor',
      description: 'Creates the wallet\'s descriptor for the given address type. The address type must be one that the wallet does not already have a descriptor for.',
      args: [
        str('type', 'The address type the descriptor will produce. Options are "legacy", "p2sh-segwit", "bech32", and "bech32m".'),
        arg('options', 'obj_named', '', {
          optional: true,
          inner: [
            bool('internal', 'Whether to only make one descriptor that is internal (if parameter is true) or external (if parameter is false)', { hint: 'Both external and internal will be generated unless this parameter is specified' }),
            str('hdkey', 'The HD key that the wallet knows the private key of, listed using \'gethdkeys\', to use for this descriptor\'s key', { hint: 'The HD key used by all other active descriptors' }),
          ],
        }),
      ],
      kind: 'wallet',
    },
    { name: 'encryptwallet', description: 'Encrypts the wallet with \'passphrase\'. This is for first time encryption.', args: [str('passphrase', 'The pass phrase to encrypt the wallet with. It must be at least 1 character, but should be long.')], kind: 'wallet' },
    {
      name: 'fundrawtransaction',
      category: 'rawtransactions',
      description:
        'If the transaction has no inputs, they will be automatically selected to meet its out value.\n' +
        'It will add at most one change output to the outputs.\n' +
        'No existing outputs will be modified unless "subtractFeeFromOutputs" is specified.\n' +
        'Note that inputs which were signed may need to be resigned after completion since in/outputs have been added.\n' +
        'The inputs added will not be signed, use signrawtransactionwithkey\n' +
        'or signrawtransactionwithwallet for that.\n' +
        'All existing inputs must either have their previous output transaction be in the wallet\n' +
        'or be in the UTXO set. Solving data must be provided for non-wallet inputs.\n' +
        'Note that all inputs selected must be of standard form and P2SH scripts must be\n' +
        'in the wallet using importdescriptors (to calculate fees).\n' +
        'You can see whether this is the case by checking the "solvable" field in the listunspent output.\n' +
        'Note that if specifying an exact fee rate, the resulting transaction may have a higher fee rate\n' +
        'if the transaction has unconfirmed inputs. This is because the wallet will attempt to make the\n' +
        'entire package have the given fee rate, not the resulting transaction.',
      args: [
        hex('hexstring', 'The hex string of the raw transaction'),
        arg('options', 'obj', 'For backward compatibility: passing in a true instead of an object will result in {"includeWatching":true}', { optional: true, oneline: 'options', skip: true }),
        bool('iswitness', 'Whether the transaction hex is a serialized witness transaction.\nIf iswitness is not present, heuristic tests will be used in decoding.\nIf true, only witness deserialization will be tried.\nIf false, only non-witness deserialization will be tried.\nThis boolean should reflect whether the transaction has inputs\n(e.g. fully valid, or on-chain transactions), if known by the caller.', { hint: 'depends on heuristic tests' }),
      ],
      kind: 'wallet',
    },
    { name: 'getaddressesbylabel', description: 'Returns the list of addresses assigned the specified label.', args: [str('label', 'The label.')], kind: 'wallet' },
    { name: 'getaddressinfo', description: 'Return information about the given bitcoin address.', args: [str('address', 'The bitcoin address for which to get information.')], kind: 'wallet' },
    {
      name: 'getbalance',
      description: 'Returns the total available balance.\nThe available balance is what the wallet considers currently spendable, and is\nthus affected by options which limit spendability such as -spendzeroconfchange.',
      args: [
        str('dummy', 'Remains for backward compatibility. Must be excluded or set to "*".', OPT),
        num('minconf', 'Only include transactions confirmed at least this many times.', { default: 0 }),
        bool('include_watchonly', INCLUDE_WATCHONLY, { default: false }),
        bool('avoid_reuse', '(only available if avoid_reuse wallet flag is set) Do not include balance in dirty outputs; addresses are considered dirty if they have previously been used in a transaction.', { default: true }),
      ],
      kind: 'wallet',
    },
    { name: 'getbalances', description: 'Returns an object with all balances in BTC.', args: [], kind: 'wallet' },
    {
      name: 'gethdkeys',
      description: 'List all BIP 32 HD keys in the wallet and which descriptors use them.',
      args: [
        arg('options', 'obj_named', '', {
          optional: true,
          inner: [
            bool('active_only', 'Show the keys for only active descriptors', { default: false }),
            bool('private', 'Show private keys', { default: false }),
          ],
        }),
      ],
      kind: 'wallet',
    },
    {
      name: 'getnewaddress',
      description: 'Returns a new Bitcoin address for receiving payments.\nIf \'label\' is specified, it is added to the address book \nso payments received with the address will be associated with \'label\'.',
      args: [
        str('label', 'The label name for the address to be linked to. It can also be set to the empty string "" to represent the default label. The label does not need to exist, it will be created if there is no label by the given name.', { default: '' }),
        str('address_type', 'The address type to use. Options are "legacy", "p2sh-segwit", "bech32", and "bech32m".', { hint: 'set by -addresstype' }),
      ],
      kind: 'wallet',
    },
    {
      name: 'getrawchangeaddress',
      description: 'Returns a new Bitcoin address, for receiving change.\nThis is for use with raw transactions, NOT normal use.',
      args: [str('address_type', 'The address type to use. Options are "legacy", "p2sh-segwit", "bech32", and "bech32m".', { hint: 'set by -changetype' })],
      kind: 'wallet',
    },
    {
      name: 'getreceivedbyaddress',
      description: 'Returns the total amount received by the given address in transactions with at least minconf confirmations.',
      args: [
        str('address', 'The bitcoin address for transactions.'),
        MINCONF_1(),
        INCLUDE_IMMATURE(),
      ],
      kind: 'wallet',
    },
    {
      name: 'getreceivedbylabel',
      description: 'Returns the total amount received by addresses with <label> in transactions with at least [minconf] confirmations.',
      args: [
        str('label', 'The selected label, may be the default label using "".'),
        MINCONF_1(),
        INCLUDE_IMMATURE(),
      ],
      kind: 'wallet',
    },
    {
      name: 'gettransaction',
      description: 'Get detailed information about in-wallet transaction <txid>',
      args: [
        hex('txid', 'The transaction id'),
        bool('include_watchonly', INCLUDE_WATCHONLY, { default: false }),
        bool('verbose', 'Whether to include a `decoded` field containing the decoded transaction (equivalent to RPC decoderawtransaction)', { default: false }),
      ],
      kind: 'wallet',
    },
    { name: 'getwalletinfo', description: 'Returns an object containing various wallet state info.', args: [], kind: 'wallet' },
    {
      name: 'importdescriptors',
      description: 'Import descriptors. This will trigger a rescan of the blockchain based on the earliest timestamp of all descriptors being imported. Requires a new wallet backup.',
      args: [arg('requests', 'arr', 'Data to be imported', { oneline: 'requests', inner: [arg('', 'obj', '', { optional: true, inner: [str('desc', 'Descriptor to import.')] })] })],
      kind: 'wallet',
    },
    {
      name: 'importprunedfunds',
      description: 'Imports funds without rescan. Corresponding address or script must previously be included in wallet. Aimed towards pruned wallets. The end-user is responsible to import additional transactions that subsequently spend the imported outputs or rescan after the point in the blockchain the transaction is included.',
      args: [hex('rawtransaction', 'A raw transaction in hex funding an already-existing address in wallet'), hex('txoutproof', 'The hex output from gettxoutproof that contains the transaction')],
      kind: 'wallet',
    },
    { name: 'keypoolrefill', description: 'Refills each descriptor keypool in the wallet up to the specified number of new keys.', args: [num('newsize', 'The new keypool size', { hint: '1000, or as set by -keypool' })], kind: 'wallet' },
    { name: 'listaddressgroupings', description: 'Lists groups of addresses which have had their common ownership\nmade public by common use as inputs or as the resulting change\nin past transactions', args: [], kind: 'wallet' },
    { name: 'listdescriptors', description: 'List all descriptors present in a wallet.', args: [bool('private', 'Show private descriptors.', { default: false })], kind: 'wallet' },
    { name: 'listlabels', description: 'Returns the list of all labels, or labels that are assigned to addresses with a specific purpose.', args: [str('purpose', 'Address purpose to list labels for (\'send\',\'receive\'). An empty string is the same as not providing this argument.', OPT)], kind: 'wallet' },
    { name: 'listlockunspent', description: 'Returns list of temporarily unspendable outputs.\nSee the lockunspent call to lock and unlock transactions for spending.', args: [], kind: 'wallet' },
    {
      name: 'listreceivedbyaddress',
      description: 'List balances by receiving address.',
      args: [
        num('minconf', 'The minimum number of confirmations before payments are included.', { default: 1 }),
        bool('include_empty', 'Whether to include addresses that haven\'t received any payments.', { default: false }),
        bool('include_watchonly', INCLUDE_WATCHONLY, { default: false }),
        str('address_filter', 'If present and non-empty, only return information on this address.', OPT),
        INCLUDE_IMMATURE(),
      ],
      kind: 'wallet',
    },
    {
      name: 'listreceivedbylabel',
      description: 'List received transactions by label.',
      args: [
        num('minconf', 'The minimum number of confirmations before payments are included.', { default: 1 }),
        bool('include_empty', 'Whether to include labels that haven\'t received any payments.', { default: false }),
        bool('include_watchonly', INCLUDE_WATCHONLY, { default: false }),
        INCLUDE_IMMATURE(),
      ],
      kind: 'wallet',
    },
    {
      name: 'listsinceblock',
      description: 'Get all transactions in blocks since block [blockhash], or all transactions if omitted.',
      args: [
        hex('blockhash', 'If set, the block hash to list transactions since, otherwise list all transactions.', OPT),
        num('target_confirmations', 'Return the nth block hash from the main chain. e.g. 1 would mean the best block hash. Note: this is not used as a filter, but only affects [lastblock] in the return value', { default: 1 }),
        bool('include_watchonly', INCLUDE_WATCHONLY, { default: false }),
        bool('include_removed', 'Show transactions that were removed due to a reorg in the "removed" array\n(not guaranteed to work on pruned nodes)', { default: true }),
        bool('include_change', 'Also add entries for change outputs.\n', { default: false }),
        str('label', 'Return only incoming transactions paying to addresses with the specified label.\n', OPT),
      ],
      kind: 'wallet',
    },
    {
      name: 'listtransactions',
      description: 'If a label name is provided, this will return only incoming transactions paying to addresses with the specified label.\nReturns up to \'count\' most recent transactions skipping the first \'from\' transactions.',
      args: [
        str('label', 'If set, should be a valid label name to return only incoming transactions\nwith the specified label, or "*" to disable filtering and return all transactions.', OPT),
        num('count', 'The number of transactions to return', { default: 10 }),
        num('skip', 'The number of transactions to skip', { default: 0 }),
        bool('include_watchonly', INCLUDE_WATCHONLY, { default: false }),
      ],
      kind: 'wallet',
    },
    {
      name: 'listunspent',
      description: 'Returns array of unspent transaction outputs\nwith between minconf and maxconf (inclusive) confirmations.\nOptionally filter to only include txouts paid to specified addresses.',
      args: [
        num('minconf', 'The minimum confirmations to filter', { default: 1 }),
        num('maxconf', 'The maximum confirmations to filter', { default: 9999999 }),
        arg('addresses', 'arr', 'The bitcoin addresses to filter', { default: [], inner: [str('address', 'bitcoin address', OPT)] }),
        bool('include_unsafe', 'Include outputs that are not safe to spend\nSee description of "safe" attribute below.', { default: true }),
        arg('query_options', 'obj', '', { optional: true, oneline: 'query_options' }),
      ],
      kind: 'wallet',
    },
    {
      name: 'listwalletdir',
      description: 'Returns a list of wallets in the wallet directory.',
      args: [],
      // The wallets are listed though none can be loaded here yet, as bitcoind lists them.
      kind: () => ({ wallets: deps.listWalletDatabases().map((w) => ({ name: w.name, warnings: w.format === 'bdb' ? [LEGACY_WALLET_WARNING] : [] })) }),
    },
    { name: 'listwallets', description: 'Returns a list of currently loaded wallets.\nFor full information on the wallet, use "getwalletinfo"', args: [], kind: () => [] },
    {
      name: 'loadwallet',
      description: 'Loads a wallet from a wallet file or directory.\nNote that all wallet command-line options used when starting bitcoind will be\napplied to the new wallet.',
      args: [
        str('filename', 'The path to the directory of the wallet to be loaded, either absolute or relative to the "wallets" directory. The "wallets" directory is set by the -walletdir option and defaults to the "wallets" folder within the data directory.'),
        LOAD_ON_STARTUP(),
      ],
      kind: (args) => {
        const location = walletPath(args.string('filename'));
        if (!fs.existsSync(location)) {
          throw new RpcError(RPC_WALLET_NOT_FOUND, `Wallet file verification failed. Failed to load database path '${location}'. Path does not exist.`);
        }
        throw new RpcError(RPC_WALLET_ERROR, NO_WALLET_SUPPORT);
      },
    },
    {
      name: 'lockunspent',
      description: 'Updates list of temporarily unspendable outputs.',
      args: [
        bool('unlock', 'Whether to unlock (true) or lock (false) the specified transactions'),
        arg('transactions', 'arr', 'The transaction outputs and within each, the txid (string) vout (numeric).', {
          default: [],
          inner: [arg('', 'obj', '', { optional: true, inner: [hex('txid', 'The transaction id'), num('vout', 'The output number')] })],
        }),
        bool('persistent', 'Whether to write/erase this lock in the wallet database, or keep the change in memory only. Ignored for unlocking.', { default: false }),
      ],
      kind: 'wallet',
    },
    {
      name: 'migratewallet',
      description: 'Migrate the wallet to a descriptor wallet.',
      args: [
        str('wallet_name', 'The name of the wallet to migrate. If provided both here and in the RPC endpoint, the two must be identical.', { hint: 'the wallet name from the RPC endpoint' }),
        str('passphrase', 'The wallet passphrase', OPT),
      ],
      kind: (args, ctx) => {
        const name = endpointOrParameter(args.raw[0], ctx, 'Either the RPC endpoint wallet or the wallet name parameter must be provided');
        const location = walletPath(name);
        if (!fs.existsSync(location)) {
          throw new RpcError(RPC_WALLET_ERROR, `Wallet file verification failed. Failed to load database path '${location}'. Path does not exist.`);
        }
        throw new RpcError(RPC_WALLET_ERROR, NO_WALLET_SUPPORT);
      },
    },
    { name: 'psbtbumpfee', description: 'Bumps the fee of a transaction T, replacing it with a new transaction B.', args: [TXID_TO_BUMP(), OPTIONS()], kind: 'wallet' },
    { name: 'removeprunedfunds', description: 'Deletes the specified transaction from the wallet. Meant for use with pruned wallets and as a companion to importprunedfunds. This will affect wallet balances.', args: [hex('txid', 'The hex-encoded id of the transaction you are deleting')], kind: 'wallet' },
    {
      name: 'rescanblockchain',
      description: 'Rescan the local blockchain for wallet related transactions.\nNote: Use "getwalletinfo" to query the scanning progress.\nThe rescan is significantly faster if block filters are available\n(using startup option "-blockfilterindex=1").',
      args: [num('start_height', 'block height where the rescan should start', { default: 0 }), num('stop_height', 'the last block height that should be scanned. If none is provided it will rescan up to the tip at return time of this call.', OPT)],
      kind: 'wallet',
    },
    {
      name: 'restorewallet',
      description: 'Restores and loads a wallet from backup.\n\nThe rescan is significantly faster if block filters are available\n(using startup option "-blockfilterindex=1").',
      args: [
        str('wallet_name', 'The name that will be applied to the restored wallet'),
        str('backup_file', 'The backup file that will be used to restore the wallet.'),
        LOAD_ON_STARTUP(),
      ],
      kind: (args) => {
        args.string('wallet_name');
        if (!fs.existsSync(args.string('backup_file'))) throw new RpcError(RPC_INVALID_PARAMETER, 'Backup file does not exist');
        throw new RpcError(RPC_WALLET_ERROR, NO_WALLET_SUPPORT);
      },
    },
    {
      name: 'send',
      description: 'EXPERIMENTAL warning: this call may be changed in future releases.\n\nSend a transaction.',
      args: [
        arg('outputs', 'arr', 'The outputs specified as key-value pairs.\nEach key may only appear once, i.e. there can only be one \'data\' output, and no address may be duplicated.\nAt least one output of either type must be specified.\nFor convenience, a dictionary, which holds the key-value pairs directly, is also accepted.', { inner: outputsInner(), skip: true }),
        num('conf_target', CONF_TARGET, { hint: 'wallet -txconfirmtarget' }),
        str('estimate_mode', ESTIMATE_MODE, { default: 'unset' }),
        amount('fee_rate', FEE_RATE, { hint: 'not set, falls back to wallet fee estimation' }),
        OPTIONS(),
        num('version', 'Transaction version', { default: 2 }),
      ],
      kind: 'wallet',
    },
    {
      name: 'sendall',
      description: 'EXPERIMENTAL warning: this call may be changed in future releases.\n\nSpend the value of all (or specific) confirmed UTXOs and unconfirmed change in the wallet to one or more recipients.',
      args: [
        arg('recipients', 'arr', 'The sendall destinations. Each address may only appear once.\nOptionally some recipients can be specified with an amount to perform payments, but at least one address must appear without a specified amount.\n', {
          inner: [
            str('address', 'A bitcoin address which receives an equal share of the unspecified amount.', OPT),
            arg('', 'obj_user_keys', '', { optional: true, inner: [amount('address', 'A key-value pair. The key (string) is the bitcoin address, the value (float or string) is the amount in BTC')] }),
          ],
        }),
        num('conf_target', CONF_TARGET, { hint: 'wallet -txconfirmtarget' }),
        str('estimate_mode', ESTIMATE_MODE, { default: 'unset' }),
        amount('fee_rate', FEE_RATE, { hint: 'not set, falls back to wallet fee estimation' }),
        OPTIONS(),
      ],
      kind: 'wallet',
    },
    {
      name: 'sendmany',
      description: 'Send multiple times. Amounts are double-precision floating point numbers.',
      args: [
        str('dummy', 'Must be set to "" for backwards compatibility.', { optional: true, oneline: '""' }),
        arg('amounts', 'obj_user_keys', 'The addresses and amounts', {
          inner: [amount('address', 'The bitcoin address is the key, the numeric amount (can be string) in BTC is the value')],
        }),
        num('minconf', 'Ignored dummy value', OPT),
        str('comment', 'A comment', OPT),
        arg('subtractfeefrom', 'arr', 'The addresses.\nThe fee will be equally deducted from the amount of each selected address.\nThose recipients will receive less bitcoins than you enter in their corresponding amount field.\nIf no addresses are specified here, the sender pays the fee.', {
          optional: true,
          inner: [str('address', 'Subtract fee from this address', OPT)],
        }),
        bool('replaceable', 'Signal that this transaction can be replaced by a transaction (BIP 125)', { hint: 'wallet default' }),
        num('conf_target', CONF_TARGET, { hint: 'wallet -txconfirmtarget' }),
        str('estimate_mode', ESTIMATE_MODE, { default: 'unset' }),
        amount('fee_rate', FEE_RATE, { hint: 'not set, falls back to wallet fee estimation' }),
        bool('verbose', 'If true, return extra infomration about the transaction.', { default: false }),
      ],
      kind: 'wallet',
    },
    {
      name: 'sendtoaddress',
      description: 'Send an amount to a given address.',
      args: [
        str('address', 'The bitcoin address to send to.'),
        amount('amount', 'The amount in BTC to send. eg 0.1'),
        str('comment', 'A comment used to store what the transaction is for.\nThis is not part of the transaction, just kept in your wallet.', OPT),
        str('comment_to', 'A comment to store the name of the person or organization\nto which you\'re sending the transaction. This is not part of the \ntransaction, just kept in your wallet.', OPT),
        bool('subtractfeefromamount', 'The fee will be deducted from the amount being sent.\nThe recipient will receive less bitcoins than you enter in the amount field.', { default: false }),
        bool('replaceable', 'Signal that this transaction can be replaced by a transaction (BIP 125)', { hint: 'wallet default' }),
        num('conf_target', CONF_TARGET, { hint: 'wallet -txconfirmtarget' }),
        str('estimate_mode', ESTIMATE_MODE, { default: 'unset' }),
        bool('avoid_reuse', '(only available if avoid_reuse wallet flag is set) Avoid spending from dirty addresses; addresses are considered\ndirty if they have previously been used in a transaction. If true, this also activates avoidpartialspends, grouping outputs by their addresses.', { default: true }),
        amount('fee_rate', FEE_RATE, { hint: 'not set, falls back to wallet fee estimation' }),
        bool('verbose', 'If true, return extra information about the transaction.', { default: false }),
      ],
      kind: 'wallet',
    },
    { name: 'setlabel', description: 'Sets the label associated with the given address.', args: [str('address', 'The bitcoin address to be associated with a label.'), str('label', 'The label to assign to the address.')], kind: 'wallet' },
    { name: 'setwalletflag', description: 'Change the state of the given wallet flag for a wallet.', args: [str('flag', 'The name of the flag to change. Current available flags: avoid_reuse'), bool('value', 'The new state.', { default: true })], kind: 'wallet' },
    {
      name: 'signmessage',
      description: 'Sign a message with the private key of an address',
      args: [str('address', 'The bitcoin address to use for the private key.'), str('message', 'The message to create a signature of.')],
      kind: 'wallet',
    },
    {
      name: 'signrawtransactionwithwallet',
      description: 'Sign inputs for raw transaction (serialized, hex-encoded).\nThe second optional argument (may be null) is an array of previous transaction outputs that\nthis transaction depends on but may not yet be in the block chain.',
      args: [
        str('hexstring', 'The transaction hex string'),
        arg('prevtxs', 'arr', 'The previous dependent transaction outputs', {
          optional: true,
          inner: [
            arg('', 'obj', '', {
              optional: true,
              inner: [
                hex('txid', 'The transaction id'),
                num('vout', 'The output number'),
                hex('scriptPubKey', 'The output script'),
                hex('redeemScript', '(required for P2SH) redeem script', OPT),
                hex('witnessScript', '(required for P2WSH or P2SH-P2WSH) witness script', OPT),
                amount('amount', '(required for Segwit inputs) the amount spent', OPT),
              ],
            }),
          ],
        }),
        str('sighashtype', `The signature hash type. Must be one of\n${SIGHASH_TYPES}`, { default: 'DEFAULT' }),
      ],
      kind: 'wallet',
      readsSnapshot: true,
    },
    {
      name: 'simulaterawtransaction',
      description: 'Calculate the balance change resulting in the signing and broadcasting of the given transaction(s).',
      args: [
        arg('rawtxs', 'arr', 'An array of hex strings of raw transactions.\n', { optional: true, inner: [str('rawtx', '', OPT)] }),
        arg('options', 'obj_named', '', { optional: true, inner: [bool('include_watchonly', INCLUDE_WATCHONLY, { default: false })] }),
      ],
      kind: 'wallet',
    },
    {
      name: 'unloadwallet',
      description: 'Unloads the wallet referenced by the request endpoint or the wallet_name argument.\nIf both are specified, they must be identical.',
      args: [
        str('wallet_name', 'The name of the wallet to unload. If provided both here and in the RPC endpoint, the two must be identical.', { hint: 'the wallet name from the RPC endpoint' }),
        LOAD_ON_STARTUP(),
      ],
      kind: (args, ctx) => {
        endpointOrParameter(args.raw[0], ctx);
        throw new RpcError(RPC_WALLET_NOT_FOUND, WALLET_NOT_LOADED);
      },
    },
    {
      name: 'walletcreatefundedpsbt',
      description: 'Creates and funds a transaction in the Partially Signed Transaction format.\nImplements the Creator and Updater roles.\nAll existing inputs must either have their previous output transaction be in the wallet\nor be in the UTXO set. Solving data must be provided for non-wallet inputs.',
      args: [
        arg('inputs', 'arr', 'Leave empty to add inputs automatically. See add_inputs option.', {
          optional: true,
          inner: [
            arg('', 'obj', '', {
              optional: true,
              inner: [
                hex('txid', 'The transaction id'),
                num('vout', 'The output number'),
                num('sequence', 'The sequence number', { hint: 'depends on the value of the \'locktime\' and \'options.replaceable\' arguments' }),
                num('weight', 'The maximum weight for this input, including the weight of the outpoint and sequence number. Note that signature sizes are not guaranteed to be consistent, so the maximum DER signatures size of 73 bytes should be used when considering ECDSA signatures.Remember to convert serialized sizes to weight units when necessary.', { hint: 'Calculated from wallet and solving data' }),
              ],
            }),
          ],
        }),
        arg('outputs', 'arr', 'The outputs specified as key-value pairs.\nEach key may only appear once, i.e. there can only be one \'data\' output, and no address may be duplicated.\nAt least one output of either type must be specified.\nFor compatibility reasons, a dictionary, which holds the key-value pairs directly, is also\naccepted as second parameter.', { inner: outputsInner(), skip: true }),
        num('locktime', 'Raw locktime. Non-0 value also locktime-activates inputs', { default: 0 }),
        OPTIONS(),
        bool('bip32derivs', 'Include BIP 32 derivation paths for public keys if we know them', { default: true }),
        num('version', 'Transaction version', { default: 2 }),
      ],
      kind: 'wallet',
    },
    { name: 'walletdisplayaddress', description: 'Display address on an external signer for verification.', args: [str('address', 'bitcoin address to display')], kind: 'wallet' },
    { name: 'walletlock', description: 'Removes the wallet encryption key from memory, locking the wallet.\nAfter calling this method, you will need to call walletpassphrase again\nbefore being able to call any methods which require the wallet to be unlocked.', args: [], kind: 'wallet' },
    {
      name: 'walletpassphrase',
      description: 'Stores the wallet decryption key in memory for \'timeout\' seconds.\nThis is needed prior to performing transactions related to private keys such as sending bitcoins',
      args: [str('passphrase', 'The wallet passphrase'), num('timeout', 'The time to keep the decryption key in seconds; capped at 100000000 (~3 years).')],
      kind: 'wallet',
    },
    { name: 'walletpassphrasechange', description: 'Changes the wallet passphrase from \'oldpassphrase\' to \'newpassphrase\'.', args: [str('oldpassphrase', 'The current passphrase'), str('newpassphrase', 'The new passphrase')], kind: 'wallet' },
    {
      name: 'walletprocesspsbt',
      description: 'Update a PSBT with input information from our wallet and then sign inputs\nthat we can sign for.',
      args: [
        str('psbt', 'The transaction base64 string'),
        bool('sign', 'Also sign the transaction when updating (requires wallet to be unlocked)', { default: true }),
        str('sighashtype', `The signature hash type to sign with if not specified by the PSBT. Must be one of\n${SIGHASH_TYPES}`, { default: 'DEFAULT' }),
        bool('bip32derivs', 'Include BIP 32 derivation paths for public keys if we know them', { default: true }),
        bool('finalize', 'Also finalize inputs if possible', { default: true }),
      ],
      kind: 'wallet',
    },
  ];

  return stubs.map((stub) => {
    const example = stub.args
      .filter((a) => a.default === undefined && a.defaultHint === undefined && !a.optional)
      .map((a) => (a.type === 'str' || a.type === 'hex' ? `"${a.name}"` : a.name));
    const kind = stub.kind;
    return defineRpcMethod({
      name: stub.name,
      category: stub.category ?? 'wallet',
      description: stub.description,
      args: stub.args,
      results: [{ type: 'any', description: '' }],
      examples: helpExampleCli(stub.name, example.join(' ')) + helpExampleRpc(stub.name, example.join(', ')),
      ...(stub.readsSnapshot ? { readsSnapshot: true } : {}),
      handler: deps.handlers?.[stub.name] ?? (kind === 'wallet' ? (_args, ctx) => (deps.notBuilt ? deps.notBuilt(ctx, stub.name) : requireWallet(ctx)) : kind),
    });
  });
}
