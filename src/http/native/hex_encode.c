/*
 * Lowercase hex, 16 input bytes per step with SSE2 (every x86-64) or NEON (every arm64),
 * a byte at a time elsewhere and for the tail. A block's hex in JavaScript (a table of
 * digit pairs) took 120 us per 118 kB, as long as sending it; this takes a few.
 */
#include "hex_encode.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

static const char DIGITS[16] = {'0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};

void hex_encode(const uint8_t *src, size_t n, uint8_t *dst) {
  size_t i = 0;
#if defined(__SSE2__)
  const __m128i low_nibbles = _mm_set1_epi8(0x0f);
  const __m128i nine = _mm_set1_epi8(9);
  const __m128i zero_digit = _mm_set1_epi8('0');
  /* Digits above 9 are 'a' - '0' - 10 = 39 further on. */
  const __m128i letter_gap = _mm_set1_epi8('a' - '0' - 10);
  for (; i + 16 <= n; i += 16) {
    __m128i bytes = _mm_loadu_si128((const __m128i *)(src + i));
    __m128i hi = _mm_and_si128(_mm_srli_epi16(bytes, 4), low_nibbles);
    __m128i lo = _mm_and_si128(bytes, low_nibbles);
    hi = _mm_add_epi8(_mm_add_epi8(hi, zero_digit), _mm_and_si128(_mm_cmpgt_epi8(hi, nine), letter_gap));
    lo = _mm_add_epi8(_mm_add_epi8(lo, zero_digit), _mm_and_si128(_mm_cmpgt_epi8(lo, nine), letter_gap));
    _mm_storeu_si128((__m128i *)(dst + 2 * i), _mm_unpacklo_epi8(hi, lo));
    _mm_storeu_si128((__m128i *)(dst + 2 * i + 16), _mm_unpackhi_epi8(hi, lo));
  }
#elif defined(__aarch64__)
  const uint8x16_t table = vld1q_u8((const uint8_t *)DIGITS);
  const uint8x16_t low_nibbles = vdupq_n_u8(0x0f);
  for (; i + 16 <= n; i += 16) {
    uint8x16_t bytes = vld1q_u8(src + i);
    uint8x16x2_t pairs;
    pairs.val[0] = vqtbl1q_u8(table, vshrq_n_u8(bytes, 4));
    pairs.val[1] = vqtbl1q_u8(table, vandq_u8(bytes, low_nibbles));
    vst2q_u8(dst + 2 * i, pairs);
  }
#endif
  for (; i < n; i++) {
    dst[2 * i] = (uint8_t)DIGITS[src[i] >> 4];
    dst[2 * i + 1] = (uint8_t)DIGITS[src[i] & 15];
  }
}
