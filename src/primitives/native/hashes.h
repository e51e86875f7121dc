/* The hash entry points of the native addon (hashes.c), registered by the addon's init. */
#ifndef TSBTCD_NATIVE_HASHES_H
#define TSBTCD_NATIVE_HASHES_H
#include <node_api.h>

napi_status register_hash_functions(napi_env env, napi_value exports);

#endif
