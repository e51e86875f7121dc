/**
 * Cases from Bitcoin Core's src/test/descriptor_tests.cpp (public test data): each valid
 * descriptor in private and public form, its normalized form and the scripts it expands
 * to; each invalid one with the error Core reports.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { toHex } from '../../src/primitives/index.js';
import {
  DescriptorError,
  descriptorChecksum,
  inferDescriptor,
  KeyStore,
  parseDescriptor,
  type ParsedDescriptor,
} from '../../src/script/index.js';

const WIF1 = 'L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY1';
const PUB1 = '03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd';
const XONLY1 = 'a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd';
const WIF1U = '5KYZdUEo39z3FPrtuX2QbbwGnNP5zTd7yyr2SC1j299sBCnWjss';
const PUB1U =
  '04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235';

const XPRV_A = 'xprvA1RpRA33e1JQ7ifknakTFpgNXPmW2YvmhqLQYMmrj4xJXXWYpDPS3xz7iAxn8L39njGVyuoseXzU6rcxFLJ8HFsTjSyQbLYnMpCqE2VbFWc';
const XPUB_A = 'xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL';
const XPRV_B = 'xprv9uPDJpEQgRQfDcW7BkF7eTya6RPxXeJCqCJGHuCJ4GiRVLzkTXBAJMu2qaMWPrS7AANYqdq6vcBcBUdJCVVFceUvJFjaPdGZ2y9WACViL4L';
const XPUB_B = 'xpub68NZiKmJWnxxS6aaHmn81bvJeTESw724CRDs6HbuccFQN9Ku14VQrADWgqbhhTHBaohPX4CjNLf9fq9MYo6oDaPPLPxSb7gwQN3ih19Zm4Y';
const XPRV_C = 'xprvA2JDeKCSNNZky6uBCviVfJSKyQ1mDYahRjijr5idH2WwLsEd4Hsb2Tyh8RfQMuPh7f7RtyzTtdrbdqqsunu5Mm3wDvUAKRHSC34sJ7in334';
const XPUB_C = 'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV';
const XPRV_D = 'xprv9s21ZrQH143K3jUwNHoqQNrtzJnJmx4Yup8NkNLdVQCymYbPbJXnPhwkfTfxZfptcs3rLAPUXS39oDLgrNKQGwbGsEmJJ8BU3RzQuvShEG4';
const XPUB_D = 'xpub661MyMwAqRbcGDZQUKLqmWodYLcoBQnQH33yYkkF3jjxeLvY8qr2wWGEWkiKFaaQfJCoi3HeEq3Dc5DptfbCyjD38fNhSqtKc1UHaP4ba3t';
const XPRV_E = 'xprv9s21ZrQH143K2Zu2kTVKcQi9nKhfgJUkYqG73wXsHuhATm1wkt6kcSZeTYEw2PL7krZtJopEYDvBdYWdAai3n3TWUTCVfHvPHqTYJv7smYe';
const XPUB_E = 'xpub661MyMwAqRbcF3yVrV2KyYetLMYA5mCbv4BhrKwUrFE9LZM6JRR1AEt8Jq4V4C8LwtTke6YEEdCZqgXp85YRk2j74EfJKhe3QybQ9kcUjs4';
// BIP32 test vector 2: master, and m/0.
const XPRV_M2 = 'xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3LqFtT2emdEXVYsCzC2U';
const XPUB_M2 = 'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB';
const XPRV_M2_0 = 'xprv9vHkqa6EV4sPZHYqZznhT2NPtPCjKuDKGY38FBWLvgaDx45zo9WQRUT3dKYnjwih2yJD9mkrocEZXo1ex8G81dwSM1fwqWpWkeS3v86pgKt';
const XPUB_M2_0 = 'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH';
// m/2147483647h below XPRV_M2, as the normalized forms print it.
const XPUB_M2_H = 'xpub69H7F5dQzmVd3vPuLKtcXJziMEQByuDidnX3YdwgtNsecY5HRGtAAQC5mXTt4dsv9RzyjgDjAQs9VGVV6ydYCHnprc9vvaA5YtqWyL6hyds';
// BIP32 test vector 1 master.
const XPRV_M1 = 'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
const XPUB_M1 = 'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8';

const WIFS_20 = [
  'KzoAz5CanayRKex3fSLQ2BwJpN7U52gZvxMyk78nDMHuqrUxuSJy',
  'KwGNz6YCCQtYvFzMtrC6D3tKTKdBBboMrLTsjr2NYVBwapCkn7Mr',
  'KxogYhiNfwxuswvXV66eFyKcCpm7dZ7TqHVqujHAVUjJxyivxQ9X',
  'L2BUNduTSyZwZjwNHynQTF14mv2uz2NRq5n5sYWTb4FkkmqgEE9f',
  'L1okJGHGn1kFjdXHKxXjwVVtmCMR2JA5QsbKCSpSb7ReQjezKeoD',
  'KxDCNSST75HFPaW5QKpzHtAyaCQC7p9Vo3FYfi2u4dXD1vgMiboK',
  'L5edQjFtnkcf5UWURn6UuuoFrabgDQUHdheKCziwN42aLwS3KizU',
  'KzF8UWFcEC7BYTq8Go1xVimMkDmyNYVmXV5PV7RuDicvAocoPB8i',
  'L3nHUboKG2w4VSJ5jYZ5CBM97oeK6YuKvfZxrefdShECcjEYKMWZ',
  'KyjHo36dWkYhimKmVVmQTq3gERv3pnqA4xFCpvUgbGDJad7eS8WE',
  'KwsfyHKRUTZPQtysN7M3tZ4GXTnuov5XRgjdF2XCG8faAPmFruRF',
  'KzCUbGhN9LJhdeFfL9zQgTJMjqxdBKEekRGZX24hXdgCNCijkkap',
  'KzgpMBwwsDLwkaC5UrmBgCYaBD2WgZ7PBoGYXR8KT7gCA9UTN5a3',
  'KyBXTPy4T7YG4q9tcAM3LkvfRpD1ybHMvcJ2ehaWXaSqeGUxEdkP',
  'KzJDe9iwJRPtKP2F2AoN6zBgzS7uiuAwhWCfGdNeYJ3PC1HNJ8M8',
  'L1xbHrxynrqLKkoYc4qtoQPx6uy5qYXR5ZDYVYBSRmCV5piU3JG9',
  'KzRedjSwMggebB3VufhbzpYJnvHfHe9kPJSjCU5QpJdAW3NSZxYS',
  'Kyjtp5858xL7JfeV4PNRCKy2t6XvgqNNepArGY9F9F1SSPqNEMs3',
  'L2D4RLHPiHBidkHS8ftx11jJk1hGFELvxh8LoxNQheaGT58dKenW',
  'KyLPZdwY4td98bKkXqEXTEBX3vwEYTQo1yyLjX2jKXA63GBpmSjv',
];
const PUBS_20 = [
  '03669b8afcec803a0d323e9a17f3ea8e68e8abe5a278020a929adbec52421adbd0',
  '0260b2003c386519fc9eadf2b5cf124dd8eea4c4e68d5e154050a9346ea98ce600',
  '0362a74e399c39ed5593852a30147f2959b56bb827dfa3e60e464b02ccf87dc5e8',
  '0261345b53de74a4d721ef877c255429961b7e43714171ac06168d7e08c542a8b8',
  '02da72e8b46901a65d4374fe6315538d8f368557dda3a1dcf9ea903f3afe7314c8',
  '0318c82dd0b53fd3a932d16e0ba9e278fcc937c582d5781be626ff16e201f72286',
  '0297ccef1ef99f9d73dec9ad37476ddb232f1238aff877af19e72ba04493361009',
  '02e502cfd5c3f972fe9a3e2a18827820638f96b6f347e54d63deb839011fd5765d',
  '03e687710f0e3ebe81c1037074da939d409c0025f17eb86adb9427d28f0f7ae0e9',
  '02c04d3a5274952acdbc76987f3184b346a483d43be40874624b29e3692c1df5af',
  '02ed06e0f418b5b43a7ec01d1d7d27290fa15f75771cb69b642a51471c29c84acd',
  '036d46073cbb9ffee90473f3da429abc8de7f8751199da44485682a989a4bebb24',
  '02f5d1ff7c9029a80a4e36b9a5497027ef7f3e73384a4a94fbfe7c4e9164eec8bc',
  '02e41deffd1b7cce11cde209a781adcffdabd1b91c0ba0375857a2bfd9302419f3',
  '02d76625f7956a7fc505ab02556c23ee72d832f1bac391bcd2d3abce5710a13d06',
  '0399eb0a5487515802dc14544cf10b3666623762fbed2ec38a3975716e2c29c232',
  '02bc2feaa536991d269aae46abb8f3772a5b3ad592314945e51543e7da84c4af6e',
  '0318bf32e5217c1eb771a6d5ce1cd39395dff7ff665704f175c9a5451d95a2f2ca',
  '02c681a6243f16208c2004bb81f5a8a67edfdd3e3711534eadeec3dcf0b010c759',
  '0249fdd6b69768b8d84b4893f8ff84b36835c50183de20fcae8f366a45290d01fd',
];
const wifs = (n: number): string => WIFS_20.slice(0, n).join(',');
const pubs = (n: number): string => PUBS_20.slice(0, n).join(',');

const RANGE = 1;
const HARDENED = 2; // expansion needs the private keys
const MISSING_PRIVKEYS = 4; // the private form does not hold every key

interface ValidCase {
  prv: string;
  pub: string;
  /** The normalized form; defaults to `pub`. */
  norm?: string;
  flags?: number;
  /** Scripts per position (a single entry for non-ranged descriptors). */
  scripts: string[][];
}

