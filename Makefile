# tsbtcd build, test and benchmark entry points. Every target installs what it needs.
NODE ?= node
TSC := node_modules/.bin/tsc
TEST_FILES = $$(find dist/test -name '*.test.js' | sort)

.PHONY: install build test vectors run bench bench-sig bench-hash clean

# npm ci only when the lockfile changed since the last install.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

install: node_modules/.installed

build: install
	rm -rf dist
	$(TSC) -p tsconfig.json

test: build
	$(NODE) --test --test-concurrency=2 $(TEST_FILES)

vectors: build
	$(NODE) dist/test/vectors/report.js

# Until the chainstate lands, `make run` checks every consensus vector suite.
run: vectors

bench-sig: build
	$(NODE) dist/native-bench/sig.js

bench-hash: build
	$(NODE) dist/native-bench/hash.js

bench: bench-hash bench-sig

clean:
	rm -rf dist node_modules
