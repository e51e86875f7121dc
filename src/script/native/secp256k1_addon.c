/*
 * The native signature backend: a Node-API addon over libsecp256k1 (Debian's
 * libsecp256k1-dev 0.2.0, with the schnorrsig and extrakeys modules). It does exactly the
 * three curve operations validation needs, with the same verdicts as Core:
 *
 *   verifyEcdsa(sig64, msg32, pubkey33|65)  compact r||s (r or s >= n never verifies),
 *       normalized to low S first: Core's CPubKey::Verify accepts high S, LOW_S is a
 *       script-flag rule checked before this call;
 *   verifySchnorr(sig64, msg32, xonly32)     BIP340;
 *   checkTapTweak(internal32, tweak32, output32, parity)  output == internal + tweak*G;
 *   isValidXOnlyKey(x32)                     Core's XOnlyPubKey::IsFullyValid (RPC's
 *       descriptor inference asks it of every taproot output it prints).
 *
 * Lax DER parsing and the hybrid-key rewrite stay in TypeScript (der.ts, secp256k1.ts),
 * so both backends see the same compact signatures and keys.
 *
 * verifyBatch(records, out) checks many signatures from ONE buffer, so the Node-API
 * crossing is paid once per batch. Each record is RECORD_SIZE (168) bytes:
 *
 *   offset  size  ECDSA (kind 0)        Schnorr (kind 1)      tap tweak (kind 2)
 *   ------  ----  --------------------  --------------------  ----------------------
 *        0     1  kind = 0              kind = 1              kind = 2
 *        1     1  pubkey length 33|65   32                    output parity 0|1
 *        2     2  zero (padding)        zero                  zero
 *        4    65  pubkey (left-aligned) x-only key in 4..35   internal key in 4..35
 *       69    32  message digest        message               tweak
 *      101    64  compact sig r||s      BIP340 signature      output key in 101..132
 *      165     3  zero (padding)        zero                  zero
 *
 * out[i] receives 1 when record i verifies, 0 when not. A record with an unknown kind or
 * a length byte that does not fit its kind is a caller bug: the call throws a TypeError.
 *
 * One verification context per isolate (Node-API instance data), created with
 * SECP256K1_CONTEXT_NONE and only read afterwards, so the addon loads in every worker
 * thread; NAPI_MODULE_INIT makes it context-aware. Wrong argument types or lengths throw
 * a TypeError rather than touching memory they do not own.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hashes.h"

#define RECORD_SIZE 168
#define KIND_ECDSA 0
#define KIND_SCHNORR 1
#define KIND_TAPTWEAK 2

static secp256k1_context *context_of(napi_env env) {
  void *data = NULL;
  if (napi_get_instance_data(env, &data) != napi_ok) return NULL;
  return (secp256k1_context *)data;
}

static int ecdsa_verify(const secp256k1_context *ctx, const uint8_t *sig64, const uint8_t *msg32,
                        const uint8_t *key, size_t keylen) {
  secp256k1_ecdsa_signature sig;
  secp256k1_pubkey pubkey;
  if (!secp256k1_ecdsa_signature_parse_compact(ctx, &sig, sig64)) return 0;
  secp256k1_ecdsa_signature_normalize(ctx, &sig, &sig);
  if (!secp256k1_ec_pubkey_parse(ctx, &pubkey, key, keylen)) return 0;
  return secp256k1_ecdsa_verify(ctx, &sig, msg32, &pubkey);
}

static int schnorr_verify(const secp256k1_context *ctx, const uint8_t *sig64, const uint8_t *msg32,
                          const uint8_t *xonly32) {
  secp256k1_xonly_pubkey pubkey;
  if (!secp256k1_xonly_pubkey_parse(ctx, &pubkey, xonly32)) return 0;
  return secp256k1_schnorrsig_verify(ctx, sig64, msg32, 32, &pubkey);
}

static int taptweak_check(const secp256k1_context *ctx, const uint8_t *internal32, const uint8_t *tweak32,
                          const uint8_t *output32, int parity) {
  secp256k1_xonly_pubkey internal;
  if (!secp256k1_xonly_pubkey_parse(ctx, &internal, internal32)) return 0;
  return secp256k1_xonly_pubkey_tweak_add_check(ctx, output32, parity, &internal, tweak32);
}

/* Throws a TypeError and returns 0 unless `value` is a Uint8Array; sets *data and *length. */
static int get_bytes(napi_env env, napi_value value, const char *what, uint8_t **data, size_t *length) {
  bool is_typedarray = false;
  napi_typedarray_type type;
  void *raw = NULL;
  if (napi_is_typedarray(env, value, &is_typedarray) != napi_ok || !is_typedarray ||
      napi_get_typedarray_info(env, value, &type, length, &raw, NULL, NULL) != napi_ok || type != napi_uint8_array) {
    char message[96];
    snprintf(message, sizeof message, "%s must be a Uint8Array", what);
    napi_throw_type_error(env, NULL, message);
    return 0;
  }
  /* An empty typed array may have no backing store; a non-null pointer keeps callers simple. */
  *data = raw != NULL ? (uint8_t *)raw : (uint8_t *)"";
  return 1;
}

