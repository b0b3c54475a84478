# hermesstate — run `make help` for the targets.
# Every target that compiles against SQLite needs the sqlite_fts5 build tag
# (mattn/go-sqlite3 bundles SQLite 3.54 but compiles FTS5 in only with it).

TAGS  := sqlite_fts5
# sqlc is pinned here and nowhere else; the Go build cache keeps it after the
# first build (about 4 minutes).
SQLC  := go run github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1
# The benchmark corpora (bench-corpus, bench-report) are generated, never
# committed: they live outside the checkout, in BENCH_DIR.
BENCH_DIR   ?= $(or $(TMPDIR),/tmp)/hermesstate-bench
BENCH_SEED  ?= 1
BENCH_SIZES ?= 100k,1m
# make pg-up's server for the PostgreSQL tests (scripts/pg.sh, as .ci/run).
PG_DIR  ?= $(or $(TMPDIR),/tmp)/hermesstate-pg
PG_PORT ?= 54330

.PHONY: help build generate verify test bench bench-corpus bench-report stress vet fmt tidy pg-up pg-down

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-10s %s\n", $$1, $$2}'

build: ## build cmd/migrate and cmd/sessions into bin/ (-buildvcs=auto: the commit is stamped from a checkout even where GOFLAGS turns it off)
	go build -buildvcs=auto -tags $(TAGS) -o bin/ ./cmd/migrate ./cmd/sessions

generate: ## regenerate schema/schema.sql from the migrations, then db/ and db/postgres/ with sqlc, then internal/backend's adapters
	go run -tags $(TAGS) ./internal/cmd/schemadump -o schema/schema.sql
	$(SQLC) generate
	go run ./internal/cmd/backendgen

verify: ## fail if generated code is stale: sqlc diff and vet, backend adapters, schema drift, gofmt, go vet
	$(SQLC) diff
	$(SQLC) vet
	go run ./internal/cmd/backendgen -check
	go test -tags $(TAGS) -count=1 -run '^TestSchemaMatchesMigrations$$' ./schema
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet -tags $(TAGS) ./...

test: ## run every test with the race detector (the README's test command)
	go test -race -tags $(TAGS) -count=1 ./...

stress: ## the long reliability run (minutes): 16 writers in 4 processes, 100+ SIGKILLs, a 1.5 GB WAL
	go test -race -tags $(TAGS) -count=1 -timeout 60m ./reliability -long -v

bench: ## run the benchmarks; each reports its ratio against bare database/sql
	go test -tags $(TAGS) -run '^$$' -bench . -benchtime 200x ./...

bench-corpus: ## build the seeded v21 benchmark corpora (BENCH_SIZES=100k,1m messages) in BENCH_DIR; kept while up to date (minutes for 1m)
	go run -tags $(TAGS) ./internal/cmd/benchcorpus -dir $(BENCH_DIR) -seed $(BENCH_SEED) -sizes $(BENCH_SIZES)

bench-report: bench-corpus ## Markdown table of search, list, replay, export and append on each corpus side by side (HERMES_SRC=hermes-agent checkout adds the original); also in BENCH_DIR/report.md
	go run -tags $(TAGS) ./internal/cmd/benchreport -dir $(BENCH_DIR) -seed $(BENCH_SEED) -sizes $(BENCH_SIZES) -o $(BENCH_DIR)/report.md

pg-up: ## start a throwaway PostgreSQL for the tests in PG_DIR on 127.0.0.1:PG_PORT (54330) and print the export HERMESSTATE_TEST_PG=... line
	@scripts/pg.sh up $(PG_DIR) $(PG_PORT)

pg-down: ## stop make pg-up's server and remove PG_DIR
	@scripts/pg.sh down $(PG_DIR)

vet: ## go vet
	go vet -tags $(TAGS) ./...

fmt: ## gofmt every Go file
	gofmt -w $$(git ls-files '*.go')

tidy: ## go mod tidy
	go mod tidy
