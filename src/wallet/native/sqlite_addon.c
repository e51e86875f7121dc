/*
 * SQLite for wallet files: a Node-API addon over Debian's libsqlite3 (libsqlite3-dev), built
 * by `make build` into dist/native/sqlite.node. Bitcoin Core's descriptor wallets are SQLite
 * databases; linking the same library Core links gives the same file format, locking and
 * journal, so a wallet.dat moves between bitcoind and tsbtcd in both directions.
 *
 * The surface is the handful of calls a key-value table needs (src/wallet/sqlite.ts wraps
 * it): open/close a connection, exec a statement without results, prepare statements, bind
 * blobs, integers, text and NULL, step, read columns, reset, finalize, the autocommit flag,
 * and an online backup to a file. Errors throw a JavaScript Error whose `code` is SQLite's
 * (extended) result code and whose message is sqlite3_errstr's text for it, which is what
 * Core's messages quote; `detail` carries sqlite3_errmsg when the connection has one.
 *
 * Everything runs on the calling thread: a wallet's writes are small and Core, too, does
 * them synchronously under its wallet lock.
 */
#define NAPI_VERSION 8
#include <node_api.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct connection {
  sqlite3 *db;
};

struct statement {
  sqlite3_stmt *stmt;
};

static napi_value undefined_value(napi_env env) {
  napi_value v;
  napi_get_undefined(env, &v);
  return v;
}

/* Throws Error(sqlite3_errstr(rc)) with .code = rc and, when a connection is given, .detail = sqlite3_errmsg. */
static napi_value throw_sqlite(napi_env env, int rc, sqlite3 *db) {
  napi_value message, error, code;
  napi_create_string_utf8(env, sqlite3_errstr(rc), NAPI_AUTO_LENGTH, &message);
  napi_create_error(env, NULL, message, &error);
  napi_create_int32(env, rc, &code);
  napi_set_named_property(env, error, "code", code);
  if (db) {
    napi_value detail;
    napi_create_string_utf8(env, sqlite3_errmsg(db), NAPI_AUTO_LENGTH, &detail);
    napi_set_named_property(env, error, "detail", detail);
  }
  napi_throw(env, error);
  return NULL;
}

static napi_value throw_usage(napi_env env, const char *usage) {
  napi_throw_type_error(env, NULL, usage);
  return NULL;
}

/* A string argument copied into a fresh NUL-terminated buffer (free it); NULL when it is not a string. */
static char *string_arg(napi_env env, napi_value value) {
  size_t length = 0;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *out = malloc(length + 1);
  if (!out) return NULL;
  if (napi_get_value_string_utf8(env, value, out, length + 1, &length) != napi_ok) {
    free(out);
    return NULL;
  }
  return out;
}

static int get_args(napi_env env, napi_callback_info info, size_t want, napi_value *argv) {
  size_t argc = want;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) return 0;
  return argc >= want;
}

static struct connection *connection_arg(napi_env env, napi_value value) {
  struct connection *c = NULL;
  if (napi_get_value_external(env, value, (void **)&c) != napi_ok) return NULL;
  return c;
}

static struct statement *statement_arg(napi_env env, napi_value value) {
  struct statement *s = NULL;
  if (napi_get_value_external(env, value, (void **)&s) != napi_ok) return NULL;
  return s;
}

/* A connection the program dropped without closing is closed by the garbage collector (close_v2 waits for its statements). */
static void connection_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  struct connection *c = data;
  if (c->db) sqlite3_close_v2(c->db);
  free(c);
}

static void statement_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  struct statement *s = data;
  if (s->stmt) sqlite3_finalize(s->stmt);
  free(s);
}

