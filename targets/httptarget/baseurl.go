package httptarget

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ParseBaseURL reads --url: an http:// or https:// URL with a host. Its
// error names the problem without the URL's credentials: a URL that does
// not parse, or has no scheme, still shows its userinfo as url.Redacted
// would not (a password with a space, user:password@host without
// http://), so the URL is shown with everything before its last '@'
// masked, and the parser's reason without the URL it quotes.
func ParseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	var reason string
	switch {
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its Error() quotes the whole URL
		}
		reason = err.Error()
	case u.Scheme != "http" && u.Scheme != "https":
		reason = "not an http:// or https:// URL"
	case u.Host == "":
		reason = "no host"
	default:
		return u, nil
	}
	return nil, fmt.Errorf("--url %q: %s (e.g. %s)", withoutUserinfo(raw), reason, DefaultURL)
}

// withoutUserinfo is raw with what may be its userinfo masked: the text
// between the scheme (or the start) and the last '@' before the path.
func withoutUserinfo(raw string) string {
	start := 0
	if i := strings.Index(raw, "://"); i >= 0 {
		start = i + len("://")
	}
	authority := raw[start:]
	if end := strings.IndexAny(authority, "/?#"); end >= 0 {
		authority = authority[:end]
	}
	at := strings.LastIndex(authority, "@")
	if at < 0 {
		return raw
	}
	return raw[:start] + "***" + raw[start+at:]
}
