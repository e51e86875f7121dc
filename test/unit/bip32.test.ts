import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromHex, toHex } from '../../src/primitives/index.js';
import {
  BIP32_HARDENED,
  decodeBase58Check,
  decodeExtPrivKey,
  decodeExtPubKey,
  deriveExtPrivKey,
  deriveExtPubKey,
  encodeExtPrivKey,
  encodeExtPubKey,
  extKeyFromSeed,
  extPubKeyEquals,
  keyFingerprint,
  neuterExtKey,
  type ExtPrivKey,
} from '../../src/script/index.js';

const H = BIP32_HARDENED;

// BIP32 test vectors 1-3: seed, then each chain's path with its xpub and xprv.
interface Vector {
  seed: string;
  chains: { path: number[]; xpub: string; xprv: string }[];
}

const VECTORS: Vector[] = [
  {
    seed: '000102030405060708090a0b0c0d0e0f',
    chains: [
      {
        path: [],
        xpub: 'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8',
        xprv: 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi',
      },
      {
        path: [0 + H],
        xpub: 'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw',
        xprv: 'xprv9uHRZZhk6KAJC1avXpDAp4MDc3sQKNxDiPvvkX8Br5ngLNv1TxvUxt4cV1rGL5hj6KCesnDYUhd7oWgT11eZG7XnxHrnYeSvkzY7d2bhkJ7',
      },
      {
        path: [0 + H, 1],
        xpub: 'xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ',
        xprv: 'xprv9wTYmMFdV23N2TdNG573QoEsfRrWKQgWeibmLntzniatZvR9BmLnvSxqu53Kw1UmYPxLgboyZQaXwTCg8MSY3H2EU4pWcQDnRnrVA1xe8fs',
      },
      {
        path: [0 + H, 1, 2 + H],
        xpub: 'xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5',
        xprv: 'xprv9z4pot5VBttmtdRTWfWQmoH1taj2axGVzFqSb8C9xaxKymcFzXBDptWmT7FwuEzG3ryjH4ktypQSAewRiNMjANTtpgP4mLTj34bhnZX7UiM',
      },
      {
        path: [0 + H, 1, 2 + H, 2],
        xpub: 'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV',
        xprv: 'xprvA2JDeKCSNNZky6uBCviVfJSKyQ1mDYahRjijr5idH2WwLsEd4Hsb2Tyh8RfQMuPh7f7RtyzTtdrbdqqsunu5Mm3wDvUAKRHSC34sJ7in334',
      },
      {
        path: [0 + H, 1, 2 + H, 2, 1000000000],
        xpub: 'xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy',
        xprv: 'xprvA41z7zogVVwxVSgdKUHDy1SKmdb533PjDz7J6N6mV6uS3ze1ai8FHa8kmHScGpWmj4WggLyQjgPie1rFSruoUihUZREPSL39UNdE3BBDu76',
      },
    ],
  },
  {
    seed: 'fffcf9f6f3f0edeae7e4e1dedbd8d5d2cfccc9c6c3c0bdbab7b4b1aeaba8a5a29f9c999693908d8a8784817e7b7875726f6c696663605d5a5754514e4b484542',
    chains: [
      {
        path: [],
        xpub: 'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB',
        xprv: 'xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3LqFtT2emdEXVYsCzC2U',
      },
      {
        path: [0],
        xpub: 'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH',
        xprv: 'xprv9vHkqa6EV4sPZHYqZznhT2NPtPCjKuDKGY38FBWLvgaDx45zo9WQRUT3dKYnjwih2yJD9mkrocEZXo1ex8G81dwSM1fwqWpWkeS3v86pgKt',
      },
      {
        path: [0, 2147483647 + H],
        xpub: 'xpub6ASAVgeehLbnwdqV6UKMHVzgqAG8Gr6riv3Fxxpj8ksbH9ebxaEyBLZ85ySDhKiLDBrQSARLq1uNRts8RuJiHjaDMBU4Zn9h8LZNnBC5y4a',
        xprv: 'xprv9wSp6B7kry3Vj9m1zSnLvN3xH8RdsPP1Mh7fAaR7aRLcQMKTR2vidYEeEg2mUCTAwCd6vnxVrcjfy2kRgVsFawNzmjuHc2YmYRmagcEPdU9',
      },
      {
        path: [0, 2147483647 + H, 1],
        xpub: 'xpub6DF8uhdarytz3FWdA8TvFSvvAh8dP3283MY7p2V4SeE2wyWmG5mg5EwVvmdMVCQcoNJxGoWaU9DCWh89LojfZ537wTfunKau47EL2dhHKon',
        xprv: 'xprv9zFnWC6h2cLgpmSA46vutJzBcfJ8yaJGg8cX1e5StJh45BBciYTRXSd25UEPVuesF9yog62tGAQtHjXajPPdbRCHuWS6T8XA2ECKADdw4Ef',
      },
      {
        path: [0, 2147483647 + H, 1, 2147483646 + H],
        xpub: 'xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL',
        xprv: 'xprvA1RpRA33e1JQ7ifknakTFpgNXPmW2YvmhqLQYMmrj4xJXXWYpDPS3xz7iAxn8L39njGVyuoseXzU6rcxFLJ8HFsTjSyQbLYnMpCqE2VbFWc',
      },
      {
        path: [0, 2147483647 + H, 1, 2147483646 + H, 2],
        xpub: 'xpub6FnCn6nSzZAw5Tw7cgR9bi15UV96gLZhjDstkXXxvCLsUXBGXPdSnLFbdpq8p9HmGsApME5hQTZ3emM2rnY5agb9rXpVGyy3bdW6EEgAtqt',
        xprv: 'xprvA2nrNbFZABcdryreWet9Ea4LvTJcGsqrMzxHx98MMrotbir7yrKCEXw7nadnHM8Dq38EGfSh6dqA9QWTyefMLEcBYJUuekgW4BYPJcr9E7j',
      },
    ],
  },
  {
    // Retention of leading zeros in the private key.
    seed: '4b381541583be4423346c643850da4b320e46a87ae3d2a4e6da11eba819cd4acba45d239319ac14f863b8d5ab5a0d0c64d2e8a1e7d1457df2e5a3c51c73235be',
    chains: [
      {
        path: [],
        xpub: 'xpub661MyMwAqRbcEZVB4dScxMAdx6d4nFc9nvyvH3v4gJL378CSRZiYmhRoP7mBy6gSPSCYk6SzXPTf3ND1cZAceL7SfJ1Z3GC8vBgp2epUt13',
        xprv: 'xprv9s21ZrQH143K25QhxbucbDDuQ4naNntJRi4KUfWT7xo4EKsHt2QJDu7KXp1A3u7Bi1j8ph3EGsZ9Xvz9dGuVrtHHs7pXeTzjuxBrCmmhgC6',
      },
      {
        path: [0 + H],
        xpub: 'xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y',
        xprv: 'xprv9uPDJpEQgRQfDcW7BkF7eTya6RPxXeJCqCJGHuCJ4GiRVLzkTXBAJMu2qaMWPrS7AANYqdq6vcBcBUdJCVVFceUvJFjaPdGZ2y9WACViL4L',
      },
    ],
  },
];

