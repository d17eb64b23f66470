package cmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/chatseq/chatseq/internal/textwidth"
)

// examples are each command's Examples section, by command path. Every
// command has one (TestEveryCommandHasExamples): add a new command's here.
var examples = map[string]string{
	"chatseq": `  chatseq bench                             # 3 s on the embedded store, checked
  chatseq check chatseq-history.jsonl       # judge a history (anyone's) again
  chatseq run scenarios --junit junit.xml   # the scenario suite, as CI runs it`,
	"chatseq bench": `  chatseq bench
  chatseq bench --duration 60s --out runs/a       # keeps report.html and more
  chatseq bench --rate 5000 --readers 4           # open loop, catch-up clients
  chatseq bench --target memory,postgres,ledger   # then a side-by-side table
  chatseq bench --broken racy-counter             # caught: exit 1
  chatseq bench --duration 60s --metrics-addr :9464   # live Prometheus metrics
  chatseq bench --threshold 'allocate.p99 < 1ms' --format json`,
	"chatseq check": `  chatseq check chatseq-history.jsonl
  chatseq check h.jsonl --require sync_completeness   # exit 3 without a sync
  chatseq check shard-0.jsonl shard-1.jsonl           # one run's shards as one
  chatseq check h.jsonl --gaps forbidden --format json`,
	"chatseq run": `  chatseq run                          # every scenario under ./scenarios
  chatseq run scenarios/broken --junit junit.xml
  chatseq run scenarios/adr004/d1-basic-allocation.yaml --seed 42 --writers 2
  chatseq run scenarios/broken/racy-counter.yaml --shrink   # a smaller run
  chatseq run scenarios --retries 2   # rerun threshold-only failures`,
	"chatseq setup": `  chatseq setup --endpoint http://localhost:8000 --table-prefix p_
  chatseq setup --region eu-west-1 --profile staging --table-prefix loadtest_`,
	"chatseq teardown": `  chatseq teardown --endpoint http://localhost:8000 --table-prefix p_`,
	"chatseq recover": `  chatseq recover --endpoint http://localhost:8000 --chat chat-0007   # dry run
  chatseq recover --endpoint http://localhost:8000 --chat chat-0007 --apply`,
	"chatseq drill": `  chatseq drill counter-recovery
  chatseq drill unsafe-recovery --case all`,
	"chatseq drill counter-recovery": `  chatseq drill counter-recovery                  # on the embedded store
  chatseq drill counter-recovery --store dynamodb-local --history drill.jsonl
  chatseq drill counter-recovery --metrics-addr :9464 --hold 30s --rate 200`,
	"chatseq alerts": `  chatseq alerts > chatseq-alerts.yml && promtool check rules chatseq-alerts.yml
  chatseq alerts --window 30s            # for drills measured in seconds`,
	"chatseq drill unsafe-recovery": `  chatseq drill unsafe-recovery --case all`,
	"chatseq report":                `  chatseq bench --duration 10s --out runs/a && chatseq report runs/a`,
	"chatseq dynamodb-local": `  chatseq dynamodb-local start --port 8000
  chatseq setup --endpoint http://localhost:8000 --table-prefix p_
  chatseq dynamodb-local stop --port 8000`,
	"chatseq dynamodb-local start": `  chatseq dynamodb-local start --port 8000`,
	"chatseq dynamodb-local stop":  `  chatseq dynamodb-local stop --port 8000`,
	"chatseq serve": `  chatseq serve                              # memory's core on 127.0.0.1:8480
  chatseq serve --target postgres --listen 127.0.0.1:0
  chatseq bench --target http --url http://127.0.0.1:8480`,
	"chatseq compare": `  chatseq compare runs/a runs/b
  chatseq compare runs/a runs/b --tolerance 5% --metrics throughput,p99
  chatseq compare runs/a1 runs/a2 runs/a3 --vs runs/b1 runs/b2 runs/b3`,
}

// helpWidth is the width help text is wrapped to: the terminal's, else 80.
func helpWidth() int {
	if width, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && width > 20 {
		return width - 1
	}
	return 80
}

// commandLine is a subcommand's line in its parent's help: its name, and
// its short text wrapped under itself.
func commandLine(c *cobra.Command) string {
	indent := 2 + c.NamePadding() + 1
	lines := textwidth.Wrap(c.Short, helpWidth()-indent)
	pad := strings.Repeat(" ", indent)
	return fmt.Sprintf("%-*s %s", c.NamePadding(), c.Name(), strings.Join(lines, "\n"+pad))
}

// applyHelp gives every command under root its examples and wraps flag
// texts to the terminal (pflag's own FlagUsagesWrapped), so no usage line
// runs hundreds of columns.
func applyHelp(root *cobra.Command) {
	cobra.AddTemplateFunc("wrappedFlags", func(fs *pflag.FlagSet) string { return fs.FlagUsagesWrapped(helpWidth()) })
	tmpl := root.UsageTemplate()
	tmpl = strings.ReplaceAll(tmpl, ".LocalFlags.FlagUsages", "wrappedFlags .LocalFlags")
	tmpl = strings.ReplaceAll(tmpl, ".InheritedFlags.FlagUsages", "wrappedFlags .InheritedFlags")
	cobra.AddTemplateFunc("commandLine", commandLine)
	tmpl = strings.ReplaceAll(tmpl, "{{rpad .Name .NamePadding }} {{.Short}}", "{{commandLine .}}")
	// cobra's closing line runs past 80 columns under a long command path.
	tmpl = strings.ReplaceAll(tmpl, `Use "{{.CommandPath}} [command] --help" for more information about a command.`, `Run '{{.CommandPath}} COMMAND --help' for a command's own help.`)
	root.SetUsageTemplate(tmpl)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if ex, ok := examples[c.CommandPath()]; ok {
			c.Example = ex
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
