package dynamodblocal

import (
	"context"
	"fmt"
	"github.com/chatseq/chatseq/internal/proc"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// StartTimeout bounds the JVM start when the caller's context has no deadline;
// a cold start on a busy 2-core machine takes a few seconds.
const StartTimeout = 90 * time.Second

// stopGrace is how long Stop waits after SIGTERM before SIGKILL.
const stopGrace = 5 * time.Second

// Server is one running DynamoDB Local process (in memory, shared database).
type Server struct {
	endpoint string
	cmd      *exec.Cmd
	output   *proc.TailBuffer
	exited   chan struct{} // closed when the process has been reaped
	waitErr  error         // valid after exited is closed

	stopOnce sync.Once
	stopErr  error
}

// Start launches DynamoDB Local from jarDir on a free localhost port and
// returns once it answers ListTables. It runs the documented command line
// `java -Djava.library.path=./DynamoDBLocal_lib -jar DynamoDBLocal.jar
// -inMemory -sharedDb -port N` in jarDir, in its own process group so Stop can
// take down the JVM and anything it spawned.
func Start(ctx context.Context, jarDir string) (*Server, error) {
	if _, err := exec.LookPath("java"); err != nil {
		return nil, fmt.Errorf("dynamodblocal: java not found (DynamoDB Local needs Java 17+): %w; %s", err, InstallHint)
	}
	if _, hasDeadline := ctx.Deadline(); !hasDeadline {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, StartTimeout)
		defer cancel()
	}
	// Picking a free port and then handing it to the JVM leaves a small window
	// in which another process can take it; retry a few times if so.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := startOnce(ctx, jarDir)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, lastErr
}

func startOnce(ctx context.Context, jarDir string) (*Server, error) {
	port, err := proc.FreePort()
	if err != nil {
		return nil, fmt.Errorf("dynamodblocal: pick a port: %w", err)
	}
	cmd := exec.Command("java",
		"-Djava.library.path=./DynamoDBLocal_lib",
		"-jar", JarName,
		"-inMemory", "-sharedDb",
		"-port", strconv.Itoa(port))
	cmd.Dir = jarDir
	out := proc.NewTailBuffer(16 << 10)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = processGroupAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("dynamodblocal: start java in %s: %w", jarDir, err)
	}
	s := &Server{
		endpoint: "http://127.0.0.1:" + strconv.Itoa(port),
		cmd:      cmd,
		output:   out,
		exited:   make(chan struct{}),
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	if err := s.waitReady(ctx); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

// Endpoint is the base URL to give the SDK, e.g. http://127.0.0.1:34567.
func (s *Server) Endpoint() string { return s.endpoint }

// Stop terminates the process group and reaps the JVM; it is safe to call more
// than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		select {
		case <-s.exited:
			// It died on its own: report why, since nobody asked it to.
			s.stopErr = fmt.Errorf("dynamodblocal: process had already exited: %v; output:\n%s", s.waitErr, s.output.String())
			return
		default:
		}
		signalGroup(s.cmd, false)
		select {
		case <-s.exited:
		case <-time.After(stopGrace):
			signalGroup(s.cmd, true)
			<-s.exited
		}
	})
	return s.stopErr
}

// waitReady polls ListTables until the server answers, the process exits, or
// ctx ends.
func (s *Server) waitReady(ctx context.Context) error {
	client := dynamodb.New(dynamodb.Options{
		BaseEndpoint: aws.String(s.endpoint),
		Region:       "us-east-1",
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		// Polling is the retry loop here; the SDK's own retries would only
		// stretch each probe.
		RetryMaxAttempts: 1,
	})
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var lastErr error
	for {
		probeCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := client.ListTables(probeCtx, &dynamodb.ListTablesInput{Limit: aws.Int32(1)})
		cancel()
		if err == nil {
			return nil
		}
		lastErr = err
		select {
		case <-s.exited:
			return fmt.Errorf("dynamodblocal: process exited before answering (%v); output:\n%s", s.waitErr, s.output.String())
		case <-ctx.Done():
			return fmt.Errorf("dynamodblocal: not answering ListTables on %s: %w (last error: %v); output:\n%s",
				s.endpoint, ctx.Err(), lastErr, s.output.String())
		case <-tick.C:
		}
	}
}
