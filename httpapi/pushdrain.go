package httpapi

import (
	"context"
	"sync"
)

// pushConns counts the push connections being served, so that a shutdown
// can wait for their close frames to go out.
type pushConns struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n reaches 0 while someone waits
}

func (c *pushConns) started() {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}

func (c *pushConns) ended() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n--
	if c.n == 0 && c.idle != nil {
		close(c.idle)
		c.idle = nil
	}
}

// DrainPush closes every push device (each connection closes with 1001,
// "the server is shutting down") and waits until their connections have
// closed, or ctx ends. net/http's Shutdown does not wait for them: they
// were hijacked.
func (s *Server) DrainPush(ctx context.Context) {
	if s.push == nil {
		return
	}
	s.push.Gateway.Close()
	s.pushing.mu.Lock()
	if s.pushing.n == 0 {
		s.pushing.mu.Unlock()
		return
	}
	if s.pushing.idle == nil {
		s.pushing.idle = make(chan struct{})
	}
	idle := s.pushing.idle
	s.pushing.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	}
}
