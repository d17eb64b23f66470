package delivery

// shrink makes a history smaller while keep still holds of it: it drops
// lines one at a time (a final line together with one of its table's
// table_read count, so the table is not cut short; never the end line),
// single messages of push lines, and the header's initial_counter and
// sole_writer, until no single step keeps keep true. keep must also
// demand that chatseq's reader accepts the history.
func shrink(d doc, keep func(doc) bool) doc {
	for changed := true; changed; {
		changed = false
		if d.hdr.InitialCounter != nil {
			c := d.clone()
			c.hdr.InitialCounter = nil
			if keep(c) {
				d, changed = c, true
			}
		}
		if d.hdr.SoleWriter {
			c := d.clone()
			c.hdr.SoleWriter = false
			if keep(c) {
				d, changed = c, true
			}
		}
		for i := len(d.lines) - 1; i >= 0; i-- {
			if i >= len(d.lines) {
				continue
			}
			if d.lines[i].Type == tEnd {
				continue // keep the file complete: a cut-short file is another question
			}
			c := d.clone()
			l := c.lines[i]
			remove(&c, i)
			if keep(c) {
				d, changed = c, true
				continue
			}
			if l.Type == tFinal {
				bumpTableRead(&c, l.Table, -1)
				if keep(c) {
					d, changed = c, true
					continue
				}
			}
			if l.Type == tPush && len(l.Seqs) > 1 {
				for k := len(l.Seqs) - 1; k >= 0; k-- {
					c := d.clone()
					removeEntry(&c.lines[i], k)
					if keep(c) {
						d, changed = c, true
					}
				}
			}
		}
	}
	return d
}
