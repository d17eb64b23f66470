// Package redact hides credentials in text chatseq shows or keeps: a
// command line in results.json or report.html, an error echoing a --serve
// command or a DSN, what a started service printed. Every place that
// prints a command, a DSN, a URL or an error built from them passes it
// through Text (or Flag, for one flag's value), so that a results
// directory, a JUnit file or a terminal log can be shared.
package redact

import (
	"encoding/json"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Mask stands for a hidden credential.
const Mask = "***"

// secretName matches the name of a setting that holds a credential: a
// libpq or URL parameter (password, sslpassword), an environment variable
// (PGPASSWORD, MYSQL_PWD, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, any
// *_TOKEN or *_SECRET), a command's flag (--password, --api-key).
//
// A plain "pass" counts as the name's last word only (DB_PASS, SMTP_PASS,
// --pass, --db-pass), as it begins or ends harmless words too (--passes,
// PASSTHROUGH, bypass); an outside tester's "env DB_PASS=…" in --serve
// reached results.json. The caller bounds the name on its left.
const secretName = `(?:[A-Za-z0-9_.-]*(?:(?i)password|passwd|passphrase|pwd|secret|token|api[_-]?key|access[_-]?key|credentials?)[A-Za-z0-9_.-]*` +
	`|(?:[A-Za-z0-9_.-]*[_.-])?(?i:pass))`

// nameStart is what comes before a setting's name: a match begun within
// a word (bypass=1) would take its tail for the name.
const nameStart = `(?:^|[^A-Za-z0-9_.-])`

// A value ends at a space, a quote that closes what holds it, or a
// separator of a URL query or a shell command; a quoted value (libpq's
// 'with spaces', a shell's "…") runs to its closing quote.
const value = `(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|[^\s&;'"]+)`

var (
	// scheme://user:password@host: the password, as url.URL.Redacted.
	urlPassword = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^\s/@:'"]*):([^\s@/'"]*)@`)
	// http(s)://token@host: an HTTP URL's userinfo is Basic credentials,
	// and without a password its user is how a token is given
	// (https://TOKEN@host): hidden whole. A database URL's user alone
	// (postgres://app@db) is a role's name, and stays.
	urlUserOnly = regexp.MustCompile(`((?i:https?|wss?)://)[^\s/@:'"]+@`)
	// http(s)://user:password@host: Basic credentials, whose user is as
	// often the secret (https://TOKEN:x-oauth-basic@host): both hidden.
	urlBasic = regexp.MustCompile(`((?i:https?|wss?)://)[^\s/@:'"]*:[^\s@/'"]*@`)
	// password=…, PGPASSWORD=…, --password=…, ?password=…&
	assignment = regexp.MustCompile(`(` + nameStart + secretName + `\s*=\s*)` + value)
	// --password VALUE, -password VALUE (a flag and its value as two words)
	flagWord = regexp.MustCompile(`((?:^|\s)--?` + secretName + `\s+)` + value)
	// An HTTP header that carries a credential, as a --header value or a
	// curl command shows it.
	header = regexp.MustCompile(`(?i)((?:^|[\s'"])(?:authorization|proxy-authorization|cookie|x-api-key|api-key|x-auth-token)\s*:\s*)[^\r\n'"]+`)
)

// Text returns s with every credential it recognises replaced by Mask:
// the password of a URL's userinfo (an HTTP URL's user too: a token given
// as https://TOKEN@host or https://TOKEN:x-oauth-basic@host), a key=value setting whose key names a
// password, secret, token or key (libpq's key=value DSN, a URL query, an
// environment assignment before a command), a flag of such a name and its
// value, and an Authorization, Cookie or API-key header's value.
//
// A value so recognised is hidden wherever else it appears in s too: a
// command's output that prints its password=S3cret and then S3cret alone
// showed the second.
func Text(s string) string {
	if s == "" {
		return s
	}
	s = Known(s)
	found := recognised(s)
	s = urlBasic.ReplaceAllString(s, "${1}"+Mask+":"+Mask+"@")
	s = urlPassword.ReplaceAllString(s, "${1}:"+Mask+"@")
	s = urlUserOnly.ReplaceAllString(s, "${1}"+Mask+"@")
	s = assignment.ReplaceAllString(s, "${1}"+Mask)
	s = flagWord.ReplaceAllString(s, "${1}"+Mask)
	s = header.ReplaceAllString(s, "${1}"+Mask)
	for _, v := range found {
		s = strings.ReplaceAll(s, v, Mask)
	}
	return s
}

// recognised are the credentials the patterns find in s, unquoted, at
// least minSecret bytes long, longest first (so that one holding another
// is hidden whole).
func recognised(s string) []string {
	var found []string
	note := func(v string) {
		if len(v) >= 2 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		if len(v) >= minSecret && v != Mask && !slices.Contains(found, v) {
			found = append(found, v)
		}
	}
	// What follows each pattern's first group to the match's end is the
	// value it hides; urlPassword's second group is the password.
	for _, re := range []*regexp.Regexp{assignment, flagWord, header} {
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			note(s[m[3]:m[1]])
		}
	}
	for _, m := range urlPassword.FindAllStringSubmatchIndex(s, -1) {
		note(s[m[4]:m[5]])
	}
	for _, m := range urlBasic.FindAllStringSubmatchIndex(s, -1) {
		user, pass, _ := strings.Cut(s[m[3]:m[1]-1], ":")
		note(user)
		note(pass)
	}
	for _, m := range urlUserOnly.FindAllStringSubmatchIndex(s, -1) {
		note(s[m[3] : m[1]-1])
	}
	slices.SortStableFunc(found, func(a, b string) int { return len(b) - len(a) })
	return found
}

