/**
 * Handing out addresses as Core's CWallet::GetNewDestination and GetNewChangeDestination do:
 * the active descriptor of the type gives its next position, and the wallet file records the
 * descriptor's new state with, for a receiving address, its label and purpose (Core's
 * SetAddressBook). Written in one transaction, so a crash leaves either all or none.
 */
import type { DescriptorSpkm } from './descriptor-spkm.js';
import { DEFAULT_KEYPOOL_SIZE } from './new-wallet.js';
import { recordKeys, stringValue, walletDescriptorValue } from './records.js';
import type { WalletDatabase } from './wallet-database.js';

/** The next address of `spkm`, written with the descriptor's new state (and `alsoWrite`'s records) in one transaction, or not handed out at all. */
function takeNext(db: WalletDatabase, spkm: DescriptorSpkm, keypool: number, alsoWrite: (address: string) => void): string {
  const before = spkm.record;
  const address = spkm.newDestination(keypool);
  try {
    db.transaction(() => {
      db.write(recordKeys.walletDescriptor(spkm.stored.id), walletDescriptorValue.encode(spkm.record));
      alsoWrite(address);
    });
  } catch (err) {
    spkm.record = before;
    throw err;
  }
  return address;
}

/** getnewaddress: the next receiving address of `spkm`, labelled. */
export function takeNewAddress(db: WalletDatabase, spkm: DescriptorSpkm, label: string, keypool = DEFAULT_KEYPOOL_SIZE): string {
  return takeNext(db, spkm, keypool, (address) => {
    db.write(recordKeys.purpose(address), stringValue.encode('receive'));
    db.write(recordKeys.name(address), stringValue.encode(label));
  });
}

/** getrawchangeaddress: the next change address of `spkm` (change has no address book entry). */
export function takeNewChangeAddress(db: WalletDatabase, spkm: DescriptorSpkm, keypool = DEFAULT_KEYPOOL_SIZE): string {
  return takeNext(db, spkm, keypool, () => undefined);
}