/* open(path, create): a read-write connection in serialized mode with extended result codes. */
static napi_value open_db(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  bool create = false;
  if (!get_args(env, info, 2, argv) || napi_get_value_bool(env, argv[1], &create) != napi_ok) return throw_usage(env, "open(path, create)");
  char *path = string_arg(env, argv[0]);
  if (!path) return throw_usage(env, "open(path, create): path is a string");
  int flags = SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(path, &db, flags, NULL);
  free(path);
  if (rc != SQLITE_OK) {
    sqlite3_close_v2(db);
    return throw_sqlite(env, rc, NULL);
  }
  rc = sqlite3_extended_result_codes(db, 1);
  if (rc != SQLITE_OK) {
    sqlite3_close_v2(db);
    return throw_sqlite(env, rc, NULL);
  }
  struct connection *c = calloc(1, sizeof *c);
  if (!c) {
    sqlite3_close_v2(db);
    return throw_sqlite(env, SQLITE_NOMEM, NULL);
  }
  c->db = db;
  napi_value out;
  if (napi_create_external(env, c, connection_finalize, NULL, &out) != napi_ok) {
    sqlite3_close_v2(db);
    free(c);
    return throw_sqlite(env, SQLITE_NOMEM, NULL);
  }
  return out;
}

static napi_value close_db(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  struct connection *c;
  if (!get_args(env, info, 1, argv) || !(c = connection_arg(env, argv[0]))) return throw_usage(env, "close(connection)");
  if (c->db) {
    int rc = sqlite3_close(c->db);
    if (rc != SQLITE_OK) return throw_sqlite(env, rc, c->db);
    c->db = NULL;
  }
  return undefined_value(env);
}

static sqlite3 *open_connection(napi_env env, napi_value value) {
  struct connection *c = connection_arg(env, value);
  if (!c) {
    throw_usage(env, "a connection from open()");
    return NULL;
  }
  if (!c->db) {
    throw_sqlite(env, SQLITE_MISUSE, NULL);
    return NULL;
  }
  return c->db;
}

/* The (connection, string) arguments of exec, prepare and backup; 0 after throwing. Free *text. */
static int connection_and_text(napi_env env, napi_callback_info info, const char *usage, sqlite3 **db, char **text) {
  napi_value argv[2];
  if (!get_args(env, info, 2, argv)) {
    throw_usage(env, usage);
    return 0;
  }
  if (!(*db = open_connection(env, argv[0]))) return 0;
  if (!(*text = string_arg(env, argv[1]))) {
    throw_usage(env, usage);
    return 0;
  }
  return 1;
}

/* exec(connection, sql): runs statements that return no rows. */
static napi_value exec_sql(napi_env env, napi_callback_info info) {
  sqlite3 *db;
  char *sql;
  if (!connection_and_text(env, info, "exec(connection, sql)", &db, &sql)) return NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  free(sql);
  if (rc != SQLITE_OK) return throw_sqlite(env, rc, db);
  return undefined_value(env);
}

static napi_value prepare(napi_env env, napi_callback_info info) {
  sqlite3 *db;
  char *sql;
  if (!connection_and_text(env, info, "prepare(connection, sql)", &db, &sql)) return NULL;
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);
  free(sql);
  if (rc != SQLITE_OK) return throw_sqlite(env, rc, db);
  struct statement *s = calloc(1, sizeof *s);
  if (!s) {
    sqlite3_finalize(stmt);
    return throw_sqlite(env, SQLITE_NOMEM, NULL);
  }
  s->stmt = stmt;
  napi_value out;
  if (napi_create_external(env, s, statement_finalize, NULL, &out) != napi_ok) {
    sqlite3_finalize(stmt);
    free(s);
    return throw_sqlite(env, SQLITE_NOMEM, NULL);
  }
  return out;
}

static sqlite3_stmt *live_statement(napi_env env, napi_value value) {
  struct statement *s = statement_arg(env, value);
  if (!s) {
    throw_usage(env, "a statement from prepare()");
    return NULL;
  }
  if (!s->stmt) {
    throw_sqlite(env, SQLITE_MISUSE, NULL);
    return NULL;
  }
  return s->stmt;
}

/*
 * bind(statement, index, value): a Uint8Array binds a blob (an empty one binds X'', not NULL,
 * as Core's BindBlobToStatement makes sure), a number an integer, a bigint a 64-bit integer,
 * a string text, null NULL. SQLite copies the bytes.
 */
