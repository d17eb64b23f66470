package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/chatseq/chatseq/storeopen"
	"github.com/chatseq/chatseq/targets"
	"github.com/chatseq/chatseq/targets/httptarget"
	"github.com/chatseq/chatseq/targets/ledger"
	"github.com/chatseq/chatseq/targets/postgres"
)

// targetFlag is a flag only some targets read. A flag given to a command
// none of whose targets reads it would be ignored in silence, and a run
// would seem to have used it: bench, serve, run and drill refuse it
// (exit 2) from this one table.
type targetFlag struct {
	readers []string // the targets that read it
	who     string   // those targets, as the refusal names them
	// setting: the flag changes what a run does and its report states it,
	// so every target named must read it (a side-by-side run's other
	// target would run without it under a header that claims it).
	// Otherwise the flag says how to reach a target, and one target named
	// that reads it is enough (--target memory,postgres --dsn URL).
	setting bool
	why     string // optional: what the other targets do instead
}

var (
	httpOnly     = []string{httptarget.Name}
	coreOnly     = slices.DeleteFunc(targets.Names(), func(n string) bool { return !targets.RunsCore(n) })
	dynamoDB     = []string{storeopen.DynamoDB, storeopen.DynamoDBLocal}
	dynamoDBOnly = []string{storeopen.DynamoDB}
	postgreSQL   = []string{postgres.Name}
	// publishers: the designs with an event stream (the ledger has
	// none); inProcessKafka: those of them whose events this process
	// publishes (--target http's service publishes to its own Kafka).
	publishers     = slices.DeleteFunc(targets.Names(), func(n string) bool { return n == ledger.Name })
	inProcessKafka = slices.DeleteFunc(slices.Clone(publishers), func(n string) bool { return n == httptarget.Name })
)

const (
	httpWho     = "--target http"
	coreWho     = "ADR-004's core (targets memory, dynamodb, dynamodb-local)"
	postgresWho = "PostgreSQL targets (postgres)"
	noEvents    = "the ledger publishes no events"
)

// targetFlags maps a flag's name to the targets that read it. A command
// consults the entries of the flags it has.
var targetFlags = map[string]targetFlag{
	// How target http reaches the service.
	"url":              {readers: httpOnly, who: httpWho},
	"api":              {readers: httpOnly, who: httpWho},
	"serve":            {readers: httpOnly, who: httpWho},
	"nemesis-cmd":      {readers: httpOnly, who: httpWho},
	"kill-every":       {readers: httpOnly, who: httpWho},
	"header":           {readers: httpOnly, who: httpWho},
	"insecure":         {readers: httpOnly, who: httpWho},
	"ca-cert":          {readers: httpOnly, who: httpWho},
	"client-cert":      {readers: httpOnly, who: httpWho},
	"client-key":       {readers: httpOnly, who: httpWho},
	"http-timeout":     {readers: httpOnly, who: httpWho},
	"max-answer-bytes": {readers: httpOnly, who: httpWho},
	// How PostgreSQL targets are reached and served.
	"dsn":         {readers: postgreSQL, who: postgresWho},
	"schema":      {readers: postgreSQL, who: postgresWho},
	"connections": {readers: postgreSQL, who: postgresWho, why: "no other target has a connection pool"},
	// How DynamoDB is reached: dynamodb-local starts its own at an
	// endpoint of its choosing, with no region or profile to pick.
	"endpoint":         {readers: dynamoDBOnly, who: "--target dynamodb (dynamodb-local starts its own)"},
	"region":           {readers: dynamoDBOnly, who: "--target dynamodb (dynamodb-local starts its own)"},
	"profile":          {readers: dynamoDBOnly, who: "--target dynamodb (dynamodb-local starts its own)"},
	"allow-remote":     {readers: dynamoDBOnly, who: "--store dynamodb (the others run on this machine)"},
	"sdk-max-attempts": {readers: dynamoDB, who: "the DynamoDB targets (dynamodb, dynamodb-local)"},
	"table-prefix":     {readers: dynamoDB, who: "the DynamoDB targets (dynamodb, dynamodb-local)"},
	// Step 5's Kafka: which one (--kafka embedded or off) for the designs
	// this process publishes for; the topic and its partitions for every
	// design with events (--target http reads its service's topic back
	// from --brokers, creating it if absent).
	"kafka": {readers: inProcessKafka, who: "targets whose events this process publishes (" + strings.Join(inProcessKafka, ", ") + ")",
		why: "--target http's service publishes to its own Kafka, read back only with --brokers; " + noEvents},
	"topic":      {readers: publishers, who: "targets that publish events (" + strings.Join(publishers, ", ") + ")", why: noEvents},
	"partitions": {readers: publishers, who: "targets that publish events (" + strings.Join(publishers, ", ") + ")", why: noEvents},
	// ADR-004's core's own settings and faults.
	"strategy":             {readers: coreOnly, who: coreWho, setting: true, why: "it allocates its own way"},
	"republish-on-replay":  {readers: coreOnly, who: coreWho, setting: true, why: "ADR-004 §10's replay is its core's"},
	"store-throttle":       {readers: coreOnly, who: coreWho, setting: true, why: "store errors are DynamoDB's, which it does not inject"},
	"store-internal-error": {readers: coreOnly, who: coreWho, setting: true, why: "store errors are DynamoDB's, which it does not inject"},
	"txn-canceled-other":   {readers: coreOnly, who: coreWho, setting: true, why: "store errors are DynamoDB's, which it does not inject"},
	"slow-commit":          {readers: coreOnly, who: coreWho, setting: true, why: "the window between allocation and commit is two-phase allocation's"},
	"slow-commit-delay":    {readers: coreOnly, who: coreWho, setting: true, why: "the window between allocation and commit is two-phase allocation's"},
	"txn-cancelled-other":  {readers: coreOnly, who: coreWho, setting: true, why: "store errors are DynamoDB's, which it does not inject"},
}

