package scenarios

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/checker"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/storeopen"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// maxFileSize bounds what is read as a scenario: they are a page long.
const maxFileSize = 1 << 20

// maxOps bounds a scenario's operations; its writers, chats, readers and
// receivers are held to bench's bounds (bench.MaxWriters and the rest),
// which keep a typo (writers: 1000000) from taking a machine down.
const maxOps = 1 << 40

// DecodeFile reads and decodes the scenario at path.
func DecodeFile(path string) (*Scenario, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, Errors{{File: path, Msg: err.Error()}}
	}
	if info.Size() > maxFileSize {
		return nil, Errors{{File: path, Msg: fmt.Sprintf("%d bytes is too large for a scenario file (at most %d)", info.Size(), maxFileSize)}}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Errors{{File: path, Msg: err.Error()}}
	}
	return Decode(data, path)
}

// Decode decodes one scenario file's content; file names it in errors
// and gives the default name. Any problem is returned as Errors, each
// with its line. Decode never panics: whatever the input, the answer is a
// scenario or errors.
func Decode(data []byte, file string) (sc *Scenario, err error) {
	defer func() {
		if r := recover(); r != nil {
			sc, err = nil, Errors{{File: file, Msg: fmt.Sprintf("cannot decode: %v", r)}}
		}
	}()
	if len(data) > maxFileSize {
		return nil, Errors{{File: file, Msg: fmt.Sprintf("%d bytes is too large for a scenario file", len(data))}}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{File: file, Line: 1, Msg: "empty scenario file"}}
		}
		return nil, Errors{yamlError(file, data, err)}
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, Errors{{File: file, Line: next.Line, Msg: "a second YAML document: a scenario file holds one scenario"}}
	case !errors.Is(err, io.EOF):
		return nil, Errors{yamlError(file, data, err)}
	}

	d := &decoder{file: file, sc: newScenario(file), lines: map[string]int{}}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		d.errorf(root, "a scenario is a mapping of keys (name:, writers:, expect:, …), not a %s", kindName(root))
		return nil, d.errs
	}
	d.mapping(root, "", d.topFields())
	d.finish(root)
	if len(d.errs) > 0 {
		slices.SortStableFunc(d.errs, func(a, b *Error) int { return a.Line - b.Line })
		return nil, d.errs
	}
	return d.sc, nil
}

var yamlLine = regexp.MustCompile(`line (\d+): `)

// yamlError turns a yaml.v3 syntax error into an Error with its line.
// yaml.v3 counts a parser's error's line from 0 (a scanner's from 1): an
// unclosed '{' on line 7 was reported at line 6. A byte the reader
// refuses (a NUL) comes with no line: it is found in data.
func yamlError(file string, data []byte, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLine.FindStringSubmatchIndex(msg); m != nil {
		line, _ = strconv.Atoi(msg[m[2]:m[3]])
		msg = msg[:m[0]] + msg[m[1]:]
	}
	switch {
	case yamlParserProblems[msg]:
		line++
	case line == 0 && strings.HasPrefix(msg, "control characters are not allowed"):
		line = lineOfControl(data)
	}
	return &Error{File: file, Line: line, Msg: "not valid YAML: " + msg}
}

