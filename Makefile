# tsbtcd build, test and benchmark entry points. Every target installs what it needs.
NODE ?= node
TSC := node_modules/.bin/tsc
TEST_FILES = $$(find dist/test -name '*.test.js' | sort)

.PHONY: install build bundle native test vectors differential differential-sig run bench bench-sig bench-hash bench-import bench-ibd bench-http bench-index soak clean

# npm ci only when the lockfile changed since the last install.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

install: node_modules/.installed

build: install
	rm -rf dist
	$(TSC) -p tsconfig.json
	@$(MAKE) --no-print-directory bundle
	@$(MAKE) --no-print-directory native

# The daemon's three entry points (the coordinator, an HTTP front-end process, a script-check
# worker thread) and the clients' (tsbtcd-cli and tsbtcd-rpcauth: cli.js, 0.5 s a call
# unbundled, 0.24 s bundled) bundled into dist/src/bundle/ with esbuild, packages left external: node 20
# resolves, opens and compiles some 300 ES modules one by one, and each of the five loaders
# a start runs (coordinator, two front-ends, two workers) spent 200-500 ms on it. The bundles
# sit at the same depth as every compiled module in dist/src/<folder>/, so paths that
# modules take relative to import.meta.url (dist/native, package.json, the worker and
# front-end entries beside them) resolve the same, bundled or not. Tests import dist/src
# unbundled; every daemon they start runs the bundles (bin/tsbtcd).
ESBUILD := node_modules/.bin/esbuild
bundle:
	$(ESBUILD) dist/src/node/main.js dist/src/http/frontend-main.js dist/workers/verify-worker.js cli=dist/src/cli/index.js --bundle --platform=node --format=esm \
	  --packages=external --target=node20 --entry-names=[name] --outdir=dist/src/bundle --log-level=warning

# The native signature backend (a Node-API addon over Debian's libsecp256k1-dev, installed
# here when missing, built against the local Node headers) and the C floor that
# `make bench-sig` times it against, the HTTP wire layer under uWS, and SQLite for wallets
# (an addon over Debian's libsqlite3-dev, the library Core's wallets use), all into dist/native. A missing compiler, library or
# header, or a failed compile, is one line saying what to do (compiler output goes to
# dist/native/build.log), never a silent fallback to the JavaScript backend.
NATIVE_CC ?= gcc
NATIVE_CFLAGS ?= -O2 -Wall -Wextra
NATIVE_FIX = or start tsbtcd with -sigbackend=noble (pure JavaScript, about 50x slower)
native:
	@mkdir -p dist/native
	@dpkg -s libsecp256k1-dev >/dev/null 2>&1 || (apt-get update && apt-get install -y libsecp256k1-dev) >dist/native/build.log 2>&1 || \
	  { echo "make: libsecp256k1-dev is missing and could not be installed (see dist/native/build.log): run 'apt-get install libsecp256k1-dev' as root, $(NATIVE_FIX)" >&2; exit 1; }
	@command -v $(NATIVE_CC) >/dev/null 2>&1 || \
	  { echo "make: no C compiler ($(NATIVE_CC)) to build the native signature backend: run 'apt-get install gcc' as root, $(NATIVE_FIX)" >&2; exit 1; }
	@[ -f /usr/include/node/node_api.h ] || \
	  { echo "make: the Node-API headers (/usr/include/node/node_api.h) are missing: install Debian's nodejs package headers, $(NATIVE_FIX)" >&2; exit 1; }
	@$(NATIVE_CC) $(NATIVE_CFLAGS) -shared -fPIC -I/usr/include/node -Isrc/primitives/native -o dist/native/secp256k1.node src/script/native/secp256k1_addon.c src/primitives/native/hashes.c -lsecp256k1 >>dist/native/build.log 2>&1 && \
	  $(NATIVE_CC) $(NATIVE_CFLAGS) -o dist/native/sig-floor native-bench/sig-floor.c -lsecp256k1 >>dist/native/build.log 2>&1 || \
	  { echo "make: compiling the native signature backend with $(NATIVE_CC) failed: fix the error in dist/native/build.log, $(NATIVE_FIX)" >&2; exit 1; }
	@$(NATIVE_CC) $(NATIVE_CFLAGS) -shared -fPIC -I/usr/include/node -o dist/native/http_wire.node src/http/native/http_wire.c src/http/native/request_head.c src/http/native/request_body.c src/http/native/got_patch.c src/http/native/hex_encode.c >>dist/native/build.log 2>&1 || \
	  { echo "make: compiling the HTTP wire layer (src/http/native) with $(NATIVE_CC) failed: fix the error in dist/native/build.log; the HTTP front-ends cannot start without it" >&2; exit 1; }
	@$(NATIVE_CC) $(NATIVE_CFLAGS) -shared -fPIC -I/usr/include/node -o dist/native/file_lock.node src/node/native/file_lock.c >>dist/native/build.log 2>&1 || \
	  { echo "make: compiling the data directory lock (src/node/native) with $(NATIVE_CC) failed: fix the error in dist/native/build.log; the node cannot start without it" >&2; exit 1; }
	@dpkg -s libsqlite3-dev >/dev/null 2>&1 || (apt-get update && apt-get install -y libsqlite3-dev) >>dist/native/build.log 2>&1 || \
	  { echo "make: libsqlite3-dev is missing and could not be installed (see dist/native/build.log): run 'apt-get install libsqlite3-dev' as root; wallets cannot be opened without it" >&2; exit 1; }
	@$(NATIVE_CC) $(NATIVE_CFLAGS) -shared -fPIC -I/usr/include/node -o dist/native/sqlite.node src/wallet/native/sqlite_addon.c -lsqlite3 >>dist/native/build.log 2>&1 || \
	  { echo "make: compiling SQLite for wallets (src/wallet/native) with $(NATIVE_CC) failed: fix the error in dist/native/build.log; wallets cannot be opened without it" >&2; exit 1; }