const VALID: ValidCase[] = [
  // Basic single-key compressed
  {
    prv: `combo(${WIF1})`,
    pub: `combo(${PUB1})`,
    scripts: [[`21${PUB1}ac`, '76a9149a1c78a507689f6f54b847ad1cef1e614ee23f1e88ac', '00149a1c78a507689f6f54b847ad1cef1e614ee23f1e', 'a91484ab21b1b2fd065d4504ff693d832434b6108d7b87']],
  },
  { prv: `pk(${WIF1})`, pub: `pk(${PUB1})`, scripts: [[`21${PUB1}ac`]] },
  {
    prv: `pkh([deadbeef/1/2'/3/4']${WIF1})`,
    pub: `pkh([deadbeef/1/2'/3/4']${PUB1})`,
    norm: `pkh([deadbeef/1/2h/3/4h]${PUB1})`,
    scripts: [['76a9149a1c78a507689f6f54b847ad1cef1e614ee23f1e88ac']],
  },
  { prv: `wpkh(${WIF1})`, pub: `wpkh(${PUB1})`, scripts: [['00149a1c78a507689f6f54b847ad1cef1e614ee23f1e']] },
  { prv: `sh(wpkh(${WIF1}))`, pub: `sh(wpkh(${PUB1}))`, scripts: [['a91484ab21b1b2fd065d4504ff693d832434b6108d7b87']] },
  { prv: `tr(${WIF1})`, pub: `tr(${XONLY1})`, scripts: [['512077aab6e066f8a7419c5ab714c12c67d25007ed55a43cadcacb4d7a970a093f11']] },
  // Basic single-key uncompressed
  { prv: `combo(${WIF1U})`, pub: `combo(${PUB1U})`, scripts: [[`41${PUB1U}ac`, '76a914b5bd079c4d57cc7fc28ecf8213a6b791625b818388ac']] },
  { prv: `pk(${WIF1U})`, pub: `pk(${PUB1U})`, scripts: [[`41${PUB1U}ac`]] },
  { prv: `pkh(${WIF1U})`, pub: `pkh(${PUB1U})`, scripts: [['76a914b5bd079c4d57cc7fc28ecf8213a6b791625b818388ac']] },
  // Some unconventional single-key constructions
  { prv: `sh(pk(${WIF1}))`, pub: `sh(pk(${PUB1}))`, scripts: [['a9141857af51a5e516552b3086430fd8ce55f7c1a52487']] },
  { prv: `sh(pkh(${WIF1}))`, pub: `sh(pkh(${PUB1}))`, scripts: [['a9141a31ad23bf49c247dd531a623c2ef57da3c400c587']] },
  { prv: `wsh(pk(${WIF1}))`, pub: `wsh(pk(${PUB1}))`, scripts: [['00202e271faa2325c199d25d22e1ead982e45b64eeb4f31e73dbdf41bd4b5fec23fa']] },
  { prv: `wsh(pkh(${WIF1}))`, pub: `wsh(pkh(${PUB1}))`, scripts: [['0020338e023079b91c58571b20e602d7805fb808c22473cbc391a41b1bd3a192e75b']] },
  { prv: `sh(wsh(pk(${WIF1})))`, pub: `sh(wsh(pk(${PUB1})))`, scripts: [['a91472d0c5a3bfad8c3e7bd5303a72b94240e80b6f1787']] },
  { prv: `sh(wsh(pkh(${WIF1})))`, pub: `sh(wsh(pkh(${PUB1})))`, scripts: [['a914b61b92e2ca21bac1e72a3ab859a742982bea960a87']] },
  {
    // A 32-byte x-only key that happens to start with 03, and a 33-byte key in tr().
    prv: `tr(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5,{pk(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5),{pk(${WIF1}),pk(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5)}})`,
    pub: `tr(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5,{pk(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5),{pk(${XONLY1}),pk(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5)}})`,
    flags: MISSING_PRIVKEYS,
    scripts: [['51201497ae16f30dacb88523ed9301bff17773b609e8a90518a3f96ea328a47d1500']],
  },
  // Versions with BIP32 derivations
  {
    prv: `combo([01234567]${XPRV_A})`,
    pub: `combo([01234567]${XPUB_A})`,
    scripts: [
      [
        '2102d2b36900396c9282fa14628566582f206a5dd0bcc8d5e892611806cafb0301f0ac',
        '76a91431a507b815593dfc51ffc7245ae7e5aee304246e88ac',
        '001431a507b815593dfc51ffc7245ae7e5aee304246e',
        'a9142aafb926eb247cb18240a7f4c07983ad1f37922687',
      ],
    ],
  },
  { prv: `pk(${XPRV_B}/0)`, pub: `pk(${XPUB_B}/0)`, scripts: [['210379e45b3cf75f9c5f9befd8e9506fb962f6a9d185ac87001ec44a8d3df8d4a9e3ac']] },
  {
    prv: `pkh(${XPRV_M2}/2147483647'/0)`,
    pub: `pkh(${XPUB_M2}/2147483647'/0)`,
    norm: `pkh([bd16bee5/2147483647h]${XPUB_M2_H}/0)`,
    flags: HARDENED,
    scripts: [['76a914ebdc90806a9c4356c1c88e42216611e1cb4c1c1788ac']],
  },
  {
    prv: `wpkh([ffffffff/13']${XPRV_M2_0}/1/2/*)`,
    pub: `wpkh([ffffffff/13']${XPUB_M2_0}/1/2/*)`,
    norm: `wpkh([ffffffff/13h]${XPUB_M2_0}/1/2/*)`,
    flags: RANGE,
    scripts: [['0014326b2249e3a25d5dc60935f044ee835d090ba859'], ['0014af0bd98abc2f2cae66e36896a39ffe2d32984fb7'], ['00141fa798efd1cbf95cebf912c031b8a4a6e9fb9f27']],
  },
  {
    prv: `sh(wpkh(${XPRV_M1}/10/20/30/40/*'))`,
    pub: `sh(wpkh(${XPUB_M1}/10/20/30/40/*'))`,
    norm: `sh(wpkh(${XPUB_M1}/10/20/30/40/*h))`,
    flags: RANGE | HARDENED,
    scripts: [['a9149a4d9901d6af519b2a23d4a2f51650fcba87ce7b87'], ['a914bed59fc0024fae941d6e20a3b44a109ae740129287'], ['a9148483aa1116eb9c05c482a72bada4b1db24af654387']],
  },
  {
    prv: `combo(${XPRV_C}/*)`,
    pub: `combo(${XPUB_C}/*)`,
    flags: RANGE,
    scripts: [
      [
        '2102df12b7035bdac8e3bab862a3a83d06ea6b17b6753d52edecba9be46f5d09e076ac',
        '76a914f90e3178ca25f2c808dc76624032d352fdbdfaf288ac',
        '0014f90e3178ca25f2c808dc76624032d352fdbdfaf2',
        'a91408f3ea8c68d4a7585bf9e8bda226723f70e445f087',
      ],
      [
        '21032869a233c9adff9a994e4966e5b821fd5bac066da6c3112488dc52383b4a98ecac',
        '76a914a8409d1b6dfb1ed2a3e8aa5e0ef2ff26b15b75b788ac',
        '0014a8409d1b6dfb1ed2a3e8aa5e0ef2ff26b15b75b7',
        'a91473e39884cb71ae4e5ac9739e9225026c99763e6687',
      ],
    ],
  },
  {
    prv: `tr(${XPRV_A}/0/*,pk(${XPRV_A}/1/*))`,
    pub: `tr(${XPUB_A}/0/*,pk(${XPUB_A}/1/*))`,
    flags: RANGE,
    scripts: [
      ['512078bc707124daa551b65af74de2ec128b7525e10f374dc67b64e00ce0ab8b3e12'],
      ['512001f0a02a17808c20134b78faab80ef93ffba82261ccef0a2314f5d62b6438f11'],
      ['512021024954fcec88237a9386fce80ef2ced5f1e91b422b26c59ccfc174c8d1ad25'],
    ],
  },
  // Mixed xpubs and const pubkeys
  {
    prv: `wsh(multi(1,${XPRV_C}/0,${WIF1}))`,
    pub: `wsh(multi(1,${XPUB_C}/0,${PUB1}))`,
    scripts: [['0020cb155486048b23a6da976d4c6fe071a2dbc8a7b57aaf225b8955f2e2a27b5f00']],
  },
  {
    prv: `multi(1,${XPRV_C}/*,${WIF1})`,
    pub: `multi(1,${XPUB_C}/*,${PUB1})`,
    flags: RANGE,
    scripts: [
      [`512102df12b7035bdac8e3bab862a3a83d06ea6b17b6753d52edecba9be46f5d09e07621${PUB1}52ae`],
      [`5121032869a233c9adff9a994e4966e5b821fd5bac066da6c3112488dc52383b4a98ec21${PUB1}52ae`],
      [`5121035d30b6c66dc1e036c45369da8287518cf7e0d6ed1e2b905171c605708f14ca0321${PUB1}52ae`],
    ],
  },
  {
    prv: `pkh([01234567/10/20]${XPRV_M2}/2147483647'/0)`,
    pub: `pkh([01234567/10/20]${XPUB_M2}/2147483647'/0)`,
    norm: `pkh([01234567/10/20/2147483647h]${XPUB_M2_H}/0)`,
    flags: HARDENED,
    scripts: [['76a914ebdc90806a9c4356c1c88e42216611e1cb4c1c1788ac']],
  },
  // Multisig constructions
  { prv: `multi(1,${WIF1},${WIF1U})`, pub: `multi(1,${PUB1},${PUB1U})`, scripts: [[`5121${PUB1}41${PUB1U}52ae`]] },
  { prv: `sortedmulti(1,${WIF1},${WIF1U})`, pub: `sortedmulti(1,${PUB1},${PUB1U})`, scripts: [[`5121${PUB1}41${PUB1U}52ae`]] },
  { prv: `sortedmulti(1,${WIF1U},${WIF1})`, pub: `sortedmulti(1,${PUB1U},${PUB1})`, scripts: [[`5121${PUB1}41${PUB1U}52ae`]] },
  {
    prv: `sh(multi(2,[00000000/111'/222]${XPRV_A},${XPRV_B}/0))`,
    pub: `sh(multi(2,[00000000/111'/222]${XPUB_A},${XPUB_B}/0))`,
    norm: `sh(multi(2,[00000000/111h/222]${XPUB_A},${XPUB_B}/0))`,
    scripts: [['a91445a9a622a8b0a1269944be477640eedc447bbd8487']],
  },
  {
    prv: `sortedmulti(2,${XPRV_A}/*,${XPRV_B}/0/0/*)`,
    pub: `sortedmulti(2,${XPUB_A}/*,${XPUB_B}/0/0/*)`,
    flags: RANGE,
    scripts: [
      ['5221025d5fc65ebb8d44a5274b53bac21ff8307fec2334a32df05553459f8b1f7fe1b62102fbd47cc8034098f0e6a94c6aeee8528abf0a2153a5d8e46d325b7284c046784652ae'],
      ['52210264fd4d1f5dea8ded94c61e9641309349b62f27fbffe807291f664e286bfbe6472103f4ece6dfccfa37b211eb3d0af4d0c61dba9ef698622dc17eecdf764beeb005a652ae'],
      ['5221022ccabda84c30bad578b13c89eb3b9544ce149787e5b538175b1d1ba259cbb83321024d902e1a2fc7a8755ab5b694c575fce742c48d9ff192e63df5193e4c7afe1f9c52ae'],
    ],
  },
  {
    prv: `wsh(multi(2,${XPRV_M2}/2147483647'/0,${XPRV_M2_0}/1/2/*,${XPRV_M1}/10/20/30/40/*'))`,
    pub: `wsh(multi(2,${XPUB_M2}/2147483647'/0,${XPUB_M2_0}/1/2/*,${XPUB_M1}/10/20/30/40/*'))`,
    norm: `wsh(multi(2,[bd16bee5/2147483647h]${XPUB_M2_H}/0,${XPUB_M2_0}/1/2/*,${XPUB_M1}/10/20/30/40/*h))`,
    flags: HARDENED | RANGE,
    scripts: [
      ['0020b92623201f3bb7c3771d45b2ad1d0351ea8fbf8cfe0a0e570264e1075fa1948f'],
      ['002036a08bbe4923af41cf4316817c93b8d37e2f635dd25cfff06bd50df6ae7ea203'],
      ['0020a96e7ab4607ca6b261bfe3245ffda9c746b28d3f59e83d34820ec0e2b36c139c'],
    ],
  },
  { prv: `sh(wsh(multi(16,${wifs(16)})))`, pub: `sh(wsh(multi(16,${pubs(16)})))`, scripts: [['a9147fc63e13dc25e8a95a3cee3d9a714ac3afd96f1e87']] },
  {
    prv: `tr(${WIF1},pk(${WIFS_20[0]}))`,
    pub: `tr(${XONLY1},pk(669b8afcec803a0d323e9a17f3ea8e68e8abe5a278020a929adbec52421adbd0))`,
    scripts: [['512017cf18db381d836d8923b1bdb246cfcd818da1a9f0e6e7907f187f0b2f937754']],
  },
  {
    prv: `tr(${WIF1},multi_a(1,${WIFS_20[0]}))`,
    pub: `tr(${XONLY1},multi_a(1,669b8afcec803a0d323e9a17f3ea8e68e8abe5a278020a929adbec52421adbd0))`,
    scripts: [['5120eb5bd3894327d75093891cc3a62506df7d58ec137fcd104cdd285d67816074f3']],
  },
  // In P2WSH we can have up to 20 keys, even wrapped in P2SH.
  { prv: `wsh(multi(20,${wifs(20)}))`, pub: `wsh(multi(20,${pubs(20)}))`, scripts: [['0020376bd8344b8b6ebe504ff85ef743eaa1aa9272178223bcb6887e9378efb341ac']] },
  { prv: `sh(wsh(multi(20,${wifs(20)})))`, pub: `sh(wsh(multi(20,${pubs(20)})))`, scripts: [['a914c2c9c510e9d7f92fd6131e94803a8d34a8ef675e87']] },
  // Checksums
  {
    prv: `sh(multi(2,[00000000/111'/222]${XPRV_A},${XPRV_B}/0))#ggrsrxfy`,
    pub: `sh(multi(2,[00000000/111'/222]${XPUB_A},${XPUB_B}/0))#tjg09x5t`,
    norm: `sh(multi(2,[00000000/111h/222]${XPUB_A},${XPUB_B}/0))#hgmsckna`,
    scripts: [['a91445a9a622a8b0a1269944be477640eedc447bbd8487']],
  },
  {
    prv: `rawtr(${XPRV_M2_0}/86'/1'/0'/1/*)#a5gn3t7k`,
    pub: `rawtr(${XPUB_M2_0}/86'/1'/0'/1/*)#4ur3xhft`,
    norm: 'rawtr([5a61ff8e/86h/1h/0h]xpub6DtZpc9PRL2B6pwoNGysmHAaBofDmWv5S6KQEKKGPKhf5fV62ywDtSziSApYVK3JnYY5KUSgiCwiXW5wtd8z7LNBxT9Mu5sEro8itdGfTeA/1/*)#vwgx7hj9',
    flags: RANGE | HARDENED,
    scripts: [
      ['51205172af752f057d543ce8e4a6f8dcf15548ec6be44041bfa93b72e191cfc8c1ee'],
      ['51201b66f20b86f700c945ecb9ad9b0ad1662b73084e2bfea48bee02126350b8a5b1'],
      ['512063e70f66d815218abcc2306aa930aaca07c5cde73b75127eb27b5e8c16b58a25'],
    ],
  },
  { prv: `rawtr(${WIF1})`, pub: `rawtr(${XONLY1})`, scripts: [[`5120${XONLY1}`]] },
];

