package httptarget

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/chatseq/chatseq/history"
	"github.com/chatseq/chatseq/internal/redact"
	"github.com/chatseq/chatseq/sequencer"
	"github.com/chatseq/chatseq/target"
	"github.com/chatseq/chatseq/targets"
)

// Name is the target's name.
const Name = "http"

func init() { targets.Register(Name, Open) }

// DefaultURL is where --serve expects the service it starts (chatseq
// serve's default).
const DefaultURL = "http://127.0.0.1:8480"

// Open checks the URL and the mapping, and starts the service when
// opts.Serve says how; otherwise the service is first reached when the run
// creates its chats.
func Open(ctx context.Context, opts targets.Options) (*targets.Opened, error) {
	fixedURL := opts.URL != ""
	if opts.URL == "" && opts.Serve != "" {
		opts.URL = DefaultURL
	}
	if opts.URL == "" {
		return nil, fmt.Errorf("target http needs --url, the service's base URL (e.g. %s), or --serve CMD", DefaultURL)
	}
	base, err := ParseBaseURL(opts.URL)
	if err != nil {
		return nil, err
	}
	api := DefaultAPI()
	if opts.API != "" {
		if api, err = LoadAPI(opts.API); err != nil {
			return nil, err
		}
	}
	o := &targets.Opened{Topic: sequencer.Topic, Remote: true}
	s, err := newSettings(opts.HTTP)
	if err != nil {
		return nil, err
	}
	secretHeader(opts.HTTP.Header)
	var kill func(context.Context) error
	started := ""
	if opts.Serve != "" {
		// Without --url, the service is wherever the command said it
		// listens (chatseq serve --listen :8483), else DefaultURL.
		p, err := startProcess(ctx, opts.Serve, base.String(), fixedURL, s.tls)
		if err != nil {
			return nil, err
		}
		o.OnClose(p.stop)
		if base, err = url.Parse(p.url); err != nil {
			o.Close()
			return nil, fmt.Errorf("--serve: the service's URL %q: %w", p.url, err)
		}
		started = ", started by --serve"
		if p.served != "" {
			started += ": " + p.served
		}
		if p.stated != nil && opts.API == "" {
			started += adoptStated(api, *p.stated, opts.Contract)
		}
		o.Volatile = p.volatile
		kill = p.restart
	}
	api.Contract = opts.Contract.Over(api.Contract)
	o.Contract = api.contract()
	secretUserinfo(base)
	o.Describe = "HTTP service at " + redact.Text(base.String()) + apiName(opts.API) + started
	if opts.NemesisCmd != "" {
		probe := base.String()
		kill = func(ctx context.Context) error { return runNemesis(ctx, opts.NemesisCmd, probe, s.tls) }
	}
	o.Factory = factory(base, api, s, nil)
	if kill != nil {
		o.Factory = withNemesis(o.Factory, kill)
	}
	return o, nil
}

// adoptStated drives chatseq serve's design under the contract it keeps
// (the line it printed, stated): where no flag (flagged) states a field,
// the line does. It says, for the report, what that changed.
func adoptStated(api *API, stated, flagged history.Contract) string {
	assumed := api.contract()
	var adopted []string
	for _, f := range history.ContractFields {
		if v := *f.Of(&stated); v != "" && *f.Of(&flagged) == "" && v != *f.Of(&assumed) {
			adopted = append(adopted, f.Name+" "+v)
		}
	}
	api.Contract = stated.Over(api.Contract)
	if len(adopted) == 0 {
		return ""
	}
	return ", under the contract it states: " + strings.Join(adopted, ", ")
}

// withNemesis gives the factory's clients a way to kill the service.
func withNemesis(f target.Factory, kill func(context.Context) error) target.Factory {
	return func(ctx context.Context, env target.Env) (target.Target, error) {
		t, err := f(ctx, env)
		if err != nil {
			return nil, err
		}
		t.(*client).nemesis = kill
		return t, nil
	}
}

func apiName(path string) string {
	if path == "" {
		return " (chatseq's API)"
	}
	return " (API " + path + ")"
}

// contract is what the mapping states, and for the rest the table's
// default; a field whose default depends on events lines (events) is
// left to the checker, which finds none in an http target's history.
func (a *API) contract() history.Contract {
	c := a.Contract
	if c.SendMembership == "" && a.UserHeader == "" && a.Send.SenderField == "" {
		// Told no one's identity, the service cannot refuse a non-member.
		c.SendMembership = history.SendMembershipUnchecked
	}
	if c.ReadMembership == "" && a.UserHeader == "" {
		// A sync names no reader: the service cannot refuse one.
		c.ReadMembership = history.ReadMembershipUnchecked
	}
	for _, f := range history.ContractFields {
		if v := f.Of(&c); *v == "" && f.DefaultWithEvents == "" {
			*v = f.Default
		}
	}
	return c
}

// Factory builds a run's client: as many idle connections as the run
// has clients, so none waits for another's, and its clients' retry
// budget; rt, when set, carries the requests (a test's validating
// transport).
func Factory(base *url.URL, api *API, rt http.RoundTripper) target.Factory {
	return factory(base, api, defaultSettings(), rt)
}

// factory is Factory with the run's transport settings.
func factory(base *url.URL, api *API, s settings, rt http.RoundTripper) target.Factory {
	return func(_ context.Context, env target.Env) (target.Target, error) {
		conns := 2*env.Writers + env.Readers + 4
		c := newClient(base, api, s, conns, rt)
		// A send answered 503 or 429 is retried within the run's own
		// budget and from its clients' first wait (--max-attempts,
		// --retry-backoff), and at most as the strategy document says.
		c.retry = statusRetry{attempts: min(MaxStatusAttempts, env.MaxAttempts), backoff: env.RetryBackoff}
		return c, nil
	}
}
