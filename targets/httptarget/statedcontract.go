package httptarget

import (
	"strings"

	"github.com/chatseq/chatseq/history"
)

// chatseq serve states the contract of the design it serves on the line
// after the one it says it listens on (httpapi.ListeningLine): "contract:
// gaps allowed, key_reuse return-original, …", then how to drive it. bench
// --serve adopts it where neither a flag nor a mapping states a field: the
// served ledger keeps gaps forbidden and per-client keys, and judged by
// chatseq's API's contract a gap it made passed.
const statedPrefix = "contract: "

// StatedContract is that line's statement of c, each field a mapping
// states (history.ContractFields' MappingStates) with its value.
func StatedContract(c history.Contract) string {
	var states []string
	for _, f := range history.ContractFields {
		if f.MappingStates {
			states = append(states, f.Name+" "+*f.Of(&c))
		}
	}
	return statedPrefix + strings.Join(states, ", ")
}

// parseStatedContract reads a line StatedContract began (white space
// around it and the text after a ';' aside): false when it is none, or
// names a field a mapping does not state, or a value its field does not
// allow. A field it leaves out stays "".
func parseStatedContract(line string) (history.Contract, bool) {
	var c history.Contract
	line, _, _ = strings.Cut(strings.TrimSpace(line), ";")
	rest, ok := strings.CutPrefix(line, statedPrefix)
	if !ok {
		return c, false
	}
	for _, state := range strings.Split(rest, ", ") {
		name, value, ok := strings.Cut(state, " ")
		f := history.LookupContractField(name)
		if !ok || f == nil || !f.MappingStates || !f.Allows(value) || *f.Of(&c) != "" {
			return history.Contract{}, false
		}
		*f.Of(&c) = value
	}
	return c, true
}
