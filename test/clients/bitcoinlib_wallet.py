"""python-bitcoinlib (Debian's python3-bitcoinlib), unmodified, sending between two wallets.

Run with /usr/bin/python3 (Debian's packages are on its path):
    bitcoinlib_wallet.py <http://user:password@host:port> <from wallet> <to wallet> <satoshis>
Each wallet is reached the way the library's users reach one: a Proxy whose service_url
ends in /wallet/<name>. The receiver gives a new address, the sender pays it with
sendtoaddress (the library passes satoshis as BTC), and gettransaction is read back from
both sides. Prints one JSON object with what the library returned.
"""
import decimal
import json
import sys
import urllib.parse

import bitcoin
import bitcoin.rpc
from bitcoin.core import b2lx


def plain(value):
    # The library parses JSON numbers with a fraction or exponent as Decimal.
    if isinstance(value, decimal.Decimal):
        return float(value)
    raise TypeError(repr(value))


def wallet_proxy(base, name):
    return bitcoin.rpc.Proxy(service_url='%s/wallet/%s' % (base, urllib.parse.quote(name, safe='')))


def main():
    base, sender_name, receiver_name, satoshis = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    bitcoin.SelectParams('regtest')
    sender = wallet_proxy(base, sender_name)
    receiver = wallet_proxy(base, receiver_name)
    address = receiver.getnewaddress()
    txid = sender.sendtoaddress(address, satoshis)
    sent = sender.gettransaction(txid)
    received = receiver.gettransaction(txid)
    print(json.dumps({
        'address': str(address),
        'txid': b2lx(txid),
        'sender_tx_hex': sent['hex'],
        'receiver_details': received['details'],
        'sender_balance': sender.getbalance('*', 0),
        'receiver_balance': receiver.getbalance('*', 0),
    }, default=plain))


if __name__ == '__main__':
    main()
