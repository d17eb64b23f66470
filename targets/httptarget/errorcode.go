package httptarget

import (
	"sync"

	"github.com/chatseq/chatseq/internal/termsafe"
)

// A service names its errors' codes (error.cause, or the mapping's
// error_code path), and chatseq records each in the history and counts
// runs by them: in the report, results.json's totals and intervals, and a
// live metric's label. A code is a name; a service's is taken as it is
// only when it looks like one, so that one of 100 KB (which the history
// refuses, so the run's verdict was not the one chatseq check gives its
// file) or with a newline or an escape in it, or a new code for every
// answer, costs no more than a handful of names.
const (
	// maxCodeBytes is the longest code taken as given.
	maxCodeBytes = 64
	// maxServiceCodes is how many distinct codes of a service's a run
	// takes as given; a code seen after them is counted as codeOther.
	maxServiceCodes = 64
	// codeUnreadable stands for a code that is no name: too long, or not
	// termsafe.Plain (empty, or a byte other than printable ASCII without
	// spaces, quotes or backslashes).
	codeUnreadable = "unreadable_error_code"
	// codeOther stands for each code past the first maxServiceCodes.
	codeOther = "other_error_code"
)

// serviceCodes is the codes a run's service has named so far.
type serviceCodes struct {
	mu   sync.Mutex
	seen map[string]bool
}

// take is code as the run records it.
func (s *serviceCodes) take(code string) string {
	if !isCodeName(code) {
		return codeUnreadable
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[code] {
		return code
	}
	if len(s.seen) >= maxServiceCodes {
		return codeOther
	}
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	s.seen[code] = true
	return code
}

func isCodeName(code string) bool {
	return len(code) <= maxCodeBytes && termsafe.Plain(code)
}
