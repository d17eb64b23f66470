package checker

// NamePushAuthorization is the push channel's security promise: a device
// is pushed only chats its user is a member of, and nothing on a
// connection whose identity the server refused.
const NamePushAuthorization = "push_authorization"

// checkPushAuthorization: no push (streamed or caught up) of a chat to a
// device whose user had no join line for the chat before it, and no
// streamed push on a connection whose connect line says "refused": true.
// Both are decided while the lines are read (store.Delivery.Take). A push to
// a user after it left the chat is counted, not failed: it may have been
// in flight when the membership changed; one streamed on a connection
// opened after the leave fails, as nothing can be in flight on it. The counterexample is the push
// and its device's connect line.
func checkPushAuthorization(x *index) Result {
	v := newVerdict(NamePushAuthorization)
	if why := x.ReceiversAbsent(); why != "" {
		v.notApplicable("%s", why)
		return v.result()
	}
	d := x.Delivery
	if d.PushLines == 0 {
		v.notApplicable("no push line")
		return v.result()
	}
	if d.Joins == 0 && !d.AnyRefused {
		v.notApplicable("no join line and no refused connection: nothing to judge a push against (the history records no membership)")
		return v.result()
	}
	if d.Refused.N > 0 {
		v.fail(d.Refused.First, "%s on a connection whose identity was refused; the first at line %d (the connect at line %d refused it)",
			plural(d.Refused.N, "push line"), d.Refused.First[0], d.Refused.First[1])
	}
	if d.Joins > 0 && d.NonMember.N > 0 {
		v.fail(d.NonMember.First, "%s to a user who was not a member of the chat; the first at line %d (its device connected at line %d)",
			plural(d.NonMember.N, "push line"), d.NonMember.First[0], d.NonMember.First[1])
	}
	if d.Joins == 0 {
		v.note("no join line: membership is not judged, only refused connections")
	}
	if d.AfterLeave > 0 {
		v.note("%s pushed to users after they left the chat (not failed: they may have been in flight)", plural(d.AfterLeave, "message"))
	}
	v.pass("%s to %s: every one to a member, none on a refused connection", plural(d.PushLines, "push line"), plural(len(d.Devs), "device"))
	return v.result()
}
