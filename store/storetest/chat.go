package storetest

import (
	"errors"
	"fmt"

	"github.com/chatseq/chatseq/store"
)

func chatTests() []conformanceTest {
	return []conformanceTest{
		{"CreateChat/CounterAtZeroAndMembers", testCreateChat},
		{"CreateChat/SecondCallFailsAndChangesNothing", testCreateChatTwice},
		{"CreateChat/MoreMembersThanOneTransactionHolds", testCreateLargeChat},
		{"IsMember/PerChatAndUser", testIsMember},
	}
}

func testCreateChat(c *checker) {
	chat := c.chat("a")
	c.must(c.s.CreateChat(c.ctx, chat, []string{"alice", "bob"}), "CreateChat")
	for _, consistent := range []bool{true, false} {
		got, err := c.s.GetCounter(c.ctx, chat, consistent)
		c.must(err, "GetCounter")
		// An eventually consistent read may still miss a just-created
		// counter; it must never show another value.
		if consistent || !got.Missing {
			if got != (store.Counter{Chat: chat, Value: 0}) {
				c.failf("after CreateChat(%q): GetCounter(consistent=%v) = %+v, want value 0, present", chat, consistent, got)
			}
		}
	}
	for _, user := range []string{"alice", "bob"} {
		ok, err := c.s.IsMember(c.ctx, chat, user)
		c.must(err, "IsMember")
		if !ok {
			c.failf("after CreateChat(%q, [alice bob]): IsMember(%q) = false, want true", chat, user)
		}
	}
}

// A second CreateChat is one failed transaction: it must not reset the
// counter (that would re-issue sequences) nor add its members.
func testCreateChatTwice(c *checker) {
	chat := c.chat("a")
	c.must(c.s.CreateChat(c.ctx, chat, []string{"alice"}), "CreateChat")
	for i := 1; i <= 3; i++ {
		_, err := c.s.IncrementCounter(c.ctx, chat)
		c.must(err, "IncrementCounter")
	}
	err := c.s.CreateChat(c.ctx, chat, []string{"mallory"})
	if !errors.Is(err, store.ErrChatExists) {
		c.failf("second CreateChat(%q) error = %v, want ErrChatExists", chat, err)
	}
	got, err := c.s.GetCounter(c.ctx, chat, true)
	c.must(err, "GetCounter")
	if got.Missing || got.Value != 3 {
		c.failf("after a failed second CreateChat: counter = %+v, want value 3 (unchanged)", got)
	}
	ok, err := c.s.IsMember(c.ctx, chat, "mallory")
	c.must(err, "IsMember")
	if ok {
		c.failf("after a failed second CreateChat(%q, [mallory]): mallory is a member; the failed transaction must write nothing", chat)
	}
	ok, err = c.s.IsMember(c.ctx, chat, "alice")
	c.must(err, "IsMember")
	if !ok {
		c.failf("after a failed second CreateChat: alice is no longer a member")
	}
}

// A chat of 150 members (more than DynamoDB's 100-item transaction holds)
// is created whole, and a second call still changes nothing.
func testCreateLargeChat(c *checker) {
	chat := c.chat("large")
	members, others := make([]string, 150), make([]string, 150)
	for i := range members {
		members[i], others[i] = fmt.Sprintf("member-%03d", i), fmt.Sprintf("other-%03d", i)
	}
	c.must(c.s.CreateChat(c.ctx, chat, members), "CreateChat with 150 members")
	got, err := c.s.GetCounter(c.ctx, chat, true)
	c.must(err, "GetCounter")
	if got != (store.Counter{Chat: chat, Value: 0}) {
		c.failf("after CreateChat(%q, 150 members): counter = %+v, want value 0, present", chat, got)
	}
	for _, user := range []string{members[0], members[98], members[99], members[149]} {
		ok, err := c.s.IsMember(c.ctx, chat, user)
		c.must(err, "IsMember")
		if !ok {
			c.failf("after CreateChat(%q, 150 members): IsMember(%q) = false, want true", chat, user)
		}
	}
	if err := c.s.CreateChat(c.ctx, chat, others); !errors.Is(err, store.ErrChatExists) {
		c.failf("second CreateChat(%q, 150 other members) error = %v, want ErrChatExists", chat, err)
	}
	for _, user := range []string{others[0], others[149]} {
		ok, err := c.s.IsMember(c.ctx, chat, user)
		c.must(err, "IsMember")
		if ok {
			c.failf("after a failed second CreateChat(%q): %s is a member; it must write nothing", chat, user)
		}
	}
}

func testIsMember(c *checker) {
	a, b := c.chat("a"), c.chat("b")
	c.must(c.s.CreateChat(c.ctx, a, []string{"alice"}), "CreateChat a")
	c.must(c.s.CreateChat(c.ctx, b, []string{"bob"}), "CreateChat b")
	cases := []struct {
		chat, user string
		want       bool
	}{
		{a, "alice", true},
		{a, "bob", false},
		{b, "bob", true},
		{b, "alice", false},
		{c.chat("never-created"), "alice", false},
	}
	for _, tc := range cases {
		got, err := c.s.IsMember(c.ctx, tc.chat, tc.user)
		c.must(err, "IsMember")
		if got != tc.want {
			c.failf("IsMember(%q, %q) = %v, want %v", tc.chat, tc.user, got, tc.want)
		}
	}
}