/** Core's EqualDescriptor: when only one side has a checksum, it is ignored. */
function equalDescriptor(a: string, b: string): boolean {
  const aHas = a.length > 9 && a[a.length - 9] === '#';
  const bHas = b.length > 9 && b[b.length - 9] === '#';
  if (aHas !== bHas) {
    if (aHas) a = a.slice(0, -9);
    if (bHas) b = b.slice(0, -9);
  }
  return a === b;
}

/** Core's UseHInsteadOfApostrophe: h markers, checksum recomputed if there was one. */
function useH(desc: string): string {
  const replaced = desc.replaceAll("'", 'h');
  const hash = replaced.indexOf('#');
  return hash < 0 ? replaced : `${replaced.slice(0, hash)}#${descriptorChecksum(replaced.slice(0, hash))}`;
}

function hexScripts(scripts: Uint8Array[] | null): string[] | null {
  return scripts ? scripts.map(toHex) : null;
}

function checkValid(c: ValidCase, prvText: string, pubText: string): void {
  const flags = c.flags ?? 0;
  const prv: ParsedDescriptor = parseDescriptor(prvText, 'main');
  const pub: ParsedDescriptor = parseDescriptor(pubText, 'main');
  assert.equal(prv.descriptors.length, 1);
  const [prvDesc, pubDesc] = [prv.descriptors[0]!, pub.descriptors[0]!];
  assert.ok(prv.keys.size > 0, 'private keys are collected from the private form');
  assert.equal(pub.keys.size, 0, 'no private keys in the public form');

  assert.ok(equalDescriptor(c.pub, prvDesc.toString()), `${prvDesc.toString()} != ${c.pub}`);
  assert.ok(equalDescriptor(c.pub, pubDesc.toString()), `${pubDesc.toString()} != ${c.pub}`);

  if (!(flags & MISSING_PRIVKEYS)) {
    const fromPrv = prvDesc.toPrivateString(prv.keys);
    assert.ok(fromPrv.hasPrivate);
    assert.ok(equalDescriptor(c.prv, fromPrv.text), `${fromPrv.text} != ${c.prv}`);
    const fromPub = pubDesc.toPrivateString(prv.keys);
    assert.ok(fromPub.hasPrivate);
    assert.ok(equalDescriptor(c.prv, fromPub.text), `${fromPub.text} != ${c.prv}`);
    assert.equal(prvDesc.toPrivateString(pub.keys).hasPrivate, false);
  }

  const norm = c.norm ?? c.pub;
  for (const desc of [prvDesc, pubDesc]) {
    const normalized = desc.toNormalizedString(prv.keys);
    assert.ok(normalized !== null && equalDescriptor(norm, normalized), `${normalized} != ${norm}`);
  }

  assert.equal(prvDesc.isRange(), (flags & RANGE) !== 0);
  assert.equal(pubDesc.isRange(), (flags & RANGE) !== 0);
  assert.ok(pubDesc.isSolvable());

  const positions = flags & RANGE ? c.scripts.length : 3;
  const keys = flags & HARDENED ? prv.keys : pub.keys;
  for (let i = 0; i < positions; i++) {
    const expected = c.scripts[flags & RANGE ? i : 0]!;
    assert.deepEqual(hexScripts(prvDesc.expand(i, keys)), expected, `${prvText} at ${i}`);
    assert.deepEqual(hexScripts(pubDesc.expand(i, keys)), expected, `${pubText} at ${i}`);
    // An inferred descriptor expands back to the same script.
    for (const script of prvDesc.expand(i, keys)!) {
      assert.deepEqual(hexScripts(inferDescriptor(script, 'main').expand(0, new KeyStore())), [toHex(script)]);
    }
  }
  if (flags & HARDENED) assert.equal(pubDesc.expand(0, pub.keys), null, 'hardened steps need the private key');
}

