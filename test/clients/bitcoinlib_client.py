"""python-bitcoinlib (Debian's python3-bitcoinlib), unmodified, against a running node.

Run with /usr/bin/python3 (Debian's packages are on its path):
    bitcoinlib_client.py <datadir>/bitcoin.conf <height>
bitcoin.rpc.Proxy reads rpcport from the conf file and the cookie from
<conf dir>/regtest/.cookie once SelectParams('regtest') is set, as it does with bitcoind.
Prints one JSON object with what the library returned (Decimals as floats).
"""
import decimal
import json
import sys

import bitcoin
import bitcoin.rpc
from bitcoin.core import b2lx, b2x, lx


def plain(value):
    # The library parses JSON numbers with a fraction or exponent as Decimal.
    if isinstance(value, decimal.Decimal):
        return float(value)
    raise TypeError(repr(value))


def main():
    conf, height = sys.argv[1], int(sys.argv[2])
    bitcoin.SelectParams('regtest')
    proxy = bitcoin.rpc.Proxy(btc_conf_file=conf)
    block_hash = proxy.getblockhash(height)
    block = proxy.getblock(block_hash)  # getblock <hash> false, parsed into a CBlock
    try:
        proxy.getblock(lx('00' * 32))
        missing = None
    except IndexError as err:
        missing = str(err)
    out = {
        'blockchaininfo': proxy.call('getblockchaininfo'),
        'blockcount': proxy.getblockcount(),
        'bestblockhash': b2lx(proxy.getbestblockhash()),
        'blockhash': b2lx(block_hash),
        'block': {
            'hash': b2lx(block.GetHash()),
            'prev': b2lx(block.hashPrevBlock),
            'merkle_ok': block.calc_merkle_root() == block.hashMerkleRoot,
            'txids': [b2lx(tx.GetTxid()) for tx in block.vtx],
            'hex': b2x(block.serialize()),
        },
        'blockstats': proxy.call('getblockstats', height),
        'missing_block_error': missing,
    }
    print(json.dumps(out, default=plain))


if __name__ == '__main__':
    main()
