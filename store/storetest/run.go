// Package storetest is the conformance suite every store.Store must pass,
// unchanged for every store, so the embedded store and DynamoDB keep the same
// item semantics. Each failure names the store (its Go type) and what
// disagreed, so when two stores part ways the suite says where.
//
// Usage, in the store's package:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store { return memstore.New() })
//	}
//
// open is called once per subtest and may return a fresh store or one shared
// store: every subtest uses chat ids unique to this run and subtest, and the
// subtests run in parallel. The suite never calls Close; a store that needs
// closing should be closed by open's t.Cleanup or by whoever shares it.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chatseq/chatseq/store"
)

// subtestTimeout keeps a hung store from stalling the whole test binary.
const subtestTimeout = 2 * time.Minute

type conformanceTest struct {
	name string
	fn   func(c *checker)
}

// tests lists every check, grouped by the Store method they are about.
func tests() []conformanceTest {
	var all []conformanceTest
	all = append(all, chatTests()...)
	all = append(all, counterTests()...)
	all = append(all, transactTests()...)
	all = append(all, queryTests()...)
	return all
}

// Run runs the suite against the stores open returns.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	run := newRunID()
	for _, tc := range tests() {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := open(t)
			if s == nil {
				t.Fatal("open returned a nil store")
			}
			ctx, cancel := context.WithTimeout(context.Background(), subtestTimeout)
			defer cancel()
			tc.fn(&checker{
				T:          t,
				ctx:        ctx,
				s:          s,
				name:       fmt.Sprintf("%T", s),
				chatPrefix: run + "-" + strings.ReplaceAll(tc.name, "/", "."),
			})
		})
	}
}

// checker is one subtest's handle: the store, a context, and reporting that
// names the store.
type checker struct {
	*testing.T
	ctx        context.Context
	s          store.Store
	name       string
	chatPrefix string
}

// chat returns a chat id unique to this run and subtest.
func (c *checker) chat(suffix string) string { return c.chatPrefix + "-" + suffix }

// failf reports a disagreement, prefixed with the store's name, and goes on.
func (c *checker) failf(format string, args ...any) {
	c.Helper()
	c.Errorf("%s: %s", c.name, fmt.Sprintf(format, args...))
}

// fatalf reports a disagreement that makes the rest of the subtest moot.
func (c *checker) fatalf(format string, args ...any) {
	c.Helper()
	c.Fatalf("%s: %s", c.name, fmt.Sprintf(format, args...))
}

// must stops the subtest on an unexpected error from a setup call.
func (c *checker) must(err error, call string) {
	c.Helper()
	if err != nil {
		c.fatalf("%s: unexpected error: %v", call, err)
	}
}

func newRunID() string {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return "st" + hex.EncodeToString(b[:])
}