for (const [n, vector] of VECTORS.entries()) {
  test(`BIP32 test vector ${n + 1}: private derivation, public derivation where unhardened, encodings`, () => {
    const master = extKeyFromSeed(fromHex(vector.seed));
    assert.ok(master);
    for (const chain of vector.chains) {
      let key: ExtPrivKey | null = master;
      for (const step of chain.path) key = deriveExtPrivKey(key!, step);
      assert.ok(key);
      assert.equal(encodeExtPrivKey(key, 'main'), chain.xprv);
      assert.equal(encodeExtPubKey(neuterExtKey(key), 'main'), chain.xpub);

      // Decoding round-trips.
      const decodedPrv = decodeExtPrivKey(chain.xprv, 'main');
      const decodedPub = decodeExtPubKey(chain.xpub, 'main');
      assert.ok(decodedPrv && decodedPub);
      assert.equal(toHex(decodedPrv.privateKey), toHex(key.privateKey));
      assert.ok(extPubKeyEquals(decodedPub, neuterExtKey(key)));

      // CKDpub of the parent gives the same public child for unhardened steps.
      const last = chain.path[chain.path.length - 1];
      if (last !== undefined && last < H) {
        let parent: ExtPrivKey | null = master;
        for (const step of chain.path.slice(0, -1)) parent = deriveExtPrivKey(parent!, step);
        const child = deriveExtPubKey(neuterExtKey(parent!), last);
        assert.ok(child);
        assert.equal(encodeExtPubKey(child, 'main'), chain.xpub);
      }
    }
  });
}