// The contract's fields a service states (--key-scope, --key-reuse, …)
// are --target http's: the other targets state their own contract.
func init() {
	for _, cf := range serviceStatedFields() {
		targetFlags[cf.Flag] = targetFlag{readers: httpOnly, who: httpWho, setting: true, why: "the other targets state their own contract (docs/targets.md)"}
	}
}

// refuseIgnoredFlags refuses a flag given on the command line that the
// targets it drives would ignore: a setting any of them ignores, or a way
// of reaching a target that none of them reads. targetNames are bench's
// --target list, or serve's or drill's one target.
func refuseIgnoredFlags(fl *pflag.FlagSet, targetNames []string) error {
	return refuseFlags(fl, targetNames, func(tf targetFlag, ignoring int) bool {
		return ignoring > 0 && (tf.setting || ignoring == len(targetNames))
	})
}

// refuseFlagsNoScenarioReads refuses a flag of run that none of the
// scenarios' targets reads: each scenario runs against its own target,
// and one of a directory's scenarios reading it is enough.
func refuseFlagsNoScenarioReads(fl *pflag.FlagSet, scenarioTargets []string) error {
	return refuseFlags(fl, scenarioTargets, func(_ targetFlag, ignoring int) bool {
		return ignoring == len(scenarioTargets)
	})
}

// refuseFlags refuses the first flag given (by name) whose targets that
// would ignore it the rule refuses.
func refuseFlags(fl *pflag.FlagSet, targetNames []string, refuse func(tf targetFlag, ignoring int) bool) error {
	var refusal error
	fl.Visit(func(flag *pflag.Flag) { // sorted by name: the refusal is stable
		tf, ok := targetFlags[flag.Name]
		if !ok || refusal != nil {
			return
		}
		var ignoring []string
		for _, n := range targetNames {
			if !slices.Contains(tf.readers, n) {
				ignoring = append(ignoring, n)
			}
		}
		if !refuse(tf, len(ignoring)) {
			return
		}
		subject := "target " + ignoring[0]
		if len(ignoring) > 1 {
			subject = "targets " + strings.Join(ignoring, ", ")
		}
		msg := fmt.Sprintf("--%s applies only to %s; %s would ignore it", flag.Name, tf.who, subject)
		if tf.why != "" {
			msg += " (" + tf.why + ")"
		}
		refusal = badInput("%s", msg)
	})
	return refusal
}