// wholeValue are flags whose every value is hidden, whatever it looks
// like: a header's value is as often a credential (a bearer token, an API
// key under a name of the service's own) as not.
var wholeValue = map[string]bool{"header": true}

// Flag returns the value of flag name (without dashes) as a command line
// that reproduces a run may show it: a --header's value behind its name
// ("X-Token: ***"), anything else through Text.
func Flag(name, v string) string {
	if wholeValue[name] {
		if k, _, ok := strings.Cut(v, ":"); ok {
			return strings.TrimSpace(k) + ": " + Mask
		}
		return Mask
	}
	return Text(v)
}

// secrets are the credentials chatseq was given (Secret): a service may
// echo them anywhere in an answer, under no name the patterns know.
var secrets struct {
	sync.RWMutex
	values []string
}

// minSecret is the shortest value Secret keeps: a shorter one (a header
// "X-Debug: 1") would mask every such character of every text, and is no
// credential worth the name.
const minSecret = 4

// Secret makes Text and Known hide v wherever it appears from now on: a
// --header's value, a URL's password, given to a service that may echo
// it back in an error, a page or a push refusal. Values shorter than
// four bytes are not kept.
func Secret(v string) {
	v = strings.TrimSpace(v)
	if len(v) < minSecret {
		return
	}
	secrets.Lock()
	defer secrets.Unlock()
	anySecret.Store(true)
	for _, form := range echoedForms(v) {
		if !slices.Contains(secrets.values, form) {
			secrets.values = append(secrets.values, form)
		}
	}
	// Longest first, so a secret holding another is hidden whole.
	slices.SortStableFunc(secrets.values, func(a, b string) int { return len(b) - len(a) })
}

// echoedForms are v as a service may echo it: as it is, escaped in a
// JSON string (Go's encoder: \u003c for <; PHP's and others': \/ for /),
// and escaped in a URL. An outside tester's service echoing a key with a
// / in it as \/ showed it, one escape short of the value.
func echoedForms(v string) []string {
	forms := []string{v}
	if b, err := json.Marshal(v); err == nil {
		forms = append(forms, string(b[1:len(b)-1]))
	}
	escaped := forms[len(forms)-1]
	candidates := []string{strings.ReplaceAll(v, "/", `\/`), strings.ReplaceAll(escaped, "/", `\/`), url.QueryEscape(v), url.PathEscape(v)}
	// The percent-encodings other languages' libraries make, in both
	// cases of hex: JavaScript's encodeURIComponent, Python's quote
	// (keeping /) and quote_plus. An outside tester's service echoing
	// "Bearer S3cr3t+tok/en=" as Bearer%20S3cr3t%2Btok/en%3D showed it.
	for _, upper := range []bool{true, false} {
		candidates = append(candidates,
			percentEncoded(v, unreserved+"!~*'()", false, upper),
			percentEncoded(v, unreserved+"~/", false, upper),
			percentEncoded(v, unreserved+"~", true, upper))
	}
	for _, f := range candidates {
		if !slices.Contains(forms, f) {
			forms = append(forms, f)
		}
	}
	return forms
}

// unreserved are the characters every percent-encoder leaves as they are.
const unreserved = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_."

// percentEncoded is v with every byte but those in keep written as %XX
// (lower-case hex unless upper), and a space as + when spacePlus.
func percentEncoded(v, keep string, spacePlus, upper bool) string {
	hex := "0123456789abcdef"
	if upper {
		hex = "0123456789ABCDEF"
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case strings.IndexByte(keep, c) >= 0:
			b.WriteByte(c)
		case c == ' ' && spacePlus:
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		}
	}
	return b.String()
}

// Known returns s with every value given to Secret replaced by Mask.
func Known(s string) string {
	secrets.RLock()
	defer secrets.RUnlock()
	for _, v := range secrets.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	return s
}