test('hardened public derivation is impossible', () => {
  const xpub = decodeExtPubKey(VECTORS[0]!.chains[0]!.xpub, 'main')!;
  assert.equal(deriveExtPubKey(xpub, H), null);
  assert.throws(() => deriveExtPubKey(xpub, -1), RangeError);
  assert.throws(() => deriveExtPubKey(xpub, 2 ** 32), RangeError);
});

test('fingerprints: a child names its parent by HASH160 of the parent key', () => {
  const master = extKeyFromSeed(fromHex(VECTORS[0]!.seed))!;
  const child = deriveExtPrivKey(master, 0 + H)!;
  assert.equal(toHex(child.parentFingerprint), '3442193e');
  assert.equal(toHex(keyFingerprint(neuterExtKey(master).publicKey)), '3442193e');
});

test('xpub/xprv are main-chain only; other chains use tpub/tprv', () => {
  const xprv = VECTORS[0]!.chains[1]!.xprv;
  const key = decodeExtPrivKey(xprv, 'main')!;
  assert.equal(decodeExtPrivKey(xprv, 'regtest'), null);
  assert.equal(decodeExtPubKey(VECTORS[0]!.chains[1]!.xpub, 'test'), null);
  const tprv = encodeExtPrivKey(key, 'regtest');
  const tpub = encodeExtPubKey(neuterExtKey(key), 'testnet4');
  assert.match(tprv, /^tprv/);
  assert.match(tpub, /^tpub/);
  for (const chain of ['test', 'testnet4', 'signet', 'regtest'] as const) {
    assert.equal(toHex(decodeExtPrivKey(tprv, chain)!.privateKey), toHex(key.privateKey));
    assert.ok(extPubKeyEquals(decodeExtPubKey(tpub, chain)!, neuterExtKey(key)));
    assert.equal(decodeExtPubKey(tpub, 'main'), null);
  }
  // A private key string is not a public one and vice versa.
  assert.equal(decodeExtPubKey(xprv, 'main'), null);
  assert.equal(decodeExtPrivKey(VECTORS[0]!.chains[1]!.xpub, 'main'), null);
});