for (const c of VALID) {
  test(`valid: ${c.pub.slice(0, 90)}`, () => {
    checkValid(c, c.prv, c.pub);
    // Core repeats every case with h in place of ' on both sides.
    if (c.prv.includes("'") && c.pub.includes("'")) {
      checkValid({ ...c, pub: useH(c.pub), prv: useH(c.prv) }, useH(c.prv), useH(c.pub));
    }
  });
}

/** [private form, public form, Core's error for the public form]; '' means the case has no private form. */
const INVALID: [string, string, string][] = [
  [
    'sh(wpkh(L4rK1yDtCWekvXuE6oXD9jCYfFNV2cWRpVuPLBcCU2z8TrisoyY2))',
    'sh(wpkh(03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5))',
    "wpkh(): Pubkey '03a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5' is invalid",
  ],
  [`pkh(deadbeef/1/2'/3/4']${WIF1})`, `pkh(deadbeef/1/2h/3/4h]${PUB1})`, "pkh(): Key origin start '[ character expected but not found, got 'd' instead"],
  [`pkh([deadbeef]/1/2'/3/4']${WIF1})`, `pkh([deadbeef]/1/2'/3/4']${PUB1})`, "pkh(): Multiple ']' characters found for a single pubkey"],
  [`wpkh(${WIF1U})`, `wpkh(${PUB1U})`, 'wpkh(): Uncompressed keys are not allowed'],
  [`wsh(pk(${WIF1U}))`, `wsh(pk(${PUB1U}))`, 'pk(): Uncompressed keys are not allowed'],
  [`sh(wpkh(${WIF1U}))`, `sh(wpkh(${PUB1U}))`, 'wpkh(): Uncompressed keys are not allowed'],
  ['', `combo(07${PUB1U.slice(2)})`, 'combo(): Hybrid public keys are not allowed'],
  [
    '',
    'pk(0623542d61708e3fc48ba78fbe8fcc983ba94a520bc33f82b8e45e51dbc47af2726bcf181925eee1bdd868b109314f3ea92a6fc23d6b66057d3acfba04d6b08b58)',
    'pk(): Hybrid public keys are not allowed',
  ],
  ['', `pkh(07${PUB1U.slice(2)})`, 'pkh(): Hybrid public keys are not allowed'],
  [`combo([012345678]${XPRV_A})`, `combo([012345678]${XPUB_A})`, 'combo(): Fingerprint is not 4 bytes (9 characters instead of 8 characters)'],
  [`pkh(${XPRV_M2}/2147483648)`, `pkh(${XPUB_M2}/2147483648)`, 'pkh(): Key path value 2147483648 is out of range'],
  [`pkh(${XPRV_M2}/1aa)`, `pkh(${XPUB_M2}/1aa)`, "pkh(): Key path value '1aa' is not a valid uint32"],
  [`pkh(${XPRV_M2}/+1)`, `pkh(${XPUB_M2}/+1)`, "pkh(): Key path value '+1' is not a valid uint32"],
  // Multipath
  [`pkh(${XPRV_M2}/<0;1>/<2;3>)`, `pkh(${XPUB_M2}/<0;1>/<2;3>)`, 'pkh(): Multiple multipath key path specifiers found'],
  [
    `pkh([deadbeef/<0;1>]${XPRV_M2}/0)`,
    `pkh([deadbeef/<0;1>]${XPUB_M2}/0)`,
    "pkh(): Key path value '<0;1>' specifies multipath in a section where multipath is not allowed",
  ],
  [
    `tr(${XPRV_E}/6/*,{pk(${XPRV_A}/<1;2;3>/0/*),pk(${XPRV_D}/0/0/<3;4>/*)})`,
    `tr(${XPUB_E}/6/*,{pk(${XPUB_A}/<1;2;3>/0/*),pk(${XPUB_D}/0/0/<3;4>/*)})`,
    'tr(): Multipath subscripts have mismatched lengths',
  ],
  [
    `tr(${XPRV_E}/<6;7;8;9>/*,{pk(${XPRV_A}/<1;2;3>/0/*),pk(${XPRV_D}/0/0/<3;4;5>/*)})`,
    `tr(${XPUB_E}/<6;7;8;9>/*,{pk(${XPUB_A}/<1;2;3>/0/*),pk(${XPUB_D}/0/0/<3;4;5>/*)})`,
    'tr(): Multipath subscripts have mismatched lengths',
  ],
  [
    `tr(${XPRV_E}/<6;7>/*,{pk(${XPRV_A}/<1;2;3>/0/*),pk(${XPRV_D}/0/0/<3;4;5>/*)})`,
    `tr(${XPUB_E}/<6;7>/*,{pk(${XPUB_A}/<1;2;3>/0/*),pk(${XPUB_D}/0/0/<3;4;5>/*)})`,
    'tr(): Multipath internal key mismatches multipath subscripts lengths',
  ],
  [
    `sh(multi(2,${XPRV_A}/<1;2;3>/0/*,${XPRV_B}/0/*,${XPRV_D}/0/0/<3;4>/*))`,
    `sh(multi(2,${XPUB_A}/<1;2;3>/0/*,${XPUB_B}/0/*,${XPUB_D}/0/0/<3;4>/*))`,
    'multi(): Multipath derivation paths have mismatched lengths',
  ],
  [`wpkh(${XPRV_M2}/<0>/*)`, `wpkh(${XPUB_M2}/<0>/*)`, 'wpkh(): Multipath key path specifiers must have at least two items'],
  [`wpkh(${XPRV_M2}/<>/*)`, `wpkh(${XPUB_M2}/<>/*)`, 'wpkh(): Multipath key path specifiers must have at least two items'],
  [`wpkh(${XPRV_M2}/<0/*)`, `wpkh(${XPUB_M2}/<0/*)`, "wpkh(): Key path value '<0' is not a valid uint32"],
  [`wpkh(${XPRV_M2}/0>/*)`, `wpkh(${XPUB_M2}/0>/*)`, "wpkh(): Key path value '0>' is not a valid uint32"],
  [`wpkh(${XPRV_M2}/<0;>/*)`, `wpkh(${XPUB_M2}/<0;>/*)`, "wpkh(): Key path value '' is not a valid uint32"],
  [`wpkh(${XPRV_M2}/<;1>/*)`, `wpkh(${XPUB_M2}/<;1>/*)`, "wpkh(): Key path value '' is not a valid uint32"],
  [`wpkh(${XPRV_M2}/<0;1;>/*)`, `wpkh(${XPUB_M2}/<0;1;>/*)`, "wpkh(): Key path value '' is not a valid uint32"],
  [`wpkh(${XPRV_M2}/<1;1>/*)`, `wpkh(${XPUB_M2}/<1;1>/*)`, 'wpkh(): Duplicated key path value 1 in multipath specifier'],
  // Multisig constructions
  [`sh(multi(16,${wifs(16)}))`, `sh(multi(16,${pubs(16)}))`, 'P2SH script is too large, 547 bytes is larger than 520 bytes'],
  [
    `wsh(multi(2,[aaaaaaaa][aaaaaaaa]${XPRV_M2}/2147483647'/0,${XPRV_M2_0}/1/2/*,${XPRV_M1}/10/20/30/40/*'))`,
    `wsh(multi(2,[aaaaaaaa][aaaaaaaa]${XPUB_M2}/2147483647h/0,${XPUB_M2_0}/1/2/*,${XPUB_M1}/10/20/30/40/*h))`,
    "Multi: Multiple ']' characters found for a single pubkey",
  ],
  [
    `wsh(multi(2,[aaaagaaa]${XPRV_M2}/2147483647'/0,${XPRV_M2_0}/1/2/*,${XPRV_M1}/10/20/30/40/*'))`,
    `wsh(multi(2,[aaagaaaa]${XPUB_M2}/2147483647h/0,${XPUB_M2_0}/1/2/*,${XPUB_M1}/10/20/30/40/*h))`,
    "Multi: Fingerprint 'aaagaaaa' is not hex",
  ],
  [
    `wsh(multi(2,[aaaaaaaa],${XPRV_M2_0}/1/2/*,${XPRV_M1}/10/20/30/40/*'))`,
    `wsh(multi(2,[aaaaaaaa],${XPUB_M2_0}/1/2/*,${XPUB_M1}/10/20/30/40/*h))`,
    'Multi: No key provided',
  ],
  [
    `wsh(multi(2,[aaaaaaa]${XPRV_M2}/2147483647'/0,${XPRV_M2_0}/1/2/*,${XPRV_M1}/10/20/30/40/*'))`,
    `wsh(multi(2,[aaaaaaa]${XPUB_M2}/2147483647h/0,${XPUB_M2_0}/1/2/*,${XPUB_M1}/10/20/30/40/*h))`,
    'Multi: Fingerprint is not 4 bytes (7 characters instead of 8 characters)',
  ],
  [
    `wsh(multi(2,[aaaaaaaaa]${XPRV_M2}/2147483647'/0,${XPRV_M2_0}/1/2/*,${XPRV_M1}/10/20/30/40/*'))`,
    `wsh(multi(2,[aaaaaaaaa]${XPUB_M2}/2147483647h/0,${XPUB_M2_0}/1/2/*,${XPUB_M1}/10/20/30/40/*h))`,
    'Multi: Fingerprint is not 4 bytes (9 characters instead of 8 characters)',
  ],
  [`multi(a,${WIF1},${WIF1U})`, `multi(a,${PUB1},${PUB1U})`, "Multi threshold 'a' is not valid"],
  [`multi(+1,${WIF1},${WIF1U})`, `multi(+1,${PUB1},${PUB1U})`, "Multi threshold '+1' is not valid"],
  [`multi(0,${WIF1},${WIF1U})`, `multi(0,${PUB1},${PUB1U})`, 'Multisig threshold cannot be 0, must be at least 1'],
  [
    `multi(3,${WIF1},${WIF1U})`,
    `multi(3,${PUB1},${PUB1U})`,
    'Multisig threshold cannot be larger than the number of keys; threshold is 3 but only 2 keys specified',
  ],
  ['', 'multi(0)()', "Multi: expected ',', got ')'"],
  ['', 'multi(123)', 'Cannot have 0 keys in multisig; must have between 1 and 20 keys, inclusive'],
  ['', `tr(${XONLY1},multi_a(1))`, 'Cannot have 0 keys in multi_a; must have between 1 and 999 keys, inclusive'],
  [`multi(3,${wifs(4)})`, `multi(3,${pubs(4)})`, 'Cannot have 4 pubkeys in bare multisig; only at most 3 pubkeys'],
  [
    `sh(multi(16,${wifs(16)},${WIF1}))`,
    `sh(multi(16,${pubs(16)},${PUB1}))`,
    'P2SH script is too large, 581 bytes is larger than 520 bytes',
  ],
  // Invalid nesting of structures
  [`sh(${WIF1})`, `sh(${PUB1})`, 'A function is needed within P2SH'],
  [`sh(combo(${WIF1}))`, `sh(combo(${PUB1}))`, 'Can only have combo() at top level'],
  [`wsh(${WIF1})`, `wsh(${PUB1})`, 'A function is needed within P2WSH'],
  [`wsh(wpkh(${WIF1}))`, `wsh(wpkh(${PUB1}))`, 'Can only have wpkh() at top level or inside sh()'],
  [`wsh(sh(pk(${WIF1})))`, `wsh(sh(pk(${PUB1})))`, 'Can only have sh() at top level'],
  [`sh(sh(pk(${WIF1})))`, `sh(sh(pk(${PUB1})))`, 'Can only have sh() at top level'],
  [`wsh(wsh(pk(${WIF1})))`, `wsh(wsh(pk(${PUB1})))`, 'Can only have wsh() at top level or inside sh()'],
  // Whitespace in keys
  ['', `multi(1, ${WIF1},${WIF1U})`, `Multi: Key ' ${WIF1}' is invalid due to whitespace`],
  ['', `pk(${WIF1} )`, `pk(): Key '${WIF1} ' is invalid due to whitespace`],
  ['', `pk( ${WIF1} )`, `pk(): Key ' ${WIF1} ' is invalid due to whitespace`],
  // Checksums
  [
    `sh(multi(2,[00000000/111'/222]${XPRV_A},${XPRV_B}/0))#`,
    `sh(multi(2,[00000000/111'/222]${XPUB_A},${XPUB_B}/0))#`,
    'Expected 8 character checksum, not 0 characters',
  ],
  [
    `sh(multi(2,[00000000/111'/222]${XPRV_A},${XPRV_B}/0))#ggrsrxfyq`,
    `sh(multi(2,[00000000/111'/222]${XPUB_A},${XPUB_B}/0))#tjg09x5tq`,
    'Expected 8 character checksum, not 9 characters',
  ],
  [
    `sh(multi(2,[00000000/111'/222]${XPRV_A},${XPRV_B}/0))#ggrsrxf`,
    `sh(multi(2,[00000000/111'/222]${XPUB_A},${XPUB_B}/0))#tjg09x5`,
    'Expected 8 character checksum, not 7 characters',
  ],
  [
    `sh(multi(3,[00000000/111'/222]${XPRV_A},${XPRV_B}/0))#ggrsrxfy`,
    `sh(multi(3,[00000000/111'/222]${XPUB_A},${XPUB_B}/0))#tjg09x5t`,
    "Provided checksum 'tjg09x5t' does not match computed checksum 'd4x0uxyv'",
  ],
  [
    `sh(multi(2,[00000000/111'/222]${XPRV_A},${XPRV_B}/0))#ggssrxfy`,
    `sh(multi(2,[00000000/111'/222]${XPUB_A},${XPUB_B}/0))#tjq09x4t`,
    "Provided checksum 'tjq09x4t' does not match computed checksum 'tjg09x5t'",
  ],
  [
    `sh(multi(2,[00000000/111'/222]${XPRV_A},${XPRV_B}/0))##ggssrxfy`,
    `sh(multi(2,[00000000/111'/222]${XPUB_A},${XPUB_B}/0))##tjq09x4t`,
    "Multiple '#' symbols",
  ],
  // addr and raw
  ['', 'addr(asdf)', 'Address is not valid'],
  ['', 'raw(asdf)', 'Raw script is not hex'],
  ['', 'raw(\u00dc)#00000000', 'Invalid characters in payload'],
  [
    '',
    'rawtr(xpub68FQ9imX6mCWacw6eNRjaa8q8ynnHmUd5i7MVR51ZMPP5JycyfVHSLQVFPHMYiTybWJnSBL2tCBpy6aJTR2DYrshWYfwAxs8SosGXd66d8/*, xpub69Mvq3QMipdvnd9hAyeTnT5jrkcBuLErV212nsGf3qr7JPWysc9HnNhCsazdzj1etSx28hPSE8D7DnceFbNdw4Kg8SyRfjE2HFLv1P8TSGc/*)',
    'rawtr(): only one key expected.',
  ],
  // A tr() whose first argument is not a key.
  [
    '',
    'tr(and_v(vc:andor(pk(03cdabb7f2dce7bfbd8a0b9570c6fd1e712e5d64045e9d6b517b3d5072251dc204),pk_k(032707170c71d8f75e4ca4e3fce870b9409dcaf12b051d3bcadff74747fa7619c0),and_v(v:older(1),pk_k(02aa27e5eb2c185e87cd1dbc3e0efc9cb1175235e0259df1713424941c3cb40402))),after(10)))',
    "tr(): key 'and_v(vc:andor(pk(03cdabb7f2dce7bfbd8a0b9570c6fd1e712e5d64045e9d6b517b3d5072251dc204),pk_k(032707170c71d8f75e4ca4e3fce870b9409dcaf12b051d3bcadff74747fa7619c0),and_v(v:older(1),pk_k(02aa27e5eb2c185e87cd1dbc3e0efc9cb1175235e0259df1713424941c3cb40402))),after(10))' is not valid",
  ],
];

