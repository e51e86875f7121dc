/**
 * The wallet's command-line options as Core's CWallet::Create reads them: in Core they are
 * checked each time a wallet is created or loaded, not at start-up, so a bad value lets the
 * node start and makes every wallet load fail with the option's message ("Wallet loading
 * failed. Unknown address type 'foo'"), and a high value is a warning on each load. The
 * checks run in Core's order, so the first bad option is the one named.
 */
import { walletOutputTypeOf, type WalletOutputType, type WalletSpendSettings } from '../wallet/index.js';
import { formatFeeRate } from '../mempool/index.js';
import type { NodeConfig } from './config.js';
import { parseMoney } from './money.js';

/** Core's HIGH_TX_FEE_PER_KB (0.01 BTC/kvB), HIGH_MAX_TX_FEE (1 BTC) and HIGH_APS_FEE (0.0001 BTC). */
const HIGH_TX_FEE_PER_KB = 1_000_000n;
const HIGH_MAX_TX_FEE = 100n * HIGH_TX_FEE_PER_KB;
const HIGH_APS_FEE = 10_000n;

export interface WalletOptions {
  readonly settings: WalletSpendSettings;
  /** The first bad option's message; every wallet load fails with it. */
  readonly error: string | undefined;
  /** Core's warnings for options set very high, given with each load. */
  readonly warnings: readonly string[];
}

class OptionError extends Error {}

const amountError = (name: string, text: string) => new OptionError(`Invalid amount for -${name}=<amount>: '${text}'`);
const highWarning = (name: string, why: string) => `-${name} is set very high! ${why}`;

export function readWalletOptions(config: NodeConfig): WalletOptions {
  const args = config.args;
  const warnings: string[] = [];
  const minRelayFee = config.mempoolPolicy.minRelayTxFee;
  const outputType = (name: string, what: string): WalletOutputType | undefined => {
    const value = args.getArg(name);
    if (value === undefined || value === '') return undefined;
    const found = walletOutputTypeOf(value);
    if (!found) throw new OptionError(`Unknown ${what} type '${value}'`);
    return found;
  };
  /** A set amount option, parsed; a warning when above `high`. */
  const amount = (name: string, fallback: bigint, high?: { limit: bigint; why: string }): bigint => {
    const text = args.getArg(name);
    if (text === undefined) return fallback;
    const value = parseMoney(text);
    if (value === undefined) throw amountError(name, text);
    if (high && value > high.limit) warnings.push(highWarning(name, high.why));
    return value;
  };
  const settings = {
    addressType: 'bech32' as WalletOutputType,
    changeType: undefined as WalletOutputType | undefined,
    minTxFee: 1_000n,
    maxApsFee: 0n,
    fallbackFee: 0n,
    discardFee: 10_000n,
    maxTxFee: 10_000_000n,
    consolidateFeeRate: 10_000n,
  };
  let error: string | undefined;
  try {
    settings.addressType = outputType('addresstype', 'address') ?? 'bech32';
    settings.changeType = outputType('changetype', 'change');
    settings.minTxFee = amount('mintxfee', settings.minTxFee, { limit: HIGH_TX_FEE_PER_KB, why: 'This is the minimum transaction fee you pay on every transaction.' });
    const aps = args.getArg('maxapsfee');
    settings.maxApsFee =
      aps === '-1'
        ? -1n
        : amount('maxapsfee', settings.maxApsFee, {
            limit: HIGH_APS_FEE,
            why: 'This is the maximum transaction fee you pay (in addition to the normal fee) to prioritize partial spend avoidance over regular coin selection.',
          });
    settings.fallbackFee = amount('fallbackfee', settings.fallbackFee, { limit: HIGH_TX_FEE_PER_KB, why: 'This is the transaction fee you may pay when fee estimates are not available.' });
    settings.discardFee = amount('discardfee', settings.discardFee, { limit: HIGH_TX_FEE_PER_KB, why: 'This is the transaction fee you may discard if change is smaller than dust at this level' });
    const maxTxFeeText = args.getArg('maxtxfee');
    settings.maxTxFee = amount('maxtxfee', settings.maxTxFee);
    if (maxTxFeeText !== undefined) {
      if (settings.maxTxFee > HIGH_MAX_TX_FEE) warnings.push('-maxtxfee is set very high! Fees this large could be paid on a single transaction.');
      // CFeeRate(maxtxfee, 1000) below the relay minimum: such a wallet could only make stuck transactions.
      if (settings.maxTxFee < minRelayFee) {
        throw new OptionError(
          `Invalid amount for -maxtxfee=<amount>: '${maxTxFeeText}' (must be at least the minrelay fee of ${formatFeeRate(minRelayFee)} to prevent stuck transactions)`,
        );
      }
    }
    settings.consolidateFeeRate = amount('consolidatefeerate', settings.consolidateFeeRate);
    if (minRelayFee > HIGH_TX_FEE_PER_KB) warnings.push(highWarning('minrelaytxfee', 'The wallet will avoid paying less than the minimum relay fee.'));
  } catch (err) {
    if (!(err instanceof OptionError)) throw err;
    error = err.message;
  }
  return {
    settings: {
      ...settings,
      confirmTarget: args.getIntArg('txconfirmtarget', 6),
      signalRbf: args.getBoolArg('walletrbf', true),
      spendZeroConfChange: args.getBoolArg('spendzeroconfchange', true),
      avoidPartialSpends: args.getBoolArg('avoidpartialspends', false),
      rejectLongChains: args.getBoolArg('walletrejectlongchains', true),
    },
    error,
    warnings: error === undefined ? warnings : [],
  };
}