static napi_value bind(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  int32_t index = 0;
  if (!get_args(env, info, 3, argv) || napi_get_value_int32(env, argv[1], &index) != napi_ok) return throw_usage(env, "bind(statement, index, value)");
  sqlite3_stmt *stmt = live_statement(env, argv[0]);
  if (!stmt) return NULL;
  napi_valuetype type;
  napi_typeof(env, argv[2], &type);
  bool is_typed = false;
  napi_is_typedarray(env, argv[2], &is_typed);
  int rc;
  if (is_typed) {
    napi_typedarray_type kind;
    size_t length = 0;
    void *data = NULL;
    napi_get_typedarray_info(env, argv[2], &kind, &length, &data, NULL, NULL);
    if (kind != napi_uint8_array) return throw_usage(env, "bind: a blob is a Uint8Array");
    rc = sqlite3_bind_blob(stmt, index, length ? data : "", (int)length, SQLITE_TRANSIENT);
  } else if (type == napi_number) {
    int64_t n = 0;
    napi_get_value_int64(env, argv[2], &n);
    rc = sqlite3_bind_int64(stmt, index, n);
  } else if (type == napi_bigint) {
    int64_t n = 0;
    bool lossless = false;
    napi_get_value_bigint_int64(env, argv[2], &n, &lossless);
    if (!lossless) return throw_usage(env, "bind: a bigint within 64 bits");
    rc = sqlite3_bind_int64(stmt, index, n);
  } else if (type == napi_string) {
    char *text = string_arg(env, argv[2]);
    if (!text) return throw_sqlite(env, SQLITE_NOMEM, NULL);
    rc = sqlite3_bind_text(stmt, index, text, -1, SQLITE_TRANSIENT);
    free(text);
  } else if (type == napi_null) {
    rc = sqlite3_bind_null(stmt, index);
  } else {
    return throw_usage(env, "bind: a Uint8Array, number, bigint, string or null");
  }
  if (rc != SQLITE_OK) return throw_sqlite(env, rc, sqlite3_db_handle(stmt));
  return undefined_value(env);
}

/* step(statement): true with a row to read, false when done; an error throws (and the statement must be reset). */
static napi_value step(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!get_args(env, info, 1, argv)) return throw_usage(env, "step(statement)");
  sqlite3_stmt *stmt = live_statement(env, argv[0]);
  if (!stmt) return NULL;
  int rc = sqlite3_step(stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return throw_sqlite(env, rc, sqlite3_db_handle(stmt));
  napi_value out;
  napi_get_boolean(env, rc == SQLITE_ROW, &out);
  return out;
}

/* column(statement, index): the current row's value: Buffer (blob), number (integer or real), string (text) or null. */
static napi_value column(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int32_t index = 0;
  if (!get_args(env, info, 2, argv) || napi_get_value_int32(env, argv[1], &index) != napi_ok) return throw_usage(env, "column(statement, index)");
  sqlite3_stmt *stmt = live_statement(env, argv[0]);
  if (!stmt) return NULL;
  napi_value out;
  switch (sqlite3_column_type(stmt, index)) {
    case SQLITE_BLOB: {
      const void *data = sqlite3_column_blob(stmt, index);
      int length = sqlite3_column_bytes(stmt, index);
      void *copy = NULL;
      napi_create_buffer_copy(env, (size_t)length, length ? data : "", &copy, &out);
      return out;
    }
    case SQLITE_INTEGER:
      napi_create_int64(env, sqlite3_column_int64(stmt, index), &out);
      return out;
    case SQLITE_FLOAT:
      napi_create_double(env, sqlite3_column_double(stmt, index), &out);
      return out;
    case SQLITE_TEXT: {
      const unsigned char *text = sqlite3_column_text(stmt, index);
      napi_create_string_utf8(env, (const char *)text, (size_t)sqlite3_column_bytes(stmt, index), &out);
      return out;
    }
    default:
      napi_get_null(env, &out);
      return out;
  }
}

/* columnCount(statement): how many columns its rows have. */
static napi_value column_count(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!get_args(env, info, 1, argv)) return throw_usage(env, "columnCount(statement)");
  sqlite3_stmt *stmt = live_statement(env, argv[0]);
  if (!stmt) return NULL;
  napi_value out;
  napi_create_int32(env, sqlite3_column_count(stmt), &out);
  return out;
}

/* reset(statement): ready to run again, bindings cleared. */
static napi_value reset(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!get_args(env, info, 1, argv)) return throw_usage(env, "reset(statement)");
  sqlite3_stmt *stmt = live_statement(env, argv[0]);
  if (!stmt) return NULL;
  sqlite3_clear_bindings(stmt);
  /* reset repeats the last step's error, which step already threw. */
  sqlite3_reset(stmt);
  return undefined_value(env);
}