function parseError(text: string): string {
  try {
    parseDescriptor(text, 'main');
  } catch (err) {
    assert.ok(err instanceof DescriptorError, `${text} threw ${String(err)}`);
    assert.equal(err.code, -5);
    return err.message;
  }
  assert.fail(`${text} parsed`);
}

for (const [prv, pub, error] of INVALID) {
  test(`invalid: ${error}`, () => {
    if (prv) parseError(prv);
    assert.equal(parseError(pub), error, pub);
  });
}

/** Core's CheckMultipath: one descriptor per alternative, each printing and expanding on its own. */
interface MultipathCase {
  prv: string;
  pub: string;
  /** Normalized form of each expansion; defaults to the expanded public form. */
  norms?: string[];
  flags?: number;
  /** Per expansion, per position, the scripts. */
  scripts: string[][][];
}

/** The text with every <a;b;...> element replaced by its i-th alternative. */
function expandText(text: string, i: number): string {
  return text.replace(/<([^>]*)>/g, (_, body: string) => body.split(';')[i]!);
}

const MULTIPATH: MultipathCase[] = [
  {
    prv: `pk(${XPRV_B}/<0;1>)`,
    pub: `pk(${XPUB_B}/<0;1>)`,
    scripts: [[['210379e45b3cf75f9c5f9befd8e9506fb962f6a9d185ac87001ec44a8d3df8d4a9e3ac']], [['21034f8d02282ac6786737d0f37f0df7655f49daa24843bc7de3f4ea88603d26d10aac']]],
  },
  {
    prv: `pkh(${XPRV_M2}/<2147483647h;0>/0)`,
    pub: `pkh(${XPUB_M2}/<2147483647h;0>/0)`,
    norms: [`pkh([bd16bee5/2147483647h]${XPUB_M2_H}/0)`, `pkh(${XPUB_M2}/0/0)`],
    flags: HARDENED,
    scripts: [[['76a914ebdc90806a9c4356c1c88e42216611e1cb4c1c1788ac']], [['76a914f103317b9f0b758a62cb3879281d23e3b1deb90d88ac']]],
  },
  {
    prv: `wpkh([ffffffff/13h]${XPRV_M2_0}/<1;3>/2/*)`,
    pub: `wpkh([ffffffff/13h]${XPUB_M2_0}/<1;3>/2/*)`,
    flags: RANGE,
    scripts: [
      [['0014326b2249e3a25d5dc60935f044ee835d090ba859'], ['0014af0bd98abc2f2cae66e36896a39ffe2d32984fb7'], ['00141fa798efd1cbf95cebf912c031b8a4a6e9fb9f27']],
      [['001426183882ef9c76b9a44386e9b387f33cee7c3a2d'], ['001447c1b9dc215c3f8b47e572981eb97528768cde4e'], ['00146e92cbaa397f9caeccf9a049460258af6ccd67e2']],
    ],
  },
  {
    prv: `sh(wpkh(${XPRV_M1}/<10;100h>/20/30/40/*h))`,
    pub: `sh(wpkh(${XPUB_M1}/<10;100h>/20/30/40/*h))`,
    flags: RANGE | HARDENED,
    scripts: [
      [['a9149a4d9901d6af519b2a23d4a2f51650fcba87ce7b87'], ['a914bed59fc0024fae941d6e20a3b44a109ae740129287'], ['a9148483aa1116eb9c05c482a72bada4b1db24af654387']],
      [['a91470192039cb9529aadf4e53e46d9ac6a13790865787'], ['a914855859faffabf1e4ed2bb7411ab66f4599b1abd287'], ['a9148f2cfd4b486de247c44684160da164617ccf2c2687']],
    ],
  },
  {
    prv: `multi(2,${XPRV_A}/<1;2>/*,${XPRV_B}/<3;4>/0/*)`,
    pub: `multi(2,${XPUB_A}/<1;2>/*,${XPUB_B}/<3;4>/0/*)`,
    flags: RANGE,
    scripts: [
      [
        ['522103095e95d8c50ae3f3fea93fa8e983f710489f60ff681a658c06eba64622c824b121020443e9e729b42628913f1a69b46b7d43ff87c46e86140e12ee420d7e2e8caf8c52ae'],
        ['5221027512d6bd74e24eeb1ad752d5be800adc5886ded11c5293a9a701db83658b526a2102371e912dea5fefa56158908fe4c9f66bc925a8939b10f3821e8f8be797b9ca8252ae'],
        ['522102cc9fd211dc0a1c8bb7a106ff831be0e253bc992f21d08fb8a6fd43fae51b9b892103e43eddc68afc9746c9d09ce0bf8067b4f2416287abbc422ed1ac300673b1104952ae'],
      ],
      [
        ['5221031c0517fff3d483f06ca769bd2326bf30aca1c4de278e676e6ef760c3301244c6210316e171ff4f82dc62ad3f0d84c97865034fc5041eaa508b48c1d7af77f301c8bd52ae'],
        ['52210240f010ccff4202ade2ef87756f6b9af57bbf5ebcb0393b949e6e5d45d30bff36210229057a7e03510b8cb66727fab3f47a52a02ea94eae03e7c2e81b72a26781bfde52ae'],
        ['5221034052522058a07b647bd08fa1a9eaedae0222eac76ddd122ff8096ec969398de721038cb8180dd4c956848bcf191e45aaf297146207559fb8737881156aadaf13704152ae'],
      ],
    ],
  },
  {
    prv: `pkh(${XPRV_M2}/<0;1;2>)`,
    pub: `pkh(${XPUB_M2}/<0;1;2>)`,
    scripts: [
      [['76a9145a61ff8eb7aaca3010db97ebda76121610b7809688ac']],
      [['76a9142f792a782cf4adbb321fe646c8e220563649b8fa88ac']],
      [['76a914dcc5b93b52177d78f97b3f2d259b9a86ee1403b188ac']],
    ],
  },
  {
    prv: `sh(multi(2,${XPRV_A}/<1;2;3>/0/*,${XPRV_B}/0/*,${XPRV_D}/0/0/<3;4;5>/*))`,
    pub: `sh(multi(2,${XPUB_A}/<1;2;3>/0/*,${XPUB_B}/0/*,${XPUB_D}/0/0/<3;4;5>/*))`,
    flags: RANGE,
    scripts: [
      [['a914689cdf7de5836ec04fb971d128cc84858f73e11487'], ['a9142ea7dbaf0a77ee19f080cdacb3e13560e3cd9cf587'], ['a9143da854021f58f5e2d3ff6bb4fcd0ced877deb34987']],
      [['a9143dd613d162e89b83369bbf08e5f1977cfdc9b02787'], ['a91449eef5d3df5c465b20a630c66058fe689082d8e187'], ['a91492be56babf54ea2109c577f799ba6d73948e8c3287']],
      [['a9140093ca92097bdf557fbb0570bb77e1efd2e7529c87'], ['a914e4d0419d3d2ce8f921a800796811ff5462bb151887'], ['a914997bf69841ac444190dc02f5e6031dd6f8feab4587']],
    ],
  },
  {
    prv: `tr(${XPRV_E}/<6;7;8>/*,{pk(${XPRV_A}/<1;2;3>/0/*),pk(${XPRV_D}/0/0/<3;4;5>/*)})`,
    pub: `tr(${XPUB_E}/<6;7;8>/*,{pk(${XPUB_A}/<1;2;3>/0/*),pk(${XPUB_D}/0/0/<3;4;5>/*)})`,
    flags: RANGE,
    scripts: [
      [
        ['5120993e5b1d71d14cbb0a90c57ea0fed1d5bf77d5804cee206c3dbd7e4d2c67d869'],
        ['51207b8f629f6d406b92ffa6284f5545085eafb837c469018b715755f619b587163b'],
        ['512061f52925826e51e4615007557ddbea55b22c817909d7ebcfd3c454c634643ece'],
      ],
      [
        ['5120633808b2156d0a6597e8b07f59c387bb4c2d5c02c4cb98f1802748e64c6abf5f'],
        ['5120fc5f06ded29328c170bf7e49e71c9cc8699befa2bf0a2a80802a1f32ab72d291'],
        ['5120fd05e2227e0dac972dff9941e332db8461bedc320c2a74def44e469ddbad9d21'],
      ],
      [
        ['51205d19538c7c0901520eb712d079ae6eebed4f691021da466dc24e9575d9815ad0'],
        ['5120b9fc348ede2b7b9fb1f84c21741bb36bb3fa0905d0bc9417e07145d3142673f7'],
        ['51203a655bc5181b12efac82a5a5d1d0969b2ceb92c6fc37f505fdf00ee8afa09b33'],
      ],
    ],
  },
  {
    prv: `tr(${XPRV_E}/6/*,{pk(${XPRV_A}/<1;2;3>/0/*),pk(${XPRV_D}/0/0/<3;4;5>/*)})`,
    pub: `tr(${XPUB_E}/6/*,{pk(${XPUB_A}/<1;2;3>/0/*),pk(${XPUB_D}/0/0/<3;4;5>/*)})`,
    flags: RANGE,
    scripts: [
      [
        ['5120993e5b1d71d14cbb0a90c57ea0fed1d5bf77d5804cee206c3dbd7e4d2c67d869'],
        ['51207b8f629f6d406b92ffa6284f5545085eafb837c469018b715755f619b587163b'],
        ['512061f52925826e51e4615007557ddbea55b22c817909d7ebcfd3c454c634643ece'],
      ],
      [
        ['5120c481a8ada38d1070094f62af526d4f8aae2eb1e44d1fd961be6a25198b4da77b'],
        ['512034a2d31c091905e62def62b575b88beff41723d83acb02dfada2e73d9c529b40'],
        ['5120e0ecc278655b092962ded92a5781bd8e86e8408055de05f121e107fa211e5dfb'],
      ],
      [
        ['51206052cff5efc848e4b38a947803943eb1eb0076523eec1041969851ebcd265555'],
        ['512009ed83d758c0bdd36e225c961810761c7a360533434a41a17bba709e331e6cd1'],
        ['5120fcd77851ebaac37564b87e9b351c54492a8fbb1d6afdf7f3a9317703a002b22b'],
      ],
    ],
  },
];

