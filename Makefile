# kvbench — the two commands: `make demo` and `make test` (and `make install`).
CARGO ?= cargo
SHELL := bash
export CARGO_TERM_COLOR ?= never

.PHONY: all build release demo demo-deps demo-check test lint fmt doc deps clean bench install schema

# `make install`: the binary, its shell completions and its man pages under
# $(DESTDIR)$(PREFIX). KVBENCH_BIN (as for scripts/demo.sh) is the binary
# installed: the release build by default, built first; another path is
# installed as it is, unbuilt.
PREFIX ?= /usr/local
DESTDIR ?=
RELEASE_BIN := target/release/kvbench
KVBENCH_BIN ?= $(RELEASE_BIN)

all: build

build:
	$(CARGO) build

release:
	$(CARGO) build --release

# Installs what the tests need (Debian's redis-server, memcached, sasl2-bin and
# openssl; Slurm and munge for tests/e2e/slurm.rs; prometheus for
# tests/e2e/metrics.rs; chromium for tests/e2e/html.rs).
deps:
	@scripts/ensure-redis.sh
	@scripts/ensure-slurm.sh
	@scripts/ensure-prometheus.sh
	@scripts/ensure-chromium.sh
	@scripts/ensure-faketime.sh
	@scripts/ensure-proxy.sh

# Installs what the demo needs, and nothing else: redis-server.
demo-deps:
	@scripts/ensure-redis.sh --demo-only

# A real short benchmark against a private redis-server (about 20 s).
demo: demo-deps release
	scripts/demo.sh

# Runs the demo and checks that it wrote a complete JSON report.
demo-check: demo
	@grep -q '"complete": true' results/demo.json || { echo "demo-check: results/demo.json is not complete" >&2; exit 1; }
	@grep -q '"RUN #2 RESULTS"' results/demo.json || { echo "demo-check: results/demo.json lacks RUN #2" >&2; exit 1; }
	@echo "demo-check: results/demo.json is complete"

# Performance, measured: kvbench and redis-benchmark side by side (A B A B),
# then the micro-benchmarks; both tables are written into docs/performance.md.
bench: deps release
	$(CARGO) build --release --example floor
	python3 scripts/bench.py --write-doc
	@mkdir -p target
	$(CARGO) bench --bench micro -- --warm-up-time 1 --measurement-time 3 | tee target/criterion.txt
	python3 scripts/bench.py --criterion target/criterion.txt --write-doc

fmt:
	$(CARGO) fmt --all

# Rewrites docs/output.schema.json from the report model (src/report/model/);
# a unit test fails until the file is what the model generates.
schema:
	KVBENCH_WRITE_SCHEMA=1 $(CARGO) test --lib report::model::schema::tests::docs_output_schema_json

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings
	python3 scripts/check-layout.py
	python3 scripts/check-errors.py

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps

# The whole suite: formatting, lints, docs, unit and end-to-end tests against
# real redis-server processes, the counts checks once more under
# --io-engine uring (scripts/test-uring.sh), and the demo from a clean build.
# The last line is the count of every test run, so a log's closing line says it.
test: deps lint doc
	@mkdir -p target
	set -o pipefail; $(CARGO) test 2>&1 | tee target/test.log
	set -o pipefail; CARGO=$(CARGO) scripts/test-uring.sh 2>&1 | tee -a target/test.log
	$(MAKE) demo-check
	@awk '/^test result:/ {p += $$4; f += $$6} END {printf "tests: %d passed, %d failed\n", p, f}' target/test.log

install: $(if $(filter $(RELEASE_BIN),$(KVBENCH_BIN)),release)
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" \
	  "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" \
	  "$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
	  "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	install -m 755 "$(KVBENCH_BIN)" "$(DESTDIR)$(PREFIX)/bin/kvbench"
	"$(KVBENCH_BIN)" man --dir "$(DESTDIR)$(PREFIX)/share/man/man1"
	"$(KVBENCH_BIN)" completions bash > "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/kvbench"
	"$(KVBENCH_BIN)" completions zsh > "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_kvbench"
	"$(KVBENCH_BIN)" completions fish > "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/kvbench.fish"

clean:
	$(CARGO) clean
	rm -rf results