# The reference bitcoind's installer, when ../shared is beside the checkout (as in CI).
REFERENCE_BITCOIND_DEPS := $(wildcard $(CURDIR)/../shared/bin/ensure-deps)

# The client tests run Debian's python3-bitcoinlib (installed here when missing) and the
# load tests open 1,000 sockets: the open-file limit is raised to 4096 when lower.
# Tests that compare with the reference bitcoind read BITCOIND: when ensure-deps is there it
# installs bitcoind's libraries and names it, so they run (a failure stops here, loudly);
# in a clone with nothing beside it they skip with one line each. Test data is in-project
# (test/vectors/data). Three test files run at once on these two-core machines: measured over a
# whole run the suite kept the CPUs 129% busy of 200% at two (tests wait on timers, sockets and
# other processes).
test: build
	dpkg -s python3-bitcoinlib >/dev/null 2>&1 || (apt-get update && apt-get install -y python3-bitcoinlib)
	{ [ "$$(ulimit -n)" = unlimited ] || [ "$$(ulimit -n)" -ge 4096 ] || ulimit -n 4096 || true; } && \
	$(if $(REFERENCE_BITCOIND_DEPS),{ [ -n "$${BITCOIND:-}" ] || BITCOIND=$$($(REFERENCE_BITCOIND_DEPS)); } && export BITCOIND && echo "reference bitcoind: $$BITCOIND" &&) \
	$(NODE) --test --test-concurrency=3 --test-reporter=tap --test-reporter-destination=stdout --test-reporter=./test/failures-reporter.mjs --test-reporter-destination=stdout $(TEST_FILES)

vectors: build
	$(NODE) dist/test/vectors/report.js

# Every RPC method and REST endpoint both serve, in every argument form and format, sent to
# the reference bitcoind (BITCOIND, default ../shared/bin/bitcoind) and to tsbtcd over the same
# rich regtest chain; prints "N identical, M different" and every difference (DETAIL=n: the
# first n). Fails while anything differs; `make test` runs the same catalogue and fails only on
# differences not listed in test/differential/known-differences.ts.
differential: build
	$(NODE) dist/test/differential/rpc-rest.js

# The native and noble signature backends on every edge case plus SIGS random signatures,
# noble's side spread over every core; fails on any difference (make test runs a quick form).
SIGS ?= 200000
differential-sig: build
	$(NODE) dist/test/differential/signatures.js $(SIGS)

# A regtest node in the foreground with REST on; Ctrl-C (SIGINT) stops it cleanly.
# Its data stays in REGTEST_DATA between runs (git-ignored); delete it for a fresh chain.
REGTEST_DATA ?= $(CURDIR)/.regtest-data
RPC_URL = http://127.0.0.1:18443/
COOKIE = $(REGTEST_DATA)/regtest/.cookie

