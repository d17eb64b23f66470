package httpapi_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/chatseq/chatseq/gateway"
	"github.com/chatseq/chatseq/httpapi"
)

// frameServerEnv, set, makes this test binary a frame server instead
// (TestMain): BenchmarkReceivePath's sender runs in another process, so
// the benchmark's CPU time is the receiving side's alone.
const frameServerEnv = "CHATSEQ_PUSH_FRAME_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(frameServerEnv) == "1" {
		serveFrames()
		return
	}
	os.Exit(m.Run())
}

// serveFrames prints its address and, to each connection, sends
// the Frames header's count of frames of Per messages each (as /v1/push encodes them),
// then closes normally; it reads the device's acks meanwhile.
func serveFrames() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String())
	_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		frames, _ := strconv.Atoi(r.Header.Get("Frames"))
		per, _ := strconv.Atoi(r.Header.Get("Per"))
		conn, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		ctx := r.Context()
		go func() { // answers pings and takes acks
			for {
				if _, _, err := conn.Read(ctx); err != nil {
					return
				}
			}
		}()
		var frame []byte
		seq := uint64(0)
		for i := 0; i < frames; i++ {
			frame = frame[:0]
			frame = append(frame, `{"type":"messages","messages":[`...)
			for j := 0; j < per; j++ {
				seq++
				if j > 0 {
					frame = append(frame, ',')
				}
				frame = fmt.Appendf(frame, `{"chat_id":"chat-%d","sequence":%d,"message_id":"01HQXYZ%013d","sender_id":"user-%d","content":"%s","content_type":"text/plain","created_at":"2026-01-30T14:30:00.123456789Z"}`,
					seq%7, seq, seq, seq%10, strings.Repeat("x", 100))
			}
			frame = append(frame, "]}"...)
			if err := conn.Write(ctx, websocket.MessageText, frame); err != nil {
				return
			}
		}
		_ = conn.Close(websocket.StatusNormalClosure, "")
	}))
}

// startFrameServer runs this binary as the frame server.
func startFrameServer(b *testing.B) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), frameServerEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "error:") {
		b.Fatalf("the frame server did not start: %q %v", line, err)
	}
	return "http://" + strings.TrimSpace(line)
}

// cpuTime is this process's user and system CPU time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReceivePath sets chatseq's receive path (PushConn: read, decode
// each frame into messages, ack every 100 messages) beside a bare read
// loop of the same library on the same frames from another process, and
// reports each one's CPU per delivery and their ratio (the delivery
// plane's issue asks at most 1.25).
func BenchmarkReceivePath(b *testing.B) {
	base := startFrameServer(b)
	for _, per := range []int{1, 16} {
		b.Run(fmt.Sprintf("messages-per-frame=%d", per), func(b *testing.B) {
			frames := max(b.N/per, 1)
			deliveries := float64(frames * per)
			ctx := context.Background()
			h := http.Header{"Frames": {strconv.Itoa(frames)}, "Per": {strconv.Itoa(per)}}

			conn, _, err := websocket.Dial(ctx, base+httpapi.PushPath, &websocket.DialOptions{HTTPHeader: h})
			if err != nil {
				b.Fatal(err)
			}
			conn.SetReadLimit(httpapi.MaxPushFrame)
			b.ResetTimer()
			start := cpuTime(b)
			for {
				if _, _, err := conn.Read(ctx); err != nil {
					if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
						b.Fatal(err)
					}
					break
				}
			}
			bare := float64(cpuTime(b)-start) / deliveries

			pc, err := httpapi.DialPush(ctx, base, "u", httpapi.PushDialOptions{Header: h})
			if err != nil {
				b.Fatal(err)
			}
			start = cpuTime(b)
			got := 0
			for {
				ms, err := pc.Next(ctx)
				if err != nil {
					if websocket.CloseStatus(err) != websocket.StatusNormalClosure {
						b.Fatal(err)
					}
					break
				}
				for _, m := range ms {
					got++
					if got%100 == 0 {
						_ = pc.Ack(ctx, m.ChatID, m.Sequence)
					}
				}
			}
			push := float64(cpuTime(b)-start) / deliveries
			b.StopTimer()
			if got != frames*per {
				b.Fatalf("the receive path got %d messages of %d", got, frames*per)
			}
			b.ReportMetric(bare, "bare-cpu-ns/delivery")
			b.ReportMetric(push, "push-cpu-ns/delivery")
			b.ReportMetric(push/bare, "cpu-ratio")
		})
	}
}

// BenchmarkPushFanOut fans messages out to 1000 devices (100 chats of 10
// members) connected over loopback WebSockets and reports deliveries/s:
// each op is one message delivered to the gateway, reaching its chat's
// ten devices, which read and decode it (PushConn).
func BenchmarkPushFanOut(b *testing.B) {
	const chats, members = 100, 10
	gw := gateway.New(gateway.Config{})
	defer gw.Close()
	srv := httptest.NewServer(httpapi.NewServer(nil).WithPush(&httpapi.Push{Gateway: gw, States: &gateway.MemoryDeliveryStore{}}).Handler())
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var received atomic.Int64
	var wg sync.WaitGroup
	for c := 0; c < chats; c++ {
		var users []string
		for m := 0; m < members; m++ {
			users = append(users, fmt.Sprintf("u%d-%d", c, m))
		}
		gw.SetMembers(fmt.Sprint("c", c), users)
		for _, u := range users {
			d, err := httpapi.DialPush(ctx, srv.URL, u, httpapi.PushDialOptions{})
			if err != nil {
				b.Fatal(err)
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer d.CloseNow()
				for {
					ms, err := d.Next(ctx)
					if err != nil {
						return
					}
					received.Add(int64(len(ms)))
				}
			}()
		}
	}
	content := strings.Repeat("x", 100)
	b.ResetTimer()
	start := time.Now()
	var seq uint64
	for i := 0; i < b.N; {
		// In rounds of one message per chat, at most 50 rounds ahead of
		// the devices: the queues never overflow.
		for int64(i)*members-received.Load() > 50*chats*members {
			time.Sleep(100 * time.Microsecond)
		}
		seq++
		round := make([]*gateway.Message, 0, chats)
		for c := 0; c < chats && i < b.N; c, i = c+1, i+1 {
			round = append(round, &gateway.Message{ChatID: fmt.Sprint("c", c), Sequence: seq, MessageID: fmt.Sprint(c, "-", seq), SenderID: "u", Content: content, CreatedAt: start})
		}
		gw.Deliver(ctx, round)
	}
	want := int64(b.N) * members
	for received.Load() < want {
		time.Sleep(100 * time.Microsecond)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if s := gw.Stats(); s.Overflows != 0 || s.Dropped != 0 {
		b.Fatalf("stats %+v: devices overflowed", s)
	}
	b.ReportMetric(float64(want)/elapsed.Seconds(), "deliveries/s")
	cancel()
	wg.Wait()
}
