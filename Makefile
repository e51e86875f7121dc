# tsbtcd build, test and benchmark entry points. Every target installs what it needs.
NODE ?= node
TSC := node_modules/.bin/tsc
TEST_FILES = $$(find dist/test -name '*.test.js' | sort)

.PHONY: install build test vectors run bench bench-sig bench-hash bench-http clean

# npm ci only when the lockfile changed since the last install.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

install: node_modules/.installed

build: install
	rm -rf dist
	$(TSC) -p tsconfig.json

# The client tests run Debian's python3-bitcoinlib (installed here when missing) and the
# load tests open 1,000 sockets: the open-file limit is raised to 4096 when lower.
test: build
	dpkg -s python3-bitcoinlib >/dev/null 2>&1 || (apt-get update && apt-get install -y python3-bitcoinlib)
	{ [ "$$(ulimit -n)" = unlimited ] || [ "$$(ulimit -n)" -ge 4096 ] || ulimit -n 4096 || true; } && \
	$(NODE) --test --test-concurrency=2 $(TEST_FILES)

vectors: build
	$(NODE) dist/test/vectors/report.js

# Until the chainstate lands, `make run` checks every consensus vector suite.
run: vectors

bench-sig: build
	$(NODE) dist/native-bench/sig.js

bench-hash: build
	$(NODE) dist/native-bench/hash.js

# JSON-RPC requests/s and p50/p99 latency with 64 keep-alive connections (wrk, installed
# here when missing), beside a bare uWS.js hello-world server measured in the same run.
bench-http: build
	command -v wrk >/dev/null || (apt-get update && apt-get install -y wrk)
	$(NODE) dist/native-bench/http.js

bench: bench-hash bench-sig bench-http

clean:
	rm -rf dist node_modules