/* get_bytes plus an exact length. */
static int get_sized(napi_env env, napi_value value, const char *what, size_t want, uint8_t **data) {
  size_t length = 0;
  if (!get_bytes(env, value, what, data, &length)) return 0;
  if (length != want) {
    char message[96];
    snprintf(message, sizeof message, "%s must be %zu bytes, got %zu", what, want, length);
    napi_throw_type_error(env, NULL, message);
    return 0;
  }
  return 1;
}

/* Reads exactly `want` arguments, throwing a TypeError on fewer. */
static int get_args(napi_env env, napi_callback_info info, size_t want, napi_value *argv) {
  size_t argc = want;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return 0;
  if (argc < want) {
    char message[64];
    snprintf(message, sizeof message, "expected %zu arguments, got %zu", want, argc);
    napi_throw_type_error(env, NULL, message);
    return 0;
  }
  return 1;
}

static napi_value boolean(napi_env env, int value) {
  napi_value result;
  napi_get_boolean(env, value != 0, &result);
  return result;
}

static napi_value verify_ecdsa(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  uint8_t *sig, *msg, *key;
  size_t keylen = 0;
  if (!get_args(env, info, 3, argv) || !get_sized(env, argv[0], "signature", 64, &sig) ||
      !get_sized(env, argv[1], "digest", 32, &msg) || !get_bytes(env, argv[2], "public key", &key, &keylen)) {
    return NULL;
  }
  if (keylen != 33 && keylen != 65) {
    napi_throw_type_error(env, NULL, "public key must be 33 or 65 bytes");
    return NULL;
  }
  return boolean(env, ecdsa_verify(context_of(env), sig, msg, key, keylen));
}

static napi_value verify_schnorr(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  uint8_t *sig, *msg, *key;
  if (!get_args(env, info, 3, argv) || !get_sized(env, argv[0], "signature", 64, &sig) ||
      !get_sized(env, argv[1], "message", 32, &msg) || !get_sized(env, argv[2], "x-only key", 32, &key)) {
    return NULL;
  }
  return boolean(env, schnorr_verify(context_of(env), sig, msg, key));
}

static napi_value check_tap_tweak(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  uint8_t *internal, *tweak, *output;
  int32_t parity = 0;
  if (!get_args(env, info, 4, argv) || !get_sized(env, argv[0], "internal key", 32, &internal) ||
      !get_sized(env, argv[1], "tweak", 32, &tweak) || !get_sized(env, argv[2], "output key", 32, &output)) {
    return NULL;
  }
  if (napi_get_value_int32(env, argv[3], &parity) != napi_ok) {
    napi_throw_type_error(env, NULL, "parity must be a number");
    return NULL;
  }
  return boolean(env, taptweak_check(context_of(env), internal, tweak, output, parity & 1));
}

static napi_value is_valid_xonly_key(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  uint8_t *key;
  if (!get_args(env, info, 1, argv) || !get_sized(env, argv[0], "x-only key", 32, &key)) return NULL;
  secp256k1_xonly_pubkey pubkey;
  return boolean(env, secp256k1_xonly_pubkey_parse(context_of(env), &pubkey, key));
}

/* A 33-byte compressed key as a new Buffer, or null when `ok` is 0. */
static napi_value compressed_or_null(napi_env env, int ok, const secp256k1_pubkey *key) {
  napi_value result;
  if (!ok) {
    napi_get_null(env, &result);
    return result;
  }
  uint8_t out[33];
  size_t length = sizeof out;
  secp256k1_ec_pubkey_serialize(context_of(env), out, &length, key, SECP256K1_EC_COMPRESSED);
  if (napi_create_buffer_copy(env, length, out, NULL, &result) != napi_ok) return NULL;
  return result;
}

