package cmd

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/bench"
	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
)

// httpFlags reach a service over HTTP (bench --target http).
type httpFlags struct {
	url, api          string
	serve, nemesisCmd string
	// contract holds the contract flags, one a row of
	// history.ContractFields that a mapping may state.
	contract  history.Contract
	killEvery time.Duration
	// How requests reach the service: headers (credentials: never
	// shown), TLS, the per-request timeout, the sync page's bound.
	headers                       []string
	insecure                      bool
	caCert, clientCert, clientKey string
	timeout                       time.Duration
	maxAnswerBytes                int64
	header                        http.Header // headers, parsed by resolve
}

func (h *httpFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&h.url, "url", "", "base URL of the service --target http drives, e.g. http://127.0.0.1:8480 ('chatseq serve'; the default with --serve)")
	fl.StringVar(&h.api, "api", "", "YAML file mapping chatseq's calls onto the service's HTTP API (default: chatseq's own, docs/http-api.md)")
	fl.StringVar(&h.serve, "serve", "", "shell command that starts the service --target http drives (e.g. 'go run ./cmd/chatseq serve'): chatseq starts it, waits until it answers, and SIGKILLs and restarts it on kill_server faults")
	fl.StringVar(&h.nemesisCmd, "nemesis-cmd", "", "shell command run on each kill_server fault instead (e.g. 'docker restart api'); chatseq then waits until the service answers")
	api := httptarget.DefaultAPI().Contract
	for _, cf := range serviceStatedFields() {
		def := *cf.Of(&api)
		if def == "" {
			def = cf.Default
		}
		fl.StringVar(cf.Of(&h.contract), cf.Flag, "", "what the service behind --target http promises of contract."+cf.Name+": "+cf.Glossed()+"; default: the --api mapping's, else chatseq's API's, "+def)
	}
	fl.DurationVar(&h.killEvery, "kill-every", 0, "kill_server every this long while the writers run (needs --duration, and --serve or --nemesis-cmd)")
	fl.StringArrayVar(&h.headers, "header", nil, "a request header for --target http, 'Name: value' (e.g. 'Authorization: Bearer …'); repeat for several. Values are credentials: every report, results.json and command line shows them as 'Name: ***'")
	fl.BoolVar(&h.insecure, "insecure", false, "--target http over https: accept any server certificate (a self-signed one); prefer --ca-cert")
	fl.StringVar(&h.caCert, "ca-cert", "", "--target http over https: PEM file of the certificate authorities to trust instead of the system's")
	fl.StringVar(&h.clientCert, "client-cert", "", "--target http over https: PEM client certificate to present (mutual TLS), with --client-key")
	fl.StringVar(&h.clientKey, "client-key", "", "PEM private key of --client-cert")
	fl.DurationVar(&h.timeout, "http-timeout", httptarget.DefaultTimeout, "--target http: one request's time, its answer read whole included; past it a send's outcome is unknown (info, timeout)")
	fl.Int64Var(&h.maxAnswerBytes, "max-answer-bytes", httptarget.DefaultMaxPageBytes, "--target http: the most of a sync page's answer read (any other answer: 4 MiB); a longer one is a bad_response, which fails api_conformance")
}

// serviceStatedFields are the contract's fields a service behind --target
// http states (its mapping's contract, or a flag each): the rows of
// history.ContractFields that a mapping may state.
func serviceStatedFields() []*history.ContractField {
	var out []*history.ContractField
	for i := range history.ContractFields {
		if cf := &history.ContractFields[i]; cf.MappingStates {
			out = append(out, cf)
		}
	}
	return out
}

// options are how the target is reached.
func (h *httpFlags) options(o targets.Options) targets.Options {
	o.URL, o.API, o.Serve, o.NemesisCmd = h.url, h.api, h.serve, h.nemesisCmd
	o.Contract = h.contract
	o.HTTP = targets.HTTPOptions{
		Header: h.header, Insecure: h.insecure, CACert: h.caCert, ClientCert: h.clientCert, ClientKey: h.clientKey,
		Timeout: h.timeout, MaxAnswerBytes: h.maxAnswerBytes,
	}
	return o
}

// kills are --kill-every's kill_server faults over a run of duration d:
// with receivers, none within target.LastConnectionOpen of its end, so
// that the devices' last connections are long enough to judge.
func (h *httpFlags) kills(d time.Duration, receivers int) []target.TimedFault {
	var out []target.TimedFault
	for at := h.killEvery; h.killEvery > 0 && at < d; at += h.killEvery {
		f := target.TimedFault{Kind: target.KillServer, At: at}
		if receivers > 0 && f.LeavesNoStream(d) != "" {
			break
		}
		out = append(out, f)
	}
	return out
}