// yamlParserProblems are the errors yaml.v3's parser (not its scanner)
// gives, whose lines it counts from 0.
var yamlParserProblems = map[string]bool{
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected '-' indicator":    true,
	"did not find expected <document start>": true,
	"did not find expected <stream-start>":   true,
	"did not find expected key":              true,
	"did not find expected node content":     true,
	"found duplicate %TAG directive":         true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// lineOfControl is the line of data's first control character YAML
// refuses (0: none).
func lineOfControl(data []byte) int {
	line := 1
	for _, c := range data {
		switch {
		case c == '\n':
			line++
		case c < 0x20 && c != '\t' && c != '\r', c == 0x7f:
			return line
		}
	}
	return 0
}

// finish applies defaults that depend on other keys and checks what
// involves several keys, each error at the line of the key that has to
// change.
func (d *decoder) finish(root *yaml.Node) {
	sc := d.sc
	if _, ok := d.lines["name"]; !ok {
		base := filepath.Base(d.file)
		sc.Name = strings.TrimSuffix(base, filepath.Ext(base))
		if !validName.MatchString(sc.Name) {
			d.errAt(root.Line, "give the scenario a name: (the file name %q is not usable as one)", base)
		}
	}
	if _, ok := d.lines["expect"]; !ok {
		d.errAt(root.Line, "expect: missing: write expect: pass, or expect: {violates: [invariant, ...]}")
	}
	_, hasOps := d.lines["ops"]
	_, hasDuration := d.lines["duration"]
	_, hasStages := d.lines["stages"]
	if !hasOps && !hasDuration && !hasStages {
		d.errAt(root.Line, "give ops: (operations in total) or duration: (how long writers run), or both")
	}
	d.checkStages()
	if _, both := d.lines["store"]; both {
		if l, ok := d.lines["target"]; ok {
			d.errAt(l, "target: give store or target, not both (a store names ADR-004's core on that store)")
		}
	}
	if l, ok := d.lines["zipf_s"]; ok && sc.Distribution != bench.Zipf {
		d.errAt(l, "zipf_s applies only with distribution: zipf")
	}
	if l, ok := d.lines["rate"]; ok {
		if problem := bench.RateProblem(sc.Rate, sc.Writers, sc.Duration, sc.Ops); problem != "" {
			d.errAt(l, "rate: %g %s", sc.Rate, problem)
		}
	}
	d.checkKafka()
	d.checkServe()
	d.checkReceivers()
	d.checkVariant()
	d.checkStrategy()
	d.checkStoreErrors()
	d.checkExpect()
	for i, f := range sc.Schedule {
		if f.Kind == target.DeleteCounter && f.Chat >= sc.Chats {
			d.errAt(d.scheduleLines[i], "schedule: delete_counter names chat %d, but the scenario has chats 0..%d", f.Chat, sc.Chats-1)
		}
		if problem := f.OutlastsRun(sc.Duration); problem != "" {
			d.errAt(d.scheduleLines[i], "schedule: %s", problem)
		}
		if problem := f.LeavesNoStream(sc.Duration); problem != "" && sc.Receivers > 0 {
			d.errAt(d.scheduleLines[i], "schedule: %s", problem)
		}
		if problem := f.VariantProblem(sc.Strategy, sc.Variant); problem != "" {
			d.errAt(d.scheduleLines[i], "schedule: %s", problem)
		}
		if problem := target.VariantOverlap(sc.Schedule, i); problem != "" {
			d.errAt(d.scheduleLines[i], "schedule: %s", problem)
		}
	}
}

// checkServe checks what serving the design in a process of its own
// (serve: true) needs.
func (d *decoder) checkServe() {
	sc := d.sc
	if !sc.Serve {
		return
	}
	if sc.Target == httptarget.Name {
		d.errAt(d.lines["serve"], "serve: true serves the scenario's own design (target: memory, postgres, …) through chatseq serve; target: http drives a service of yours (chatseq run --url or --serve CMD): drop one")
	}
	if sc.Target == storeopen.DynamoDB || sc.Target == storeopen.DynamoDBLocal {
		d.errAt(d.lines["serve"], "serve: true serves memory, postgres or another registered design; the DynamoDB stores are served with chatseq serve --store and bench --target http --serve CMD")
	}
}

// checkStages checks stages: whole: their sum is the run's duration,
// which duration: may repeat but not contradict, and rate: beside them
// would say two things.
func (d *decoder) checkStages() {
	sc := d.sc
	l, ok := d.lines["stages"]
	if !ok || len(sc.Stages) == 0 {
		return
	}
	if problem := bench.StagesProblem(sc.Stages, sc.Writers); problem != "" {
		d.errAt(l, "stages: %s", problem)
		return
	}
	if rl, ok := d.lines["rate"]; ok {
		d.errAt(rl, "rate: give rate or stages, not both (stages ramp the rate)")
	}
	total := bench.NewRamp(sc.Stages).Duration()
	if dl, ok := d.lines["duration"]; ok && sc.Duration != total {
		d.errAt(dl, "duration: %s, but the stages last %s: leave duration out, the stages set it", sc.Duration, total)
	}
	sc.Duration = total
}

// checkKafka rejects what cannot happen with Kafka off.
func (d *decoder) checkKafka() {
	sc := d.sc
	if !sc.KafkaOff {
		return
	}
	if sc.Contract.Events == history.EventsAtLeastOnce {
		d.errAt(d.lines["contract."+history.FieldEvents], "contract.events: at-least-once needs Kafka, but kafka: off")
	}
	for i, f := range sc.Schedule {
		if f.Kind == target.KafkaOutage {
			d.errAt(d.scheduleLines[i], "schedule: a kafka_outage with kafka: off")
		}
	}
	for _, t := range sc.Thresholds {
		if strings.HasPrefix(t.Metric, "publish.") {
			d.errAt(t.Line, "threshold %q: with kafka: off nothing is published", t.Expr)
		}
	}
}

// checkReceivers checks what receivers need: a push channel (fed from
// the events topic), devices the machine can hold, and receivers for a
// connection nemesis or a push gateway variant to reach.
func (d *decoder) checkReceivers() {
	sc := d.sc
	l, has := d.lines["receivers"]
	if !has || sc.Receivers == 0 {
		if dl, ok := d.lines["drop_connections_every"]; ok {
			d.errAt(dl, "drop_connections_every drops the receivers' connections: give receivers: N too")
		}
		if dl, ok := d.lines["drop_connections_for"]; ok {
			d.errAt(dl, "drop_connections_for keeps dropped receivers offline: give receivers: N and drop_connections_every too")
		}
		if cfg := sc.Config(); cfg.GatewayVariant() != "" && len(d.variantKeys) > 0 {
			d.errAt(d.lines[d.variantKeys[0]], "%s: %s breaks the push gateway, which only receivers reach: give receivers: N too (4 shows it)", d.variantKeys[0], sc.Variant)
		}
		for _, t := range sc.Thresholds {
			if t.NeedsReceivers() {
				d.errAt(t.Line, "threshold %q: only receivers (receivers: N) measure it", t.Expr)
			}
		}
		return
	}
	if sc.KafkaOff {
		d.errAt(l, "receivers: the push channel is fed from the events topic, and kafka: off has none")
	}
	if devices := int64(sc.Receivers) * int64(sc.Chats); devices > bench.MaxDevices {
		d.errAt(l, "receivers: %d a chat over %d chats is %d devices, more than %d", sc.Receivers, sc.Chats, devices, bench.MaxDevices)
	}
	if dl, ok := d.lines["drop_connections_for"]; ok {
		if problem := bench.DropsProblem(sc.DropConnectionsFor, sc.DropConnectionsEvery, "drop_connections_every"); problem != "" {
			d.errAt(dl, "drop_connections_for %s", problem)
		}
	}
	if el, ok := d.lines["drop_connections_every"]; ok {
		if problem := bench.DropsNeverStrike(sc.DropConnectionsFor, sc.DropConnectionsEvery, sc.Duration); problem != "" {
			d.errAt(el, "drop_connections_every %s", problem)
		}
	}
}

// checkVariant requires broken: or variant: (not both) to name a variant
// of the scenario's target of its kind (targets.SelectVariant) that exists
// under its strategy. broken: naming a design still runs it, with a note.
func (d *decoder) checkVariant() {
	sc := d.sc
	if len(d.variantKeys) == 0 {
		return
	}
	key := d.variantKeys[0]
	line := d.lines[key]
	if len(d.variantKeys) > 1 {
		d.errAt(d.lines[d.variantKeys[1]], "%s: give broken or variant, not both", d.variantKeys[1])
		return
	}
	broken, variant := string(sc.Variant), ""
	if key == "variant" {
		broken, variant = "", broken
	}
	name, note, err := targets.SelectVariant(sc.Target, broken, variant, targets.ScenarioSpelling)
	if err != nil {
		d.errAt(line, "%v", err)
		return
	}
	sc.Variant, sc.Design = sequencer.Variant(name), key == "variant" || note != ""
	if note != "" {
		sc.Notes = append(sc.Notes, fmt.Sprintf("%s:%d: %s", d.file, line, note))
	}
	if err := sc.Variant.CheckStrategy(sc.Strategy); err != nil {
		d.errAt(line, "%s: %v", key, err)
	}
}

// checkStoreErrors rejects store error faults for a target that does not
// run ADR-004's core: they are DynamoDB's errors, and another design would
// run without them under a file that asks for them.
func (d *decoder) checkStoreErrors() {
	sc := d.sc
	if targets.RunsCore(sc.Target) {
		return
	}
	for _, key := range []string{"slow_commit", "slow_commit_delay"} {
		if l, ok := d.lines["faults."+key]; ok {
			d.errAt(l, "faults.%s: a commit held after its allocation is two-phase allocation's, ADR-004's core only (targets memory, dynamodb, dynamodb-local); target %s does not inject it", key, sc.Target)
		}
	}
	for _, key := range []string{"store_throttle", "store_internal_error", "txn_canceled_other"} {
		if l, ok := d.lines["faults."+key]; ok {
			d.errAt(l, "faults.%s: store errors apply only to ADR-004's core (targets memory, dynamodb, dynamodb-local); target %s does not inject them", key, sc.Target)
		}
	}
	for i, f := range sc.Schedule {
		if target.CoreOnly(f.Kind) {
			d.errAt(d.scheduleLines[i], "schedule: %s applies only to ADR-004's core (targets memory, dynamodb, dynamodb-local); target %s does not inject it", f.Kind, sc.Target)
		}
	}
}

// checkStrategy rejects strategy: occ for a target without strategies: the
// run would allocate its own way under a header that says occ.
func (d *decoder) checkStrategy() {
	sc := d.sc
	if sc.Strategy == sequencer.Optimistic && !targets.HasStrategies(sc.Target) {
		d.errAt(d.lines["strategy"], "strategy: occ applies only to ADR-004's core (targets memory, dynamodb, dynamodb-local); target %s allocates its own way", sc.Target)
	}
}

// checkExpect rejects expectations the contract cannot produce: an
// invariant the checker will call not applicable never fails.
func (d *decoder) checkExpect() {
	sc := d.sc
	adr004 := sc.Target == storeopen.Memory || sc.Target == storeopen.DynamoDB || sc.Target == storeopen.DynamoDBLocal
	for _, name := range sc.Expect.Violates {
		switch {
		case name == checker.NameGapless && adr004 && sc.Contract.Gaps != history.GapsForbidden:
			d.errAt(sc.Expect.Line, "expect.violates: gapless is judged only under contract: {gaps: forbidden}")
		case name == checker.NameKeyReuse && adr004 && sc.Contract.KeyReuse != history.KeyReuseReject:
			d.errAt(sc.Expect.Line, "expect.violates: key_reuse is judged only under contract: {key_reuse: reject}")
		case name == checker.NameEventCompleteness && (sc.KafkaOff || sc.Contract.Events == history.EventsNone):
			d.errAt(sc.Expect.Line, "expect.violates: event_completeness is judged only with Kafka on and contract events at-least-once")
		case name == checker.NameCatchUpCompleteness && (sc.Readers == 0 || sc.Contract.CatchUp == history.CatchUpNone):
			d.errAt(sc.Expect.Line, "expect.violates: catch_up_completeness is judged only with readers (readers: N) under contract catch_up: cursor")
		case name == checker.NameEventOrder && (sc.KafkaOff || sc.Contract.EventOrder == history.EventOrderNone || adr004 && sc.Contract.EventOrder != history.EventOrderPerChat):
			d.errAt(sc.Expect.Line, "expect.violates: event_order is judged only with Kafka on under contract event_order: per-chat (ADR-004 does not promise it: write contract: {event_order: per-chat})")
		case slices.Contains(sc.AllowUnknown, name):
			d.errAt(d.lines["allow_unknown"], "allow_unknown: %s is also expected to fail", name)
		}
	}
	for _, name := range sc.Require {
		if slices.Contains(sc.AllowUnknown, name) {
			d.errAt(d.lines["require"], "require: %s is also in allow_unknown: an invariant that must be judged may not be left unknown", name)
		}
	}
}
