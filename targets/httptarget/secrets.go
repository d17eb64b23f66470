package httptarget

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

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
			if _, cred, ok := strings.Cut(v, " "); ok {
				redact.Secret(cred)
			}
		}
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