function checkMultipath(c: MultipathCase): void {
  const flags = c.flags ?? 0;
  const prv = parseDescriptor(c.prv, 'main');
  const pub = parseDescriptor(c.pub, 'main');
  assert.equal(prv.descriptors.length, c.scripts.length);
  assert.equal(pub.descriptors.length, c.scripts.length);
  c.scripts.forEach((perPosition, i) => {
    const [prvDesc, pubDesc] = [prv.descriptors[i]!, pub.descriptors[i]!];
    const expectedPub = expandText(c.pub, i);
    assert.ok(equalDescriptor(expectedPub, prvDesc.toString()), `${prvDesc.toString()} != ${expectedPub}`);
    assert.ok(equalDescriptor(expectedPub, pubDesc.toString()));
    assert.ok(equalDescriptor(expandText(c.prv, i), pubDesc.toPrivateString(prv.keys).text));
    const norm = c.norms?.[i] ?? expectedPub;
    assert.ok(equalDescriptor(norm, prvDesc.toNormalizedString(prv.keys)!), `${prvDesc.toNormalizedString(prv.keys)} != ${norm}`);
    assert.equal(pubDesc.isRange(), (flags & RANGE) !== 0);
    const keys = flags & HARDENED ? prv.keys : pub.keys;
    const positions = flags & RANGE ? perPosition.length : 2;
    for (let pos = 0; pos < positions; pos++) {
      const expected = perPosition[flags & RANGE ? pos : 0]!;
      assert.deepEqual(hexScripts(pubDesc.expand(pos, keys)), expected, `${c.pub} #${i} at ${pos}`);
      assert.deepEqual(hexScripts(prvDesc.expand(pos, keys)), expected);
    }
  });
}

