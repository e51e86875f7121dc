/*
 * SHA-256, double SHA-256 and HASH160 for the native addon, into buffers the caller owns.
 *
 * Why: a script check hashes eight to ten short messages per input (BIP143/BIP341
 * midstates, the sighash, the key hash). node's crypto.hash spends about a microsecond per
 * call on argument handling and a new Buffer, more than SHA-256 of 100 bytes costs with
 * the CPU's SHA extensions; these entry points cost one Node-API crossing and write into
 * an output the JavaScript side allocated. The code is OpenSSL's one-shot SHA256 and
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

static void sha256_once(const unsigned char *data, size_t length, unsigned char *out) {
  SHA256(data, length, out);
}

static void sha256_twice(const unsigned char *data, size_t length, unsigned char *out) {
  unsigned char first[SHA256_DIGEST_LENGTH];
  SHA256(data, length, first);
  SHA256(first, sizeof first, out);
}

static void hash160(const unsigned char *data, size_t length, unsigned char *out) {
  unsigned char first[SHA256_DIGEST_LENGTH];
  SHA256(data, length, first);
  RIPEMD160(first, sizeof first, out);
}

static napi_value hash_into(napi_env env, napi_callback_info info, hash_fn fn, size_t out_length) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc != 2) {
    napi_throw_type_error(env, NULL, "expected (out: Uint8Array, data: Uint8Array)");
    return NULL;
  }
  unsigned char *out, *data;
  size_t length, data_length;
  if (!byte_array(env, argv[0], &out, &length, "out must be a Uint8Array")) return NULL;
  if (length != out_length) {
    napi_throw_type_error(env, NULL, out_length == 32 ? "out must be 32 bytes" : "out must be 20 bytes");
    return NULL;
  }
  if (!byte_array(env, argv[1], &data, &data_length, "data must be a Uint8Array")) return NULL;
  fn(data, data_length, out);
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

napi_status register_hash_functions(napi_env env, napi_value exports) {
  static const struct {
    const char *name;
    napi_callback fn;
  } functions[] = {{"sha256Into", sha256_into}, {"sha256dInto", sha256d_into}, {"hash160Into", hash160_into}};
  for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
    napi_value fn;
    napi_status status = napi_create_function(env, functions[i].name, NAPI_AUTO_LENGTH, functions[i].fn, NULL, &fn);
    if (status != napi_ok) return status;
    status = napi_set_named_property(env, exports, functions[i].name, fn);
    if (status != napi_ok) return status;
  }
  return napi_ok;
}