// BIP32 test vector 5: invalid extended keys Core's DecodeExtKey / DecodeExtPubKey refuse.
const INVALID_PUBLIC = [
  'xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6LBpB85b3D2yc8sfvZU521AAwdZafEz7mnzBBsz4wKY5fTtTQBm', // pubkey version / prvkey mismatch
  'xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6Txnt3siSujt9RCVYsx4qHZGc62TG4McvMGcAUjeuwZdduYEvFn', // invalid pubkey prefix 04
  'xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6N8ZMMXctdiCjxTNq964yKkwrkBJJwpzZS4HS2fxvyYUA4q2Xe4', // invalid pubkey prefix 01
  'xpub661no6RGEX3uJkY4bNnPcw4URcQTrSibUZ4NqJEw5eBkv7ovTwgiT91XX27VbEXGENhYRCf7hyEbWrR3FewATdCEebj6znwMfQkhRYHRLpJ', // zero depth, non-zero parent fingerprint
  'xpub661MyMwAuDcm6CRQ5N4qiHKrJ39Xe1R1NyfouMKTTWcguwVcfrZJaNvhpebzGerh7gucBvzEQWRugZDuDXjNDRmXzSZe4c7mnTK97pTvGS8', // zero depth, non-zero index
  'DMwo58pR1QLEFihHiXPVykYB6fJmsTeHvyTp7hRThAtCX8CvYzgPcn8XnmdfHPmHJiEDXkTiJTVV9rHEBUem2mwVbbNfvT2MTcAqj3nesx8uBf9', // unknown version
  'xpub661MyMwAqRbcEYS8w7XLSVeEsBXy79zSzH1J8vCdxAZningWLdN3zgtU6Q5JXayek4PRsn35jii4veMimro1xefsM58PgBMrvdYre8QyULY', // pubkey 020000...07 not on the curve
];
const INVALID_PRIVATE = [
  'xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzFGTQQD3dC4H2D5GBj7vWvSQaaBv5cxi9gafk7NF3pnBju6dwKvH', // prvkey version / pubkey mismatch
  'xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzFGpWnsj83BHtEy5Zt8CcDr1UiRXuWCmTQLxEK9vbz5gPstX92JQ', // invalid prvkey prefix 04
  'xprv9s21ZrQH143K24Mfq5zL5MhWK9hUhhGbd45hLXo2Pq2oqzMMo63oStZzFAzHGBP2UuGCqWLTAPLcMtD9y5gkZ6Eq3Rjuahrv17fEQ3Qen6J', // invalid prvkey prefix 01
  'xprv9s2SPatNQ9Vc6GTbVMFPFo7jsaZySyzk7L8n2uqKXJen3KUmvQNTuLh3fhZMBoG3G4ZW1N2kZuHEPY53qmbZzCHshoQnNf4GvELZfqTUrcv', // zero depth, non-zero parent fingerprint
  'xprv9s21ZrQH4r4TsiLvyLXqM9P7k1K3EYhA1kkD6xuquB5i39AU8KF42acDyL3qsDbU9NmZn6MsGSUYZEsuoePmjzsB3eFKSUEh3Gu1N3cqVUN', // zero depth, non-zero index
  'DMwo58pR1QLEFihHiXPVykYB6fJmsTeHvyTp7hRThAtCX8CvYzgPcn8XnmdfHGMQzT7ayAmfo4z3gY5KfbrZWZ6St24UVf2Qgo6oujFktLHdHY4', // unknown version
];

test('BIP32 test vector 5: invalid extended keys are refused', () => {
  // Each is well-formed base58check of 78 bytes: refused for its content, not its checksum.
  for (const text of [...INVALID_PUBLIC, ...INVALID_PRIVATE]) assert.equal(decodeBase58Check(text, 78)?.length, 78, text);
  for (const text of INVALID_PUBLIC) {
    assert.equal(decodeExtPubKey(text, 'main'), null, text);
    assert.equal(decodeExtPrivKey(text, 'main'), null, text);
  }
  for (const text of INVALID_PRIVATE) {
    assert.equal(decodeExtPrivKey(text, 'main'), null, text);
    assert.equal(decodeExtPubKey(text, 'main'), null, text);
  }
});

test('garbage never decodes and never throws', () => {
  for (const text of ['', 'xpub', '1', 'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet9', ' ', '\u00dc']) {
    assert.equal(decodeExtPubKey(text, 'main'), null);
    assert.equal(decodeExtPrivKey(text, 'main'), null);
  }
});

test('Core refuses to derive past depth 255', () => {
  const master = extKeyFromSeed(fromHex(VECTORS[0]!.seed))!;
  const deep: ExtPrivKey = { ...master, depth: 255 };
  assert.equal(deriveExtPrivKey(deep, 0), null);
  assert.equal(deriveExtPubKey(neuterExtKey(deep), 0), null);
  assert.ok(deriveExtPrivKey({ ...master, depth: 254 }, 0));
});
