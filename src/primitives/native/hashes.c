/*
 * SHA-256, double SHA-256 and HASH160 for the native addon, into buffers the caller owns.
 *
 * Why: a script check hashes eight to ten short messages per input (BIP143/BIP341
 * midstates, the sighash, the key hash). node's crypto.hash spends about a microsecond per
 * call on argument handling and a new Buffer, more than SHA-256 of 100 bytes costs with
 * the CPU's SHA extensions; these entry points cost one Node-API crossing and write into
 * an output the JavaScript side allocated. The code is OpenSSL's SHA256 and
 * RIPEMD160 as the node binary itself exports them (its headers are in /usr/include/node),
 * so no library is added.
 *
 * JavaScript signature: fn(out: Uint8Array, data: Uint8Array) -> undefined, with `out`
 * 32 bytes (sha256Into, sha256dInto) or 20 bytes (hash160Into). Wrong arguments throw a
 * TypeError.
 */
#define NAPI_VERSION 8
#define OPENSSL_SUPPRESS_DEPRECATED
#include <node_api.h>
#include <openssl/ripemd.h>
#include <openssl/sha.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "hashes.h"

/* Reads argument `index` as a Uint8Array; throws and returns 0 when it is not one. */
static int byte_array(napi_env env, napi_value value, unsigned char **data, size_t *length, const char *what) {
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  void *raw;
  bool is_typed = false;
  if (napi_is_typedarray(env, value, &is_typed) != napi_ok || !is_typed ||
      napi_get_typedarray_info(env, value, &type, length, &raw, &buffer, &offset) != napi_ok || type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, what);
    return 0;
  }
  *data = raw;
  return 1;
}

typedef void (*hash_fn)(const unsigned char *data, size_t length, unsigned char *out);

/*
 * The low-level SHA256_* and RIPEMD160_* calls, not the one-shot SHA256() and RIPEMD160():
 * in OpenSSL 3 the one-shots go through EVP_Q_digest, which fetches the algorithm from a
 * provider and allocates a context on every call (about 800 ns, where hashing 64 bytes
 * costs well under 100).
 */
static void sha256_raw(const unsigned char *data, size_t length, unsigned char *out) {
  SHA256_CTX ctx;
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, data, length);
  SHA256_Final(out, &ctx);
}

static void sha256_once(const unsigned char *data, size_t length, unsigned char *out) {
  sha256_raw(data, length, out);
}

static void sha256_twice(const unsigned char *data, size_t length, unsigned char *out) {
  unsigned char first[SHA256_DIGEST_LENGTH];
  sha256_raw(data, length, first);
  sha256_raw(first, sizeof first, out);
}

static void hash160(const unsigned char *data, size_t length, unsigned char *out) {
  unsigned char first[SHA256_DIGEST_LENGTH];
  RIPEMD160_CTX ctx;
  sha256_raw(data, length, first);
  RIPEMD160_Init(&ctx);
  RIPEMD160_Update(&ctx, first, sizeof first);
  RIPEMD160_Final(out, &ctx);
}

/*
 * Reads (out: Uint8Array of out_length bytes, data: Uint8Array), the arguments of every
 * entry point here; throws a TypeError and returns 0 when they are not that.
 */
static int out_and_data(napi_env env, napi_callback_info info, size_t out_length, unsigned char **out, unsigned char **data, size_t *data_length) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2) {
    napi_throw_type_error(env, NULL, "expected (out: Uint8Array, data: Uint8Array)");
    return 0;
  }
  size_t length;
  if (!byte_array(env, argv[0], out, &length, "out must be a Uint8Array")) return 0;
  if (length != out_length) {
    napi_throw_type_error(env, NULL, out_length == 64 ? "out must be 64 bytes" : out_length == 32 ? "out must be 32 bytes" : "out must be 20 bytes");
    return 0;
  }
  return byte_array(env, argv[1], data, data_length, "data must be a Uint8Array");
}

static napi_value hash_into(napi_env env, napi_callback_info info, hash_fn fn, size_t out_length) {
  unsigned char *out, *data;
  size_t data_length;
  if (out_and_data(env, info, out_length, &out, &data, &data_length)) fn(data, data_length, out);
  return NULL;
}

