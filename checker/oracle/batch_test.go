package oracle

import (
	"bytes"
	"fmt"
	"strings"
)

const batchSize = 24

type seeded struct {
	h    *gHist
	seed uint64
}

// batchClass: histories of one class judged together keep their verdicts
// (the header, and which tables were read, are the whole file's; what
// sync ok lines show of each message is written as the merge's first
// history says).
func (h *gHist) batchClass() string {
	data := h.encode()
	header := string(data[:bytes.IndexByte(data, '\n')])
	var tables []string
	for _, t := range []string{"counters", "messages", "idempotency"} {
		read := h.tableRead && h.read[t]
		for _, f := range h.finals {
			read = read || f.table == t
		}
		if read {
			tables = append(tables, t)
		}
	}
	return fmt.Sprintf("%s %v %v say %d", header, h.tableRead, tables, h.say)
}

// mergeHistories makes one history of a batch, each history's chats and
// processes renamed apart.
func mergeHistories(batch []seeded) *gHist {
	out := batch[0].h.clone()
	out.ops, out.finals = nil, nil
	for bi, b := range batch {
		prefix := fmt.Sprintf("b%d.", bi)
		for _, op := range b.h.clone().ops {
			op.chat = prefix + op.chat
			op.process += 1000 * bi
			out.ops = append(out.ops, op)
		}
		for _, f := range b.h.finals {
			f.chat = prefix + f.chat
			out.finals = append(out.finals, f)
		}
	}
	return out
}

// onlyChats keeps the operations and final lines of the chats named with
// prefix.
func (h *gHist) onlyChats(prefix string) *gHist {
	out := h.clone()
	out.ops, out.finals = nil, nil
	for _, op := range h.clone().ops {
		if strings.HasPrefix(op.chat, prefix) {
			out.ops = append(out.ops, op)
		}
	}
	for _, f := range h.finals {
		if strings.HasPrefix(f.chat, prefix) {
			out.finals = append(out.finals, f)
		}
	}
	return out
}
