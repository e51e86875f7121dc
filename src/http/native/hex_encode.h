/* Lowercase hex of REST and RPC reply bodies, straight into the reply's buffer. */
#ifndef TSBTCD_HEX_ENCODE_H
#define TSBTCD_HEX_ENCODE_H

#include <stddef.h>
#include <stdint.h>

/* Writes 2 * n lowercase hex digits of src[0..n) to dst (which must not overlap src). */
void hex_encode(const uint8_t *src, size_t n, uint8_t *dst);

#endif
