package redact

import (
	"strings"
	"testing"
)

func TestTextHidesEveryFormOfCredential(t *testing.T) {
	cases := []struct{ in, want string }{
		{"postgres://app:S3cret@db:5432/chat", "postgres://app:***@db:5432/chat"},
		{"--dsn=postgresql://app:S3cret@db/chat?sslmode=disable", "--dsn=postgresql://app:***@db/chat?sslmode=disable"},
		{"postgres://db/chat?user=app&password=S3cret&sslmode=require", "postgres://db/chat?user=app&password=***&sslmode=require"},
		{"host=db user=app password=S3cret dbname=chat", "host=db user=app password=*** dbname=chat"},
		{"host=db password='S3 cret\\'s' dbname=chat", "host=db password=*** dbname=chat"},
		{"sslpassword=S3cret host=db", "sslpassword=*** host=db"},
		{"PGPASSWORD=S3cret chatseq serve --target postgres", "PGPASSWORD=*** chatseq serve --target postgres"},
		{"env AWS_SECRET_ACCESS_KEY=S3cret AWS_SESSION_TOKEN=S3cret aws s3 ls", "env AWS_SECRET_ACCESS_KEY=*** AWS_SESSION_TOKEN=*** aws s3 ls"},
		{"MYSQL_PWD=S3cret mysql", "MYSQL_PWD=*** mysql"},
		{"server --password S3cret --port 1", "server --password *** --port 1"},
		{`curl -H "Authorization: Bearer S3cret" http://x`, `curl -H "Authorization: ***" http://x`},
		{`--serve "PGPASSWORD=S3cret sh"`, `--serve "PGPASSWORD=*** sh"`},
		{"--url http://S3cret@127.0.0.1:19255/v1", "--url http://***@127.0.0.1:19255/v1"},
		{"GET HTTPS://S3cret@api.example/x failed", "GET HTTPS://***@api.example/x failed"},
		{"wss://S3cret@push.example/v1/push", "wss://***@push.example/v1/push"},
		// An HTTP URL's user beside a password is hidden too: Basic
		// credentials whose user is the token (it was shown).
		{"--url https://S3cret:x-oauth-basic@api.example/v1", "--url https://***:***@api.example/v1"},
		{`Get "http://S3cret:***@127.0.0.1:1/v1/push"`, `Get "http://***:***@127.0.0.1:1/v1/push"`},
		// A value a pattern finds is hidden where it appears alone too:
		// a --serve command's output printed its second copy.
		{"password=S3cretPW token S3cretPW", "password=*** token ***"},
		{"host=db password='S3cret w' failed: S3cret w refused", "host=db password=*** failed: *** refused"},
		{"--url http://S3user:S3cretPW@h/ then S3cretPW and S3user", "--url http://***:***@h/ then *** and ***"},
		{"postgres://app:S3cretPW@db/chat, S3cretPW", "postgres://app:***@db/chat, ***"},
		// What must stay: plain words, URLs without a password, ports.
		{"http://127.0.0.1:8480/chats", "http://127.0.0.1:8480/chats"},
		{"postgres://app@db/chat", "postgres://app@db/chat"},
		{"--key-scope=client --sync-ratio=0.1", "--key-scope=client --sync-ratio=0.1"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
		if strings.Contains(Text(c.in), "S3cret") {
			t.Errorf("Text(%q) leaks the secret", c.in)
		}
	}
}

// A plain "pass" names a credential as a name's last word (DB_PASS,
// --db-pass), and nowhere else: an outside tester's --serve "env
// DB_PASS=hunter2 svc" reached results.json and the terminal, while
// --passes, PASSTHROUGH or bypass are no credentials.
func TestTextHidesAPassSettingButNotAPassWord(t *testing.T) {
	cases := []struct{ in, want string }{
		{"'--serve=env DB_PASS=S3cret svc -mode correct'", "'--serve=env DB_PASS=*** svc -mode correct'"},
		{"connecting with DB_PASS=S3cret2 --db-pass S3cret4", "connecting with DB_PASS=*** --db-pass ***"},
		{"SMTP_PASS=S3cret POSTGRES_PASS=S3cret mailer", "SMTP_PASS=*** POSTGRES_PASS=*** mailer"},
		{"server --pass S3cret -pass S3cret --pass=S3cret", "server --pass *** -pass *** --pass=***"},
		{"redis://h/0?user=app&pass=S3cret&db=1 redis.pass=S3cret db_Pass=S3cret", "redis://h/0?user=app&pass=***&db=1 redis.pass=*** db_Pass=***"},
		{"gpg --passphrase S3cret GPG_PASSPHRASE=S3cret", "gpg --passphrase *** GPG_PASSPHRASE=***"},
		// What must stay: words that begin or end with pass.
		{"--passes 3 --bypass on --pass-through X-Trace --passive true", "--passes 3 --bypass on --pass-through X-Trace --passive true"},
		{"PASSTHROUGH=1 PASS_THROUGH=1 BYPASS=yes compass=north --surpass=2", "PASSTHROUGH=1 PASS_THROUGH=1 BYPASS=yes compass=north --surpass=2"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n = %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestFlagHidesEveryHeaderValue(t *testing.T) {
	if got := Flag("header", "X-Service-Key: S3cret"); got != "X-Service-Key: ***" {
		t.Errorf("Flag(header) = %q", got)
	}
	if got := Flag("dsn", "postgres://a:S3cret@h/d"); got != "postgres://a:***@h/d" {
		t.Errorf("Flag(dsn) = %q", got)
	}
	if got := Flag("writers", "8"); got != "8" {
		t.Errorf("Flag(writers) = %q", got)
	}
}

// A credential chatseq was given is hidden wherever a text holds it,
// under no name at all (a service echoing it bare), the longest first so
// one holding another is hidden whole; a value too short to be one is
// left alone.
func TestSecretIsHiddenWhereverItAppears(t *testing.T) {
	Secret("  t0k3n-secret-ab  ")
	Secret("t0k3n-secret-ab-and-more")
	Secret("1")
	for in, want := range map[string]string{
		`{"message":"unknown key t0k3n-secret-ab"}`: `{"message":"unknown key ***"}`,
		"key t0k3n-secret-ab-and-more, again":       "key ***, again",
		"retry 1 of 1":                              "retry 1 of 1",
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
		if got := Known(in); got != want {
			t.Errorf("Known(%q) = %q, want %q", in, got, want)
		}
	}
}

// A secret is hidden in the forms a service echoes it in: escaped in a
// JSON string (Go's \u003c, PHP's \/) or in a URL. An outside tester's
// service echoing "k3y/91ab+d00d==" as k3y\/91ab+d00d== showed it.
func TestSecretIsHiddenEscaped(t *testing.T) {
	Secret("k3y/91ab+d00d==<x>")
	for _, in := range []string{
		`{"message":"unknown key k3y\/91ab+d00d==<x>"}`,
		`{"message":"unknown key k3y/91ab+d00d==\u003cx\u003e"}`,
		`{"message":"unknown key k3y\/91ab+d00d==\u003cx\u003e"}`,
		"GET /v1/x?key=k3y%2F91ab%2Bd00d%3D%3D%3Cx%3E",
		"GET /v1/k3y%2F91ab+d00d==%3Cx%3E",
	} {
		if got := Text(in); strings.Contains(got, "91ab") {
			t.Errorf("Text(%q) = %q: the secret shows", in, got)
		}
	}
}

// A secret is hidden in the percent-encodings of other languages'
// libraries, in either case of hex: an outside tester's service echoing
// "Bearer S3cr3t+tok/en=" as JavaScript's encodeURIComponent and
// Python's quote write it (Bearer%20S3cr3t%2Btok/en%3D) showed it.
func TestSecretIsHiddenPercentEncodedAsOtherLanguagesDo(t *testing.T) {
	Secret("Bearer S3cr3t+tok/en=")
	Secret("k3y&v@l ue")
	for _, in := range []string{
		"echo:Bearer%20S3cr3t%2Btok%2Fen%3D", // encodeURIComponent
		"echo:Bearer%20S3cr3t%2Btok/en%3D",   // quote
		"echo:Bearer+S3cr3t%2Btok%2Fen%3D",   // quote_plus, QueryEscape
		"echo:Bearer%20S3cr3t%2btok%2fen%3d", // lower-case hex
		"echo:k3y%26v%40l%20ue",              // encodeURIComponent, quote
		"echo:k3y%26v%40l+ue",                // quote_plus
	} {
		if got := Text(in); strings.Contains(got, "S3cr3t") || strings.Contains(got, "k3y") {
			t.Errorf("Text(%q) = %q: the secret shows", in, got)
		}
	}
}

// A value holding a credential is kept as a stand-in that shows none of
// it, equal for equal values and different for different ones; any other
// value is kept as it is.
func TestValueStandsInForACredentialAndKeepsEquality(t *testing.T) {
	const secret = "tok-value-7f3e"
	Secret(secret)
	a, b := Value(secret+"-m1"), Value(secret+"-m2")
	if strings.Contains(a, secret) || strings.Contains(b, secret) || !IsValue(a) {
		t.Fatalf("stand-ins %q, %q", a, b)
	}
	if a == b || a != Value(secret+"-m1") {
		t.Fatalf("stand-ins must keep equality: %q %q %q", a, b, Value(secret+"-m1"))
	}
	if v := Value("m-plain-1"); v != "m-plain-1" {
		t.Fatalf("a value without a credential became %q", v)
	}
}