for (const c of MULTIPATH) test(`multipath: ${c.pub.slice(0, 80)}`, () => checkMultipath(c));

// BIP390 / Core's MuSig2 parsing cases.
const MUSIG_WIF = 'KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU74sHUHy8S';
const MUSIG_PUB = '02f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9';
const MUSIG_OTHERS = '03dff1d77f2a671c5f36183726db2341be58feae1da2deced843240f7b502ba659,023590a94e768f8e1815c2f24b4d80a8e3149316c3518ce7b7ad338368d038ca66';
const MUSIG_KEYS = `musig(${MUSIG_PUB},${MUSIG_OTHERS})`;

const MUSIG_VALID: ValidCase[] = [
  {
    prv: `rawtr(musig(${MUSIG_WIF},${MUSIG_OTHERS}))`,
    pub: `rawtr(${MUSIG_KEYS})`,
    scripts: [['5120789d937bade6673538f3e28d8368dda4d0512f94da44cf477a505716d26a1575']],
  },
  {
    prv: `tr(musig(${MUSIG_WIF},${MUSIG_OTHERS}))`,
    pub: `tr(${MUSIG_KEYS})`,
    scripts: [['512079e6c3e628c9bfbce91de6b7fb28e2aec7713d377cf260ab599dcbc40e542312']],
  },
  {
    prv: `rawtr(musig(${XPRV_A}/0/*,${XPUB_B}/0/*))`,
    pub: `rawtr(musig(${XPUB_A}/0/*,${XPUB_B}/0/*))`,
    flags: RANGE,
    scripts: [
      ['5120754ccfd18ed4051de3b1144b6145cad4b2999387338dfb85ec392f2963ceaa3a'],
      ['5120be80016576d2691ccc4077bc91d7ece4db34667d6e84829d5e08480cd4bc0b78'],
      ['5120b7139e2f8b92570ad96c40c3b5e6557a5194e288a96df6f29980523365239d58'],
    ],
  },
  {
    prv: `rawtr(musig(${XPRV_A},${XPUB_B})/0/*)`,
    pub: `rawtr(musig(${XPUB_A},${XPUB_B})/0/*)`,
    flags: RANGE,
    scripts: [
      ['51209508c08832f3bb9d5e8baf8cb5cfa3669902e2f2da19acea63ff47b93faa9bfc'],
      ['51205ca1102663025a83dd9b5dbc214762c5a6309af00d48167d2d6483808525a298'],
      ['51207dbed1b89c338df6a1ae137f133a19cae6e03d481196ee6f1a5c7d1aeb56b166'],
    ],
  },
  {
    prv: `rawtr(musig(${XPRV_A}/0,${XPUB_B})/1)`,
    pub: `rawtr(musig(${XPUB_A}/0,${XPUB_B})/1)`,
    scripts: [['51200e355f2bc9e754268e12bbd337499c2f7ffafc3101c41792709007b25a862532']],
  },
  {
    prv: `tr(musig(${XPRV_A},${XPUB_B})/0/*,pk(${MUSIG_WIF}))`,
    pub: `tr(musig(${XPUB_A},${XPUB_B})/0/*,pk(${MUSIG_PUB.slice(2)}))`,
    flags: RANGE,
    scripts: [
      ['51201d377b637b5c73f670f5c8a96a2c0bb0d1a682a1fca6aba91fe673501a189782'],
      ['51208950c83b117a6c208d5205ffefcf75b187b32512eb7f0d8577db8d9102833036'],
      ['5120a49a477c61df73691b77fcd563a80a15ea67bb9c75470310ce5c0f25918db60d'],
    ],
  },
  {
    prv: `tr(${MUSIG_WIF},pk(musig(${XPRV_A},${XPUB_B})/0/*))`,
    pub: `tr(${MUSIG_PUB.slice(2)},pk(musig(${XPUB_A},${XPUB_B})/0/*))`,
    flags: RANGE,
    scripts: [
      ['512068983d461174afc90c26f3b2821d8a9ced9534586a756763b68371a404635cc8'],
      ['5120368e2d864115181bdc8bb5dc8684be8d0760d5c33315570d71a21afce4afd43e'],
      ['512097a1e6270b33ad85744677418bae5f59ea9136027223bc6e282c47c167b471d5'],
    ],
  },
  {
    // The same participant twice.
    prv: `tr(musig(${XPRV_A}/1,${XPRV_A}/1)/2)`,
    pub: `tr(musig(${XPUB_A}/1,${XPUB_A}/1)/2)`,
    scripts: [['5120a17ceacd6422bd5ffd9f165807b254b7d68ad39f179cc4f11545a6835227e97c']],
  },
];

