package httptarget

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/chatseq/chatseq/internal/redact"
)

// The credentials a run is given are hidden wherever a service echoes
// them in an answer chatseq quotes (redact.Secret), as on the command
// line: Open registers both kinds, before anything is sent.

// secretHeader hides every --header value (a token, an API key), and a
// "Bearer TOKEN" value's token alone too.
func secretHeader(h http.Header) {
	for _, vs := range h {
		for _, v := range vs {
			redact.Secret(v)
			if scheme, cred, ok := strings.Cut(v, " "); ok {
				redact.Secret(cred)
				if strings.EqualFold(scheme, "Basic") {
					secretBasic(strings.TrimSpace(cred))
				}
			}
		}
	}
}

// secretBasic hides what a "Basic" value's base64 stands for, as
// secretUserinfo hides a URL's: a service echoing the decoded
// user:password (a refusal naming who was refused) showed it in clear.
func secretBasic(cred string) {
	b, err := base64.StdEncoding.DecodeString(cred)
	if err != nil {
		// Some clients leave the padding out.
		if b, err = base64.RawStdEncoding.DecodeString(cred); err != nil {
			return
		}
	}
	if !utf8.Valid(b) {
		return // no user:password, a token that happens to be base64
	}
	redact.Secret(string(b))
	user, pass, _ := strings.Cut(string(b), ":")
	if pass != "" {
		redact.Secret(pass)
	} else {
		redact.Secret(user)
	}
}

// secretUserinfo hides the credentials of u's userinfo: the password, a
// user given alone (a token), and the Basic credentials the client sends
// for them.
func secretUserinfo(u *url.URL) {
	if u.User == nil {
		return
	}
	user := u.User.Username()
	pass, hasPass := u.User.Password()
	if hasPass {
		redact.Secret(pass)
	} else {
		redact.Secret(user)
	}
	redact.Secret(base64.StdEncoding.EncodeToString([]byte(user + ":" + pass)))
}
