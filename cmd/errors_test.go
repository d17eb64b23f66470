package cmd

import (
	"strings"
	"testing"
)

// Errors name the command once, suggest the flag meant, and say what a
// file that is no history is.
func TestErrorsSayWhatIsWrongOnce(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--duraton", "1s"}, "chatseq: bench: unknown flag: --duraton; did you mean --duration? (see 'chatseq bench --help')\n"},
		{[]string{"check", "x", "--lin"}, "did you mean --lin-"},
		{[]string{"check", "../README.md"}, "chatseq: ../README.md:1: not a chatseq history: invalid JSON at column 1"},
		{[]string{"check", "../go.mod"}, "not a chatseq history"},
		{[]string{"check", dir}, "chatseq: " + dir + " is a directory, not a history file\n"},
	}
	for _, c := range cases {
		code, _, errOut := run(t, c.args...)
		if code != ExitBadInput || !strings.Contains(errOut, c.want) {
			t.Errorf("chatseq %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
		if strings.Contains(errOut, "chatseq: chatseq") {
			t.Errorf("chatseq %s names chatseq twice: %q", strings.Join(c.args, " "), errOut)
		}
	}
}

// --store dynamodb-local says what it starts before the wait, and when it
// is ready.
func TestBenchSaysDynamoDBLocalIsStarting(t *testing.T) {
	hist := t.TempDir() + "/h.jsonl"
	code, _, errOut := run(t, "bench", "--store", "dynamodb-local", "--kafka", "off", "--writers", "2", "--chats", "2",
		"--ops", "20", "--duration", "0", "--quiet", "--history", hist)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	starting := strings.Index(errOut, "starting DynamoDB Local (java -jar ")
	ready := strings.Index(errOut, "DynamoDB Local ready at http://127.0.0.1:")
	if starting < 0 || ready < starting {
		t.Fatalf("stderr does not say DynamoDB Local is starting, then ready:\n%s", errOut)
	}
}