/* BIP32 public derivation's point step (Core's CPubKey::Derive): key + tweak*G, compressed; null when invalid. */
static napi_value pubkey_tweak_add(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint8_t *key, *tweak;
  size_t length;
  if (!get_args(env, info, 2, argv) || !get_bytes(env, argv[0], "public key", &key, &length) ||
      !get_sized(env, argv[1], "tweak", 32, &tweak)) {
    return NULL;
  }
  secp256k1_pubkey pubkey;
  const secp256k1_context *ctx = context_of(env);
  int ok = secp256k1_ec_pubkey_parse(ctx, &pubkey, key, length) && secp256k1_ec_pubkey_tweak_add(ctx, &pubkey, tweak);
  return compressed_or_null(env, ok, &pubkey);
}

/* BIP341's output key: lift_x(internal) + tweak*G, compressed (the first byte gives the parity); null when invalid. */
static napi_value xonly_tweak_add(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint8_t *internal32, *tweak;
  if (!get_args(env, info, 2, argv) || !get_sized(env, argv[0], "internal key", 32, &internal32) ||
      !get_sized(env, argv[1], "tweak", 32, &tweak)) {
    return NULL;
  }
  secp256k1_xonly_pubkey internal;
  secp256k1_pubkey output;
  const secp256k1_context *ctx = context_of(env);
  int ok = secp256k1_xonly_pubkey_parse(ctx, &internal, internal32) && secp256k1_xonly_pubkey_tweak_add(ctx, &output, &internal, tweak);
  return compressed_or_null(env, ok, &output);
}

static napi_value verify_batch(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint8_t *records, *out;
  size_t length = 0, out_length = 0;
  if (!get_args(env, info, 2, argv) || !get_bytes(env, argv[0], "records", &records, &length) ||
      !get_bytes(env, argv[1], "verdicts", &out, &out_length)) {
    return NULL;
  }
  if (length % RECORD_SIZE != 0) {
    napi_throw_type_error(env, NULL, "records must be a whole number of 168-byte records");
    return NULL;
  }
  size_t count = length / RECORD_SIZE;
  if (out_length < count) {
    napi_throw_type_error(env, NULL, "verdicts must hold one byte per record");
    return NULL;
  }
  const secp256k1_context *ctx = context_of(env);
  for (size_t i = 0; i < count; i++) {
    const uint8_t *r = records + i * RECORD_SIZE;
    int ok;
    switch (r[0]) {
      case KIND_ECDSA:
        if (r[1] != 33 && r[1] != 65) {
          napi_throw_type_error(env, NULL, "an ECDSA record's key length must be 33 or 65");
          return NULL;
        }
        ok = ecdsa_verify(ctx, r + 101, r + 69, r + 4, r[1]);
        break;
      case KIND_SCHNORR:
        ok = schnorr_verify(ctx, r + 101, r + 69, r + 4);
        break;
      case KIND_TAPTWEAK:
        ok = taptweak_check(ctx, r + 4, r + 69, r + 101, r[1] & 1);
        break;
      default:
        napi_throw_type_error(env, NULL, "a record's kind must be 0 (ECDSA), 1 (Schnorr) or 2 (tap tweak)");
        return NULL;
    }
    out[i] = (uint8_t)(ok != 0);
  }
  return NULL;
}

static void destroy_context(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  secp256k1_context_destroy((secp256k1_context *)data);
}

static int export_function(napi_env env, napi_value exports, const char *name, napi_callback fn) {
  napi_value value;
  return napi_create_function(env, name, NAPI_AUTO_LENGTH, fn, NULL, &value) == napi_ok &&
         napi_set_named_property(env, exports, name, value) == napi_ok;
}

NAPI_MODULE_INIT() {
  secp256k1_context *ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  if (ctx == NULL || napi_set_instance_data(env, ctx, destroy_context, NULL) != napi_ok) {
    if (ctx != NULL) secp256k1_context_destroy(ctx);
    napi_throw_error(env, NULL, "could not create a libsecp256k1 context");
    return NULL;
  }
  napi_value record_size;
  napi_create_uint32(env, RECORD_SIZE, &record_size);
  if (!export_function(env, exports, "verifyEcdsa", verify_ecdsa) ||
      !export_function(env, exports, "verifySchnorr", verify_schnorr) ||
      !export_function(env, exports, "checkTapTweak", check_tap_tweak) ||
      !export_function(env, exports, "isValidXOnlyKey", is_valid_xonly_key) ||
      !export_function(env, exports, "verifyBatch", verify_batch) ||
      !export_function(env, exports, "pubkeyTweakAdd", pubkey_tweak_add) ||
      !export_function(env, exports, "xonlyTweakAdd", xonly_tweak_add) ||
      napi_set_named_property(env, exports, "RECORD_SIZE", record_size) != napi_ok ||
      /* SHA-256 and HASH160 for script checks (src/primitives/native/hashes.c). */
      register_hash_functions(env, exports) != napi_ok) {
    return NULL;
  }
  return exports;
}
