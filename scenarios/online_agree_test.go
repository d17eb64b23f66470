package scenarios

import "github.com/chatseq/chatseq/checker/checkertest"

// onlineDisagreement says how a scenario run's online verdict contradicts
// its offline one (checkertest.OnlineDisagreement's rule), "" when they
// agree. Every variant of the in-process targets is held to it in
// targets/all (TestOnlineAgreesWithOfflineOnEveryVariant).
func onlineDisagreement(o *Outcome) string {
	return checkertest.OnlineDisagreement(o.Check, o.Online, o.History)
}
