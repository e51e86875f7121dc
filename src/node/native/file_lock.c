/*
 * Core's FileLock (util/fs_helpers.cpp) as a Node-API addon, built by `make build` into
 * dist/native/file_lock.node: a POSIX record lock (fcntl F_SETLK, F_WRLCK, the whole file)
 * on a file descriptor Node opened. The kernel drops it when the process ends, however it
 * ends, so a SIGKILLed node leaves no stale lock; and bitcoind takes the same kind of lock
 * on its data directory's .lock, so neither can start on a directory the other runs on.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* tryLock(fd): true when the lock is taken, false when another process holds it; throws on other errors. */
static napi_value try_lock(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int32_t fd;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &fd) != napi_ok) {
    napi_throw_type_error(env, NULL, "tryLock(fd: number)");
    return NULL;
  }
  struct flock lock;
  memset(&lock, 0, sizeof lock);
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = 0;
  lock.l_len = 0;
  napi_value out;
  if (fcntl(fd, F_SETLK, &lock) == 0) {
    napi_get_boolean(env, true, &out);
    return out;
  }
  if (errno == EACCES || errno == EAGAIN) {
    napi_get_boolean(env, false, &out);
    return out;
  }
  napi_throw_error(env, NULL, strerror(errno));
  return NULL;
}

NAPI_MODULE_INIT() {
  const napi_property_descriptor methods[] = {
      {"tryLock", NULL, try_lock, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof methods / sizeof *methods, methods);
  return exports;
}