run: build
	@mkdir -p "$(REGTEST_DATA)"
	@old=$$(cat "$(COOKIE)" 2>/dev/null); \
	bin/tsbtcd -regtest -rest -datadir="$(REGTEST_DATA)" -printtoconsole=0 & pid=$$!; \
	trap 'kill -INT $$pid 2>/dev/null' INT TERM; \
	echo "Starting tsbtcd on regtest (pid $$pid, data directory $(REGTEST_DATA))..."; \
	while kill -0 $$pid 2>/dev/null && { [ ! -s "$(COOKIE)" ] || [ "$$(cat "$(COOKIE)")" = "$$old" ]; }; do sleep 0.2; done; \
	if kill -0 $$pid 2>/dev/null; then \
	  echo ""; \
	  echo "  JSON-RPC  $(RPC_URL)  (cookie authentication)"; \
	  echo "  cookie    $(COOKIE)"; \
	  echo "  REST      $(RPC_URL)rest/  (e.g. $(RPC_URL)rest/chaininfo.json)"; \
	  echo "  log       $(REGTEST_DATA)/regtest/debug.log"; \
	  echo ""; \
	  echo "  curl --user \"\$$(cat $(COOKIE))\" -H 'content-type: application/json' \\"; \
	  echo "       --data '{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"getblockcount\",\"params\":[]}' $(RPC_URL)"; \
	  echo ""; \
	  echo "Ctrl-C stops the node."; \
	fi; \
	wait $$pid; status=$$?; while kill -0 $$pid 2>/dev/null; do wait $$pid; status=$$?; done; \
	echo "tsbtcd stopped (exit code $$status)."; exit $$status

bench-sig: build
	$(NODE) dist/native-bench/sig.js

bench-hash: build
	$(NODE) dist/native-bench/hash.js

# tsbtcd beside Bitcoin Core v31.0 in the same run: each daemon imports a generated regtest
# chain (3,118 blocks, 200,000 signed transactions; generated once, cached in
# native-bench/.cache/) with -loadblock in a fresh data directory, timed until getblockcount
# reaches the tip, every script checked and then with -assumevalid; prints the speed ratio.
# bitcoind is BITCOIND, else ../shared/bin/bitcoind (its ensure-deps run first); without
# one, a line says so and only tsbtcd is measured.
bench-import: build
	$(NODE) dist/native-bench/import.js

# Initial block download over P2P: the bench-import chain served by a bitcoind that imported
# it, synced by tsbtcd and by a fresh bitcoind in the same run, every script checked and
# with -assumevalid; prints the speed ratio. Needs the reference bitcoind (BITCOIND or
# ../shared/bin); without it, one line says so.
bench-ibd: build
	$(NODE) dist/native-bench/ibd.js

# tsbtcd beside Bitcoin Core v31.0 in the same run, over the same regtest chain and mempool
# (built once on a bitcoind, cached in native-bench/.cache/): requests/s and p50/p99 of
# JSON-RPC and REST rows with 64 keep-alive connections (wrk, installed here when missing),
# the ratio and each row's target. Replies must be the same from both, and no request may
# fail. HTTP_BENCH_SECONDS per run (default 5), RUNS tables (default 1). bitcoind is
# BITCOIND, else ../shared/bin/bitcoind; without one, a line says so and only tsbtcd is
# measured (from the cached chain).
WRK_INSTALL = command -v wrk >/dev/null || (apt-get update && apt-get install -y wrk)
bench-http: build
	$(WRK_INSTALL)
	$(NODE) dist/native-bench/http.js

# The address index (-addressindex) over the bench-import chain: its build throughput from
# the stored chain (bitcoind v31.0's -txindex build over the same chain for scale, when
# BITCOIND or ../shared/bin/bitcoind is there), then GET /api/address/<a>/utxo requests/s
# from the front-ends with 64 keep-alive connections (wrk, installed here when missing).
bench-index: build
	$(WRK_INSTALL)
	$(NODE) dist/native-bench/index-build.js

# tsbtcd under 1,000 concurrent keep-alive connections of mixed load (wrk) and long polls for
# SOAK_SECONDS (default 600), a block every 3 s, one front-end killed on purpose: fails on
# any error, a process dying, a replacement slower than 1 s or growing memory. Not part of
# make test or make bench. The open-file limit is raised to 4096 when lower.
soak: build
	$(WRK_INSTALL)
	{ [ "$$(ulimit -n)" = unlimited ] || [ "$$(ulimit -n)" -ge 4096 ] || ulimit -n 4096 || true; } && \
	$(NODE) dist/native-bench/soak.js

bench: bench-hash bench-sig bench-import bench-ibd bench-http bench-index

clean:
	rm -rf dist node_modules