for (const c of MUSIG_VALID) test(`musig: ${c.pub.slice(0, 80)}`, () => checkValid(c, c.prv, c.pub));

const MUSIG_MULTIPATH: MultipathCase[] = [
  {
    prv: `rawtr(musig(${XPRV_A}/<1;2;3>/0/*,${XPRV_B}/0/*,${XPRV_D}/0/0/<3;4;5>/*))`,
    pub: `rawtr(musig(${XPUB_A}/<1;2;3>/0/*,${XPUB_B}/0/*,${XPUB_D}/0/0/<3;4;5>/*))`,
    flags: RANGE,
    scripts: [
      [
        ['51204ba445a411bd8500476ef916e6d4dd7c137a77e0637e5b0e98339210d78d595a'],
        ['5120800394c4f39743734c9a15eaa171476814bed0ea19ad771037c5f1ceb20244a9'],
        ['512011658c4e00fae6f22b9adc2b3823ff3ec6367599783788f4aa8fe1ab3dd0a7ea'],
      ],
      [
        ['5120b977ae89f221762a61ee986fed7a493426462483afef46f7225765e015934961'],
        ['5120b70bf732ed38fcc2052075f83901f8588f1016f6741aaacce6e439a02235e5ed'],
        ['5120d7fa329159ae543b41ca81c7b0e916824ce5d13f61de5b6246dc55a3367f8596'],
      ],
      [
        ['5120cae8685560b38da78300cc06a230a0f47179f20689d71655a665bdd8c5c875cf'],
        ['5120ad51a056d67374c56c7f6d9bb1a6d0d5a20449f5805628334dbac8d4ed8686b5'],
        ['5120e080130242eae1fc92d8c84d7390697e80b4d1e54184bdcbccfc7d6c4fe9bb0f'],
      ],
    ],
  },
  {
    prv: `rawtr(musig(${XPRV_A},${XPRV_B},${XPRV_D})/<3;4;5>/*)`,
    pub: `rawtr(musig(${XPUB_A},${XPUB_B},${XPUB_D})/<3;4;5>/*)`,
    flags: RANGE,
    scripts: [
      [
        ['51204a0fecdd99c67eb2afca0efa9a008c8bbc4dbb5ccb094b3eee273127b1ababee'],
        ['512006120155e6bfd6a3abf8a697caaf5669058395ae0052283a1c6e852d373ceccd'],
        ['5120d46831206710fca12ef7b562a0812250fdda110146dc1b9ac3a099c81ebcef82'],
      ],
      [
        ['5120f2b491de0be3b53482253865a5e0f2d2dbdc425d59db0c48f01c6bed9c6687c2'],
        ['5120601daf543e702b9c28a02f33961dfddfad666d9218b3b0b80177420b37619683'],
        ['512081dc64aac07811399defde8c959e3a66c56b621360e55ff01c2d43dfe7928b66'],
      ],
      [
        ['51201bde67648efbd371e63fc5d30325113d0ad5fb853afc53e9b78302708d5fd865'],
        ['51205bf89fde498522610b5db4eb306b3e1499057aac6d9a56dea832adca4722858b'],
        ['5120b4a81ca1cc45973422d26d687ab3b586d18508a6dbbbcd38e841400c214c4e83'],
      ],
    ],
  },
  {
    prv: `tr(musig(${XPRV_A},${XPRV_B},${XPRV_D})/6/*,pk(${XPRV_A}/<7;8;9>/*))`,
    pub: `tr(musig(${XPUB_A},${XPUB_B},${XPUB_D})/6/*,pk(${XPUB_A}/<7;8;9>/*))`,
    flags: RANGE,
    scripts: [
      [
        ['5120682fd07aa0f18643fd2c8a2411a0525b5391d7ad54e1904c9c0d7f524e49b39c'],
        ['51200410a642ea6b9ab884ba892205f484ad716cf0d8426dd739bd67d1636cdce870'],
        ['5120971dc3136dd90be8aa879d9b0f5c449b62e738cbf7129623098bb3b3aa57eb7d'],
      ],
      [
        ['51208e4158b3e54e32b4ad22f6dffb9f7968c92dfe96fd0b8fd3d30d3e2558a2a694'],
        ['512094273ac6b6f8ac060ba5681ba0906e54a51ab67fd08092e9b2af568b82aa1c7c'],
        ['5120ef0c7915708eb5baa95125e75417306391f339cfc533a19000ab8f2f53da78c1'],
      ],
      [
        ['5120096d8a1f2091b8e8afa24eafd03b714acaea6a14df5cb673b02c7215b7764aeb'],
        ['512011833d6e7a6531b40c3a8beb5f59793f6dd10f216384630d78cb3f6319c964f1'],
        ['5120853417543de5ae914e5cc9de9e52342f253a11faada92148f8b0832650f4eb2f'],
      ],
    ],
  },
];

for (const c of MUSIG_MULTIPATH) test(`musig multipath: ${c.pub.slice(0, 80)}`, () => checkMultipath(c));

const MUSIG_INVALID: [string, string][] = [
  [`pk(${MUSIG_KEYS})`, 'pk(): musig() is only allowed in tr() and rawtr()'],
  [`pkh(${MUSIG_KEYS})`, 'pkh(): musig() is only allowed in tr() and rawtr()'],
  [`wpkh(${MUSIG_KEYS})`, 'wpkh(): musig() is only allowed in tr() and rawtr()'],
  [`combo(${MUSIG_KEYS})`, 'combo(): musig() is only allowed in tr() and rawtr()'],
  [`sh(wpkh(${MUSIG_KEYS}))`, 'wpkh(): musig() is only allowed in tr() and rawtr()'],
  [`sh(wsh(pk(${MUSIG_KEYS})))`, 'pk(): musig() is only allowed in tr() and rawtr()'],
  [`wsh(${MUSIG_KEYS})`, 'A function is needed within P2WSH'],
  [`sh(${MUSIG_KEYS})`, 'A function is needed within P2SH'],
  [`tr(${MUSIG_KEYS}/0/0)`, 'tr(): musig(): derivation requires all participants to be xpubs or xprvs'],
  [`tr(musig(${MUSIG_PUB},${XPUB_A})/0/0)`, 'tr(): musig(): derivation requires all participants to be xpubs or xprvs'],
  [`tr(musig(${XPUB_A}/*,${XPUB_B})/0/*)`, 'tr(): musig(): Cannot have ranged participant keys if musig() also has derivation'],
  [`tr(musig(${XPUB_A},${XPUB_B})/0h/*)`, 'tr(): musig(): cannot have hardened derivation steps'],
  [`tr(musig(${XPUB_A},${XPUB_B})/0/*h)`, 'tr(): musig(): Cannot have hardened child derivation'],
  [`tr(musig(${XPUB_A}/<0;1>,${XPUB_B}/<2;3>)/<3;4>)`, 'tr(): musig(): Cannot have multipath participant keys if musig() is also multipath'],
  ['tr(musig()/0)', 'tr(): musig(): Must contain key expressions'],
  [`tr(musig(${XPUB_A}/*,${XPUB_B}/*)/0)`, 'tr(): musig(): Cannot have ranged participant keys if musig() also has derivation'],
  ['tr(musig(tuus(oldepk(gg)ggggfgg)<,z(((((((((((((((((((((st)', "tr(): Too many ')' in musig() expression"],
];

for (const [text, error] of MUSIG_INVALID) test(`musig invalid: ${error}`, () => assert.equal(parseError(text), error));