static napi_value finalize(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  struct statement *s;
  if (!get_args(env, info, 1, argv) || !(s = statement_arg(env, argv[0]))) return throw_usage(env, "finalize(statement)");
  if (s->stmt) {
    sqlite3_finalize(s->stmt);
    s->stmt = NULL;
  }
  return undefined_value(env);
}

/* inTransaction(connection): whether a transaction is open (sqlite3_get_autocommit is 0). */
static sqlite3 *only_connection(napi_env env, napi_callback_info info, const char *usage) {
  napi_value argv[1];
  if (!get_args(env, info, 1, argv)) {
    throw_usage(env, usage);
    return NULL;
  }
  return open_connection(env, argv[0]);
}

static napi_value boolean_value(napi_env env, bool value) {
  napi_value out;
  napi_get_boolean(env, value, &out);
  return out;
}

static napi_value in_transaction(napi_env env, napi_callback_info info) {
  sqlite3 *db = only_connection(env, info, "inTransaction(connection)");
  return db ? boolean_value(env, sqlite3_get_autocommit(db) == 0) : NULL;
}

/* readonly(connection): sqlite3_db_readonly for "main" (1 when the file could only be opened for reading). */
static napi_value readonly(napi_env env, napi_callback_info info) {
  sqlite3 *db = only_connection(env, info, "readonly(connection)");
  return db ? boolean_value(env, sqlite3_db_readonly(db, "main") != 0) : NULL;
}

/* backup(connection, path): every page copied into the database at path (created), as Core's SQLiteDatabase::Backup. */
static napi_value backup(napi_env env, napi_callback_info info) {
  sqlite3 *db;
  char *path;
  if (!connection_and_text(env, info, "backup(connection, path)", &db, &path)) return NULL;
  sqlite3 *copy = NULL;
  int rc = sqlite3_open(path, &copy);
  free(path);
  if (rc != SQLITE_OK) {
    sqlite3_close(copy);
    return throw_sqlite(env, rc, NULL);
  }
  sqlite3_backup *job = sqlite3_backup_init(copy, "main", db, "main");
  if (!job) {
    rc = sqlite3_errcode(copy);
    napi_value error = throw_sqlite(env, rc == SQLITE_OK ? SQLITE_ERROR : rc, copy);
    sqlite3_close(copy);
    return error;
  }
  rc = sqlite3_backup_step(job, -1);
  int finished = sqlite3_backup_finish(job);
  sqlite3_close(copy);
  if (rc != SQLITE_DONE) return throw_sqlite(env, rc, NULL);
  if (finished != SQLITE_OK) return throw_sqlite(env, finished, NULL);
  return undefined_value(env);
}

static napi_value libversion(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  napi_create_string_utf8(env, sqlite3_libversion(), NAPI_AUTO_LENGTH, &out);
  return out;
}

NAPI_MODULE_INIT() {
  const napi_property_descriptor methods[] = {
      {"open", NULL, open_db, NULL, NULL, NULL, napi_default, NULL},
      {"close", NULL, close_db, NULL, NULL, NULL, napi_default, NULL},
      {"exec", NULL, exec_sql, NULL, NULL, NULL, napi_default, NULL},
      {"prepare", NULL, prepare, NULL, NULL, NULL, napi_default, NULL},
      {"bind", NULL, bind, NULL, NULL, NULL, napi_default, NULL},
      {"step", NULL, step, NULL, NULL, NULL, napi_default, NULL},
      {"column", NULL, column, NULL, NULL, NULL, napi_default, NULL},
      {"columnCount", NULL, column_count, NULL, NULL, NULL, napi_default, NULL},
      {"reset", NULL, reset, NULL, NULL, NULL, napi_default, NULL},
      {"finalize", NULL, finalize, NULL, NULL, NULL, napi_default, NULL},
      {"inTransaction", NULL, in_transaction, NULL, NULL, NULL, napi_default, NULL},
      {"readonly", NULL, readonly, NULL, NULL, NULL, napi_default, NULL},
      {"backup", NULL, backup, NULL, NULL, NULL, napi_default, NULL},
      {"libversion", NULL, libversion, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof methods / sizeof *methods, methods);
  return exports;
}
