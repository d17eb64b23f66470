//go:build linux

// Package uring submits file writes through a Linux io_uring and reaps
// their completions without blocking: a goroutine waiting on a write
// submitted here sleeps, where one blocked in write(2) keeps its P, and
// with it one of the process's cores, for as long as the device takes.
//
// It is the least of io_uring that a writer of whole blocks needs: one
// ring, IORING_OP_WRITE, submission and completion. Where the kernel has
// no io_uring, or a sandbox (Docker's default seccomp profile) refuses it,
// New fails and the caller writes as it otherwise would.
package uring

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The kernel's ABI (include/uapi/linux/io_uring.h).
const (
	offSQRing = 0
	offCQRing = 0x8000000
	offSQEs   = 0x10000000

	featSingleMmap = 1 << 0
	opWrite        = 23
)

type sqOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type params struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqOffsets
	cqOff                                                                  cqOffsets
}

// sqe is a submission queue entry, 64 bytes.
type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	rwFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFDIn  int32
	addr3       uint64
	pad         uint64
}

// cqe is a completion queue entry, 16 bytes.
type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

// Ring is one io_uring. Its methods are not safe for concurrent use.
type Ring struct {
	fd             int
	sqMap, cqMap   []byte // cqMap is sqMap where the kernel maps both at once
	sqeMap         []byte
	sqHead, sqTail *uint32
	sqMask         uint32
	sqEntries      uint32
	sqArray        unsafe.Pointer // uint32 per entry
	sqes           unsafe.Pointer
	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           unsafe.Pointer
	inFlight       int
}

// New sets up a ring of at least entries submissions.
func New(entries uint32) (*Ring, error) {
	var p params
	fd, _, errno := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", errno)
	}
	r := &Ring{fd: int(fd), sqEntries: p.sqEntries}
	sqSize := int(p.sqOff.array) + int(p.sqEntries)*4
	cqSize := int(p.cqOff.cqes) + int(p.cqEntries)*int(unsafe.Sizeof(cqe{}))
	if p.features&featSingleMmap != 0 {
		sqSize = max(sqSize, cqSize)
	}
	var err error
	if r.sqMap, err = unix.Mmap(r.fd, offSQRing, sqSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		r.Close()
		return nil, fmt.Errorf("io_uring: mapping the submission ring: %w", err)
	}
	r.cqMap = r.sqMap
	if p.features&featSingleMmap == 0 {
		if r.cqMap, err = unix.Mmap(r.fd, offCQRing, cqSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
			r.cqMap = nil
			r.Close()
			return nil, fmt.Errorf("io_uring: mapping the completion ring: %w", err)
		}
	}
	if r.sqeMap, err = unix.Mmap(r.fd, offSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		r.Close()
		return nil, fmt.Errorf("io_uring: mapping the submission entries: %w", err)
	}
	sq, cq := unsafe.Pointer(&r.sqMap[0]), unsafe.Pointer(&r.cqMap[0])
	r.sqHead = (*uint32)(unsafe.Add(sq, p.sqOff.head))
	r.sqTail = (*uint32)(unsafe.Add(sq, p.sqOff.tail))
	r.sqMask = *(*uint32)(unsafe.Add(sq, p.sqOff.ringMask))
	r.sqArray = unsafe.Add(sq, p.sqOff.array)
	r.sqes = unsafe.Pointer(&r.sqeMap[0])
	r.cqHead = (*uint32)(unsafe.Add(cq, p.cqOff.head))
	r.cqTail = (*uint32)(unsafe.Add(cq, p.cqOff.tail))
	r.cqMask = *(*uint32)(unsafe.Add(cq, p.cqOff.ringMask))
	r.cqes = unsafe.Add(cq, p.cqOff.cqes)
	return r, nil
}

// ErrFull is Write's error when the ring holds as many writes as it has
// entries: reap one first.
var ErrFull = errors.New("io_uring: every entry is in flight")

// Write submits a write of p to fd at off, tagged tag. p must stay
// untouched, and must not be memory the Go collector may move or free
// (map it), until its completion is reaped.
func (r *Ring) Write(fd int, p []byte, off int64, tag uint64) error {
	if r.inFlight >= int(r.sqEntries) {
		return ErrFull
	}
	tail := atomic.LoadUint32(r.sqTail)
	i := tail & r.sqMask
	e := (*sqe)(unsafe.Add(r.sqes, uintptr(i)*unsafe.Sizeof(sqe{})))
	*e = sqe{opcode: opWrite, fd: int32(fd), off: uint64(off), len: uint32(len(p)), userData: tag}
	if len(p) > 0 {
		e.addr = uint64(uintptr(unsafe.Pointer(&p[0])))
	}
	*(*uint32)(unsafe.Add(r.sqArray, uintptr(i)*4)) = i
	atomic.StoreUint32(r.sqTail, tail+1) // the entry is written before the kernel may see it
	for {
		n, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), 1, 0, 0, 0, 0)
		switch {
		case errno == unix.EINTR:
			continue
		case errno != 0:
			atomic.StoreUint32(r.sqTail, tail) // not taken: withdraw it
			return fmt.Errorf("io_uring_enter: %w", errno)
		case n != 1:
			atomic.StoreUint32(r.sqTail, tail)
			return fmt.Errorf("io_uring_enter: the kernel took %d submissions of 1", n)
		}
		r.inFlight++
		return nil
	}
}

// InFlight is how many writes are submitted and not yet reaped.
func (r *Ring) InFlight() int { return r.inFlight }

// Reap returns a completed write's tag and result (bytes written, or a
// negated errno), or ok false if none has completed yet. It never blocks.
func (r *Ring) Reap() (tag uint64, res int32, ok bool) {
	head := atomic.LoadUint32(r.cqHead)
	if head == atomic.LoadUint32(r.cqTail) {
		return 0, 0, false
	}
	c := *(*cqe)(unsafe.Add(r.cqes, uintptr(head&r.cqMask)*unsafe.Sizeof(cqe{})))
	atomic.StoreUint32(r.cqHead, head+1) // read before the kernel may reuse it
	r.inFlight--
	return c.userData, c.res, true
}

// Close releases the ring. Writes still in flight complete, but are no
// longer reaped: reap them first.
func (r *Ring) Close() error {
	if r.sqeMap != nil {
		unix.Munmap(r.sqeMap)
	}
	if r.cqMap != nil && (r.sqMap == nil || &r.cqMap[0] != &r.sqMap[0]) {
		unix.Munmap(r.cqMap)
	}
	if r.sqMap != nil {
		unix.Munmap(r.sqMap)
	}
	r.sqeMap, r.cqMap, r.sqMap = nil, nil, nil
	if r.fd >= 0 {
		unix.Close(r.fd)
		r.fd = -1
	}
	return nil
}
