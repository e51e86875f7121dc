/**
 * Wallets: Bitcoin Core's descriptor wallets, kept in Core's SQLite files.
 */
export { SqliteDatabase, SqliteError, SqliteStatement, sqliteVersion, SQLITE_ADDON_FILE, type SqliteColumn, type SqliteValue } from './sqlite.js';
export {
  isSqliteWalletFile,
  WALLET_DATABASE_FILENAME,
  WALLET_SCHEMA_VERSION,
  WalletDatabase,
  WalletDatabaseError,
  walletDatabaseFile,
  type OpenWalletDatabaseOptions,
} from './wallet-database.js';
export { readString, RECORD, recordKey, serializeString, splitRecordKey } from './record-keys.js';
export {
  cryptedKeyValue,
  descriptorKeyValue,
  int32Value,
  int64Value,
  LOCKED_UTXO_VALUE,
  locatorValue,
  masterKeyValue,
  OUTPUT_TYPE_NUMBER,
  outputTypeOfNumber,
  walletOutputTypeOf,
  parseRecordKey,
  recordKeys,
  stringValue,
  uint256Value,
  uint64Value,
  walletDescriptorValue,
  xpubValue,
  type DescriptorKeyRecord,
  type MasterKeyRecord,
  type ParsedRecordKey,
  type WalletDescriptorRecord,
  type WalletOutputType,
} from './records.js';
export {
  aesDecrypt,
  aesEncrypt,
  decryptMasterKey,
  decryptSecret,
  DEFAULT_DERIVE_ITERATIONS,
  encryptMasterKey,
  encryptSecret,
  keyFromPassphrase,
  timedDeriveIterations,
} from './crypter.js';
export { decodePrivateKeyDer, encodePrivateKeyDer, privateKeyChecksum, privateKeyChecksumMatches } from './private-key-der.js';
export { serializedWalletTxState, walletTxStateOf, walletTxValue, type WalletTxRecord, type WalletTxState } from './wallet-tx-record.js';
export { compatDescriptorString, descriptorId } from './descriptor-id.js';
export { decodeXpubBytes, encodeXpubBytes, lockedCoinKey, readStoredWallet, StoredWalletCorrupt, type StoredDescriptor, type StoredWallet } from './stored-wallet.js';
export { DescriptorKeyError, DescriptorSpkm, type ListedDescriptor } from './descriptor-spkm.js';
export { DEFAULT_KEYPOOL_SIZE, WALLET_CLIENT_VERSION, WALLET_FLAG, walletDescriptorText, writeDescriptorSet, writeNewDescriptorWallet, type DescriptorSetOptions, type NewWalletOptions } from './new-wallet.js';
export { isBerkeleyDbFile, listWalletDatabases, type ListedWalletDatabase } from './wallet-dir.js';
export { takeNewAddress, takeNewChangeAddress } from './new-address.js';
export { walletScripts, WalletChainScan, type WalletChainBalances, type WalletCoin } from './chain-scan.js';
export { changeWalletPassphrase, encryptWalletFile, WalletEncryptionError } from './encryption.js';
export { RPC_CODE as WALLET_RPC_CODE } from './rpc-codes.js';
export { openWalletDatabaseAt, restoreWalletFile, WalletFileError, walletPathForCreate, walletPathForLoad, walletPathOf } from './wallet-files.js';
export { COINBASE_MATURITY, WalletTxStore, type WalletTx } from './wallet-txs.js';
export type { WalletChain, WalletChainTip } from './wallet-chain.js';
export { Wallet, WalletError, type OwnedScript, type WalletLoadOptions } from './wallet.js';
export { WalletManager, type CreateWalletOptions, type WalletManagerOptions } from './wallet-manager.js';
export { fillPsbtWithSigner, fillWalletPsbt, signWalletTransaction, walletProvider, type SignerPsbtError } from './wallet-signer.js';
export { connectedSigner, ExternalSigner } from './external-signer.js';
export { descriptorOutputType } from './descriptor-output-type.js';
export { maximumSignedInputSize, maximumSignedTxSize } from './signed-size.js';
export {
  availableCoins,
  createTransaction,
  CreateTransactionError,
  discardFeeRate,
  formatSatVb,
  isDust,
  MAX_BIP125_RBF_SEQUENCE,
  minimumFeeRate,
  transactionChangeType,
  type CoinControl,
  type CreatedTransaction,
  type Recipient,
  type WalletSpendSettings,
} from './create-transaction.js';
export { cryptoSelectionRng, feeAtRate, seededSelectionRng, type SelectionRng } from './coin-selection/index.js';
export { commitBump, createRateBumpTransaction, FeeBumpError, type BumpErrorKind, type BumpOptions } from './fee-bumper.js';