// resolve reads the mapping now, so a bad one exits 2 before anything
// runs.
func (h *httpFlags) resolve(cfg *bench.Config) error {
	for _, cf := range serviceStatedFields() {
		if v := *cf.Of(&h.contract); v != "" && !cf.Allows(v) {
			return badInput("--%s must be %s, got %q", cf.Flag, cf.Choices(false, "or"), v)
		}
	}
	switch {
	case h.killEvery < 0:
		return badInput("--kill-every must not be negative, got %s", h.killEvery)
	case h.killEvery > 0 && cfg.Duration <= 0:
		return badInput("--kill-every needs a --duration to space the kills over")
	case h.killEvery > 0 && h.serve == "" && h.nemesisCmd == "":
		return badInput("--kill-every needs --serve CMD (chatseq starts and kills the service) or --nemesis-cmd CMD")
	case h.timeout <= 0:
		return badInput("--http-timeout must be positive, got %s", h.timeout)
	case h.maxAnswerBytes < minAnswerBytes:
		return badInput("--max-answer-bytes must be at least %d, got %d", minAnswerBytes, h.maxAnswerBytes)
	}
	header, err := parseHeaders(h.headers)
	if err != nil {
		return usageError{err}
	}
	h.header = header
	if err := httptarget.CheckOptions(h.options(targets.Options{}).HTTP); err != nil {
		return usageError{err}
	}
	kills := h.kills(cfg.Duration, cfg.Receivers)
	if h.killEvery > 0 && len(kills) == 0 {
		why := ""
		if cfg.Receivers > 0 {
			why = fmt.Sprintf(", whose last %s each device's last connection keeps for stream_completeness to judge", target.LastConnectionOpen)
		}
		return badInput("--kill-every %s never strikes in a %s run%s", h.killEvery, cfg.Duration, why)
	}
	cfg.Timed = append(cfg.Timed, kills...)
	if h.api != "" {
		if _, err := httptarget.LoadAPI(h.api); err != nil {
			return usageError{err}
		}
	}
	return nil
}

// faultFlags are the per-attempt faults that happen inside a server.
var faultFlags = []string{
	"stale-read", "crash-after-allocate", "crash-in-persist", "crash-after-persist", "publish-fail",
	"crash-before-allocate", "store-throttle", "store-internal-error", "txn-canceled-other", "txn-cancelled-other",
}

// adjust fits the run to a remote target: it publishes to its own Kafka,
// and only the faults asked for on the command line reach it (through
// chatseq serve's test hooks), not bench's defaults.
func (h *httpFlags) adjust(c *cobra.Command, opened *targets.Opened, cfg *bench.Config) {
	if opened.NoTopicToRead(cfg.Brokers) {
		cfg.KafkaOff = true
	}
	if !opened.Remote {
		return
	}
	// Its Kafka outages are the server's own (chatseq serve's test hook).
	cfg.ServerKafka = true
	changed := false
	for _, name := range faultFlags {
		changed = changed || c.Flags().Changed(name)
	}
	if !changed {
		cfg.Faults = bench.FaultRates{}
	}
}

// splitList reads a comma-separated list, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// check refuses --target http without a service to reach, before
// anything runs.
func (h *httpFlags) check(names []string) error {
	for _, n := range names {
		if n == httptarget.Name && h.url == "" && h.serve == "" {
			return badInput("--target http needs --url URL (a running service) or --serve CMD (chatseq starts it)")
		}
		if n == httptarget.Name && h.url != "" {
			if _, err := httptarget.ParseBaseURL(h.url); err != nil {
				return usageError{err}
			}
		}
	}
	return nil
}

// minAnswerBytes is the least --max-answer-bytes: an empty page's answer
// and a little more.
const minAnswerBytes = 1 << 10

// parseHeaders reads --header values, "Name: value". An error names the
// header by its place and name, never its value, a credential.
func parseHeaders(values []string) (http.Header, error) {
	if len(values) == 0 {
		return nil, nil
	}
	h := http.Header{}
	for i, v := range values {
		name, value, ok := strings.Cut(v, ":")
		name = strings.TrimSpace(name)
		switch {
		case !ok:
			return nil, fmt.Errorf("--header #%d has no colon: give it as 'Name: value'", i+1)
		case !isToken(name):
			return nil, fmt.Errorf("--header #%d: %q is not a header name", i+1, name)
		}
		value = strings.TrimSpace(value)
		if strings.ContainsFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
			return nil, fmt.Errorf("--header %s: its value holds a control character (a line break?)", name)
		}
		h.Add(name, value)
	}
	return h, nil
}

// isToken: s is an HTTP header name (RFC 9110's token).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r)) {
			return false
		}
	}
	return true
}