static napi_value sha256_into(napi_env env, napi_callback_info info) {
  return hash_into(env, info, sha256_once, 32);
}

static napi_value sha256d_into(napi_env env, napi_callback_info info) {
  return hash_into(env, info, sha256_twice, 32);
}

static napi_value hash160_into(napi_env env, napi_callback_info info) {
  return hash_into(env, info, hash160, 20);
}

/*
 * Core's ComputeMerkleRoot over `count` 32-byte leaves packed in `level`, which it
 * overwrites with the levels above (the caller passes scratch space). Returns whether two
 * identical adjacent hashes were seen on some level (CVE-2012-2459's mutation), and leaves
 * the root in `out`. One call per tree: a merkle node is three SHA-256 compressions,
 * cheaper than the crossing a call per node would cost.
 */
static int merkle_root(unsigned char *level, size_t count, unsigned char *out) {
  int mutated = 0;
  while (count > 1) {
    for (size_t i = 0; i + 1 < count; i += 2) {
      if (memcmp(level + 32 * i, level + 32 * (i + 1), 32) == 0) mutated = 1;
    }
    size_t parents = (count + 1) / 2;
    for (size_t i = 0; i < parents; i++) {
      unsigned char pair[64];
      size_t left = 2 * i, right = 2 * i + 1 < count ? 2 * i + 1 : 2 * i;
      memcpy(pair, level + 32 * left, 32);
      memcpy(pair + 32, level + 32 * right, 32);
      sha256_twice(pair, sizeof pair, level + 32 * i);
    }
    count = parents;
  }
  memcpy(out, level, 32);
  return mutated;
}

/* merkleRootInto(out: Uint8Array(32), leaves: Uint8Array(32 * n), n >= 1) -> boolean mutated. */
static napi_value merkle_root_into(napi_env env, napi_callback_info info) {
  unsigned char *out, *leaves;
  size_t leaves_length;
  if (!out_and_data(env, info, 32, &out, &leaves, &leaves_length)) return NULL;
  if (leaves_length == 0 || leaves_length % 32 != 0) {
    napi_throw_type_error(env, NULL, "leaves must be a positive multiple of 32 bytes");
    return NULL;
  }
  napi_value result;
  if (napi_get_boolean(env, merkle_root(leaves, leaves_length / 32, out), &result) != napi_ok) return NULL;
  return result;
}

/*
 * txHashesInto(out: Uint8Array(64 * n), bytes: Uint8Array, layout: Int32Array(3 * n)).
 * Transaction i lies at bytes[layout[3i] .. layout[3i + 2]); layout[3i + 1] is the offset of
 * its BIP144 witness section from its start, or -1 without one. Writes its txid at
 * out[64i] and its wtxid at out[64i + 32] (the txid again without a witness). The txid
 * hashes version ‖ inputs and outputs ‖ locktime as three pieces of the serialization, so
 * nothing is copied. Why: a block's transactions cost two hash calls each from JavaScript,
 * and during initial sync the crossings cost more than the hashing; this is one per block.
 * A layout that does not fit inside `bytes` throws a RangeError before anything is hashed.
 */
