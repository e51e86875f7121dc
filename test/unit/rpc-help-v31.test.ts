/**
 * Help texts against Bitcoin Core v31.0's own (`help <command>` output published with the
 * release): every method this file registers prints byte for byte what Core prints, and
 * the Wallet section of `help` lists Core v31's wallet commands with their synopses.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { test } from 'node:test';
import { DEFAULT_NODE_FACTS, descriptorActivityMethods, networkMethods, nodeMethods, pureRpcMethods, scanBlocksMethods, scanTxOutSetMethods, walletStubMethods, zmqMethods } from '../../src/rpc/index.js';
import { caller } from './rpc-call-helper.js';

const fixtures = JSON.parse(fs.readFileSync(new URL('../../../test/unit/fixtures/core-v31-help.json', import.meta.url), 'utf8')) as Record<string, string>;

const net = { subversion: '', localServices: 0n, localRelay: true, networkActive: true, reachable: new Set<never>(), relayFee: 0n, incrementalFee: 0n };
const rpc = caller(
  ...pureRpcMethods('regtest'),
  ...networkMethods(net, DEFAULT_NODE_FACTS),
  ...nodeMethods(),
  ...scanTxOutSetMethods({ chain: 'regtest', flush: async () => {}, snapshots: () => undefined, node: DEFAULT_NODE_FACTS }),
  ...scanBlocksMethods({ chain: 'regtest', snapshots: () => undefined, node: DEFAULT_NODE_FACTS }),
  ...descriptorActivityMethods(),
  ...walletStubMethods({ walletDir: () => '/nonexistent', listWalletDatabases: () => [] }),
  ...zmqMethods(),
);

test('help <command> equals Core v31.0’s text', () => {
  assert.equal(Object.keys(fixtures).length, 14);
  for (const [name, text] of Object.entries(fixtures)) {
    assert.equal(rpc.registry.help(name), text, name);
  }
});

test('help lists the wallet commands of a v31 wallet build (v30’s list without settxfee)', () => {
  const listing = rpc.registry.help('');
  const section = listing.slice(listing.indexOf('== Wallet ==\n') + '== Wallet ==\n'.length);
  // The Zmq section follows, after a blank line.
  const wallet = section.slice(0, section.indexOf('\n\n')).split('\n');
  assert.deepEqual(wallet, [
    'abandontransaction "txid"',
    'abortrescan',
    'backupwallet "destination"',
    'bumpfee "txid" ( options )',
    'createwallet "wallet_name" ( disable_private_keys blank "passphrase" avoid_reuse descriptors load_on_startup external_signer )',
    'createwalletdescriptor "type" ( {"internal":bool,"hdkey":"str",...} )',
    'encryptwallet "passphrase"',
    'getaddressesbylabel "label"',
    'getaddressinfo "address"',
    'getbalance ( "dummy" minconf include_watchonly avoid_reuse )',
    'getbalances',
    'gethdkeys ( {"active_only":bool,"private":bool,...} )',
    'getnewaddress ( "label" "address_type" )',
    'getrawchangeaddress ( "address_type" )',
    'getreceivedbyaddress "address" ( minconf include_immature_coinbase )',
    'getreceivedbylabel "label" ( minconf include_immature_coinbase )',
    'gettransaction "txid" ( include_watchonly verbose )',
    'getwalletinfo',
    'importdescriptors requests',
    'importprunedfunds "rawtransaction" "txoutproof"',
    'keypoolrefill ( newsize )',
    'listaddressgroupings',
    'listdescriptors ( private )',
    'listlabels ( "purpose" )',
    'listlockunspent',
    'listreceivedbyaddress ( minconf include_empty include_watchonly "address_filter" include_immature_coinbase )',
    'listreceivedbylabel ( minconf include_empty include_watchonly include_immature_coinbase )',
    'listsinceblock ( "blockhash" target_confirmations include_watchonly include_removed include_change "label" )',
    'listtransactions ( "label" count skip include_watchonly )',
    'listunspent ( minconf maxconf ["address",...] include_unsafe query_options )',
    'listwalletdir',
    'listwallets',
    'loadwallet "filename" ( load_on_startup )',
    'lockunspent unlock ( [{"txid":"hex","vout":n},...] persistent )',
    'migratewallet ( "wallet_name" "passphrase" )',
    'psbtbumpfee "txid" ( options )',
    'removeprunedfunds "txid"',
    'rescanblockchain ( start_height stop_height )',
    'restorewallet "wallet_name" "backup_file" ( load_on_startup )',
    'send [{"address":amount,...},{"data":"hex"},...] ( conf_target "estimate_mode" fee_rate options version )',
    'sendall ["address",{"address":amount,...},...] ( conf_target "estimate_mode" fee_rate options )',
    'sendmany ( "" ) {"address":amount,...} ( minconf "comment" ["address",...] replaceable conf_target "estimate_mode" fee_rate verbose )',
    'sendtoaddress "address" amount ( "comment" "comment_to" subtractfeefromamount replaceable conf_target "estimate_mode" avoid_reuse fee_rate verbose )',
    'setlabel "address" "label"',
    'setwalletflag "flag" ( value )',
    'signmessage "address" "message"',
    'signrawtransactionwithwallet "hexstring" ( [{"txid":"hex","vout":n,"scriptPubKey":"hex","redeemScript":"hex","witnessScript":"hex","amount":amount},...] "sighashtype" )',
    'simulaterawtransaction ( ["rawtx",...] {"include_watchonly":bool,...} )',
    'unloadwallet ( "wallet_name" load_on_startup )',
    'walletcreatefundedpsbt ( [{"txid":"hex","vout":n,"sequence":n,"weight":n},...] ) [{"address":amount,...},{"data":"hex"},...] ( locktime options bip32derivs version )',
    'walletdisplayaddress "address"',
    'walletlock',
    'walletpassphrase "passphrase" timeout',
    'walletpassphrasechange "oldpassphrase" "newpassphrase"',
    'walletprocesspsbt "psbt" ( sign "sighashtype" bip32derivs finalize )',
  ]);
  // syncwithvalidationinterfacequeue is hidden, as in Core.
  assert.ok(!listing.includes('syncwithvalidationinterfacequeue'));
  assert.ok(listing.includes('== Network ==\ngetconnectioncount\ngetnetworkinfo\n'));
  assert.ok(listing.includes('== Util ==\ncreatemultisig nrequired ["key",...] ( "address_type" )\nderiveaddresses "descriptor" ( range )\ngetdescriptorinfo "descriptor"\nsignmessagewithprivkey "privkey" "message"\nvalidateaddress "address"\nverifymessage "address" "signature" "message"\n'));
});
