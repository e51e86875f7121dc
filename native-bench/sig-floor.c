/*
 * The C floor of `make bench-sig`: libsecp256k1 (the same Debian library the addon links)
 * verifying on one thread with no JavaScript in the way. ECDSA is timed the way the addon
 * does it (compact parse, normalize, pubkey parse, verify), Schnorr likewise (x-only key
 * parse, BIP340 verify), over a ring of 32 signed samples.
 *
 *   sig-floor [MS]   prints {"ecdsa":<verifies/s>,"schnorr":<verifies/s>} after timing
 *                    each kind for at least MS milliseconds (default 800) of CPU time.
 *
 * Rates are per second of the process's CPU time, not wall time: on a machine shared
 * with other work that is what makes them comparable with the backends' rates measured
 * a moment later (bench-sig measures those per CPU second too).
 */
#include <secp256k1.h>
#include <secp256k1_extrakeys.h>
#include <secp256k1_schnorrsig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SAMPLES 32

struct ecdsa_sample { unsigned char sig[64], msg[32], key[33]; };
struct schnorr_sample { unsigned char sig[64], msg[32], key[32]; };

static struct ecdsa_sample ecdsa[SAMPLES];
static struct schnorr_sample schnorr[SAMPLES];
static secp256k1_context *ctx;

static double cpu_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void fail(const char *what) {
  fprintf(stderr, "sig-floor: %s\n", what);
  exit(1);
}

/* Deterministic secrets and messages: byte patterns that are valid scalars. */
static void fill(unsigned char *out, int n, unsigned char salt) {
  for (int i = 0; i < 32; i++) out[i] = (unsigned char)(n * 31 + i * 7 + salt + 1);
}

static void make_samples(void) {
  for (int n = 0; n < SAMPLES; n++) {
    unsigned char secret[32];
    fill(secret, n, 0);
    secp256k1_pubkey pub;
    secp256k1_ecdsa_signature sig;
    size_t len = 33;
    fill(ecdsa[n].msg, n, 101);
    if (!secp256k1_ec_pubkey_create(ctx, &pub, secret) ||
        !secp256k1_ec_pubkey_serialize(ctx, ecdsa[n].key, &len, &pub, SECP256K1_EC_COMPRESSED) ||
        !secp256k1_ecdsa_sign(ctx, &sig, ecdsa[n].msg, secret, NULL, NULL) ||
        !secp256k1_ecdsa_signature_serialize_compact(ctx, ecdsa[n].sig, &sig)) {
      fail("could not make an ECDSA sample");
    }
    secp256k1_keypair keypair;
    secp256k1_xonly_pubkey xonly;
    fill(schnorr[n].msg, n, 202);
    if (!secp256k1_keypair_create(ctx, &keypair, secret) ||
        !secp256k1_keypair_xonly_pub(ctx, &xonly, NULL, &keypair) ||
        !secp256k1_xonly_pubkey_serialize(ctx, schnorr[n].key, &xonly) ||
        !secp256k1_schnorrsig_sign32(ctx, schnorr[n].sig, schnorr[n].msg, &keypair, NULL)) {
      fail("could not make a Schnorr sample");
    }
  }
}

static int verify_ecdsa(const struct ecdsa_sample *s) {
  secp256k1_ecdsa_signature sig;
  secp256k1_pubkey pub;
  if (!secp256k1_ecdsa_signature_parse_compact(ctx, &sig, s->sig)) return 0;
  secp256k1_ecdsa_signature_normalize(ctx, &sig, &sig);
  if (!secp256k1_ec_pubkey_parse(ctx, &pub, s->key, sizeof s->key)) return 0;
  return secp256k1_ecdsa_verify(ctx, &sig, s->msg, &pub);
}

static int verify_schnorr(const struct schnorr_sample *s) {
  secp256k1_xonly_pubkey pub;
  if (!secp256k1_xonly_pubkey_parse(ctx, &pub, s->key)) return 0;
  return secp256k1_schnorrsig_verify(ctx, s->sig, s->msg, 32, &pub);
}

/* Verifies in rounds of SAMPLES until min_ms has passed; returns verifies per second. */
static double rate(int schnorr_kind, double min_ms) {
  long calls = 0;
  double start = cpu_ms(), elapsed;
  do {
    for (int i = 0; i < SAMPLES; i++) {
      int ok = schnorr_kind ? verify_schnorr(&schnorr[i]) : verify_ecdsa(&ecdsa[i]);
      if (!ok) fail("a sample signature failed to verify");
    }
    calls += SAMPLES;
    elapsed = cpu_ms() - start;
  } while (elapsed < min_ms);
  return calls * 1000.0 / elapsed;
}

int main(int argc, char **argv) {
  double ms = argc > 1 ? atof(argv[1]) : 800;
  if (!(ms > 0)) fail("usage: sig-floor [MS]");
  ctx = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  if (ctx == NULL) fail("could not create a context");
  make_samples();
  double e = rate(0, ms), s = rate(1, ms);
  printf("{\"ecdsa\":%.1f,\"schnorr\":%.1f}\n", e, s);
  secp256k1_context_destroy(ctx);
  return 0;
}