static napi_value tx_hashes_into(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 3) {
    napi_throw_type_error(env, NULL, "expected (out: Uint8Array, bytes: Uint8Array, layout: Int32Array)");
    return NULL;
  }
  unsigned char *out, *bytes;
  size_t out_length, bytes_length;
  if (!byte_array(env, argv[0], &out, &out_length, "out must be a Uint8Array")) return NULL;
  if (!byte_array(env, argv[1], &bytes, &bytes_length, "bytes must be a Uint8Array")) return NULL;
  napi_typedarray_type type;
  napi_value buffer;
  size_t layout_length, offset;
  void *raw;
  bool is_typed = false;
  if (napi_is_typedarray(env, argv[2], &is_typed) != napi_ok || !is_typed ||
      napi_get_typedarray_info(env, argv[2], &type, &layout_length, &raw, &buffer, &offset) != napi_ok || type != napi_int32_array) {
    napi_throw_type_error(env, NULL, "layout must be an Int32Array");
    return NULL;
  }
  const int32_t *layout = raw;
  if (layout_length % 3 != 0 || out_length != 64 * (layout_length / 3)) {
    napi_throw_range_error(env, NULL, "out must hold 64 bytes per transaction of layout (3 entries each)");
    return NULL;
  }
  size_t count = layout_length / 3;
  for (size_t i = 0; i < count; i++) {
    int64_t start = layout[3 * i], witness = layout[3 * i + 1], end = layout[3 * i + 2];
    int fits = start >= 0 && end <= (int64_t)bytes_length && end - start >= 10;
    if (fits && witness >= 0) fits = witness >= 6 && start + witness <= end - 4;
    if (!fits) {
      napi_throw_range_error(env, NULL, "a transaction of layout lies outside bytes");
      return NULL;
    }
  }
  for (size_t i = 0; i < count; i++) {
    const unsigned char *tx = bytes + layout[3 * i];
    int32_t witness = layout[3 * i + 1];
    size_t length = (size_t)(layout[3 * i + 2] - layout[3 * i]);
    unsigned char *txid = out + 64 * i, *wtxid = txid + 32;
    if (witness < 0) {
      sha256_twice(tx, length, txid);
      memcpy(wtxid, txid, 32);
      continue;
    }
    unsigned char first[SHA256_DIGEST_LENGTH];
    SHA256_CTX ctx;
    SHA256_Init(&ctx);
    SHA256_Update(&ctx, tx, 4);
    SHA256_Update(&ctx, tx + 6, (size_t)witness - 6);
    SHA256_Update(&ctx, tx + length - 4, 4);
    SHA256_Final(first, &ctx);
    sha256_raw(first, sizeof first, txid);
    sha256_twice(tx, length, wtxid);
  }
  return NULL;
}

/*
 * blockRootsInto(out: Uint8Array(64), hashes: Uint8Array(64 * n), n >= 1) -> number: the
 * block's two merkle roots from txHashesInto's output, without the caller packing leaves:
 * the txids' root into out[0..32] and the BIP141 witness root (wtxids, the coinbase's as 32
 * zero bytes) into out[32..64]. Returns bit 0 set when the txid tree is mutated and bit 1
 * when the witness tree is (see merkle_root).
 */
static napi_value block_roots_into(napi_env env, napi_callback_info info) {
  unsigned char *out, *hashes;
  size_t hashes_length;
  if (!out_and_data(env, info, 64, &out, &hashes, &hashes_length)) return NULL;
  if (hashes_length == 0 || hashes_length % 64 != 0) {
    napi_throw_range_error(env, NULL, "hashes must be a positive multiple of 64 bytes");
    return NULL;
  }
  size_t count = hashes_length / 64;
  unsigned char *level = malloc(32 * count);
  if (level == NULL) {
    napi_throw_error(env, NULL, "out of memory for a merkle tree");
    return NULL;
  }
  for (size_t i = 0; i < count; i++) memcpy(level + 32 * i, hashes + 64 * i, 32);
  int flags = merkle_root(level, count, out);
  memset(level, 0, 32);
  for (size_t i = 1; i < count; i++) memcpy(level + 32 * i, hashes + 64 * i + 32, 32);
  flags |= merkle_root(level, count, out + 32) << 1;
  free(level);
  napi_value result;
  if (napi_create_int32(env, flags, &result) != napi_ok) return NULL;
  return result;
}

napi_status register_hash_functions(napi_env env, napi_value exports) {
  static const struct {
    const char *name;
    napi_callback fn;
  } functions[] = {{"sha256Into", sha256_into}, {"sha256dInto", sha256d_into}, {"hash160Into", hash160_into}, {"merkleRootInto", merkle_root_into}, {"txHashesInto", tx_hashes_into}, {"blockRootsInto", block_roots_into}};
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
    napi_value fn;
    napi_status status = napi_create_function(env, functions[i].name, NAPI_AUTO_LENGTH, functions[i].fn, NULL, &fn);
    if (status != napi_ok) return status;
    status = napi_set_named_property(env, exports, functions[i].name, fn);
    if (status != napi_ok) return status;
  }
  return napi_ok;
}
