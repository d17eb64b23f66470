package httptarget

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// ParseBaseURL reads --url: an http:// or https:// URL with a host. Its
// error names the problem without the URL's credentials: a URL that does
// not parse, or has no scheme, still shows its userinfo as url.Redacted
// would not (a password with a space, user:password@host without
// http://), so the URL is shown with everything before its last '@'
// masked, and the parser's reason without the URL it quotes.
//
// A query or a fragment is refused: a fragment never reaches a service,
// and a base URL's query would reach it on sends but not on syncs, whose
// own query replaces it. Neither is quoted: either may hold a token.
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
	case u.RawQuery != "" || u.ForceQuery:
		reason = "a base URL takes no query (?...): chatseq adds its own to its paths; give a credential with --header"
	case u.Fragment != "" || strings.Contains(raw, "#"):
		reason = "a base URL takes no fragment (#...): it never reaches a service"
	default:
		return u, nil
	}
	shown := withoutQuery(withoutUserinfo(raw))
	return nil, fmt.Errorf("--url %q: %s (e.g. %s)", shown, withoutHidden(reason, raw, shown), DefaultURL)
}

// withoutUserinfo is raw with what may be its userinfo masked: the text
// between the scheme (or the start) and the last '@'. The last in the
// whole text, not in the authority as a parser would find it: a password
// given unescaped may hold '/', '?' or '#'. A path's '@' masks more than
// it must, never less.
func withoutUserinfo(raw string) string {
	start := 0
	if i := strings.Index(raw, "://"); i >= 0 {
		start = i + len("://")
	}
	at := strings.LastIndex(raw[start:], "@")
	if at < 0 {
		return raw
	}
	return raw[:start] + "***" + raw[start+at:]
}

// withoutQuery is raw up to its first '?' or '#', with "..." in place of
// what follows.
func withoutQuery(raw string) string {
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		return raw[:i] + "..."
	}
	return raw
}

// quoted is a quoted piece of a parser's reason.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// withoutHidden is reason with "***" for each piece it quotes that shown
// does not hold but raw does: a parser quotes a bad port or escape, which
// may be part of a password (":S3c" of alice:S3c#ret@host).
func withoutHidden(reason, raw, shown string) string {
	return quoted.ReplaceAllStringFunc(reason, func(q string) string {
		piece, err := strconv.Unquote(q)
		if err != nil || piece == "" || strings.Contains(shown, piece) || !strings.Contains(raw, piece) {
			return q
		}
		return `"***"`
	})
}
