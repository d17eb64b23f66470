#!/usr/bin/env python3
# Writes a history of N chats (default 1,000,000), one acknowledged persist
# each (about 160 MB for a million). Before the fix, `chatseq check` of it
# made a 40 KB table block per chat: fatal "out of memory" with a runtime
# stack trace under `prlimit --as=8000000000` already at 300,000 chats
# (49 MB), and 5 GB resident, 25 s, for a million.
import sys
n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000000
out = open(sys.argv[2], "w") if len(sys.argv) > 2 else sys.stdout
w = out.write
w('{"format":"chatseq-history","version":1}\n')
for i in range(n):
    w('{"type":"invoke","process":1,"f":"persist","time":%d,"chat":"c%d","key":"k"}\n' % (i + 1, i))
    w('{"type":"ok","process":1,"f":"persist","time":%d,"seq":1,"message_id":"m"}\n' % (i + 1))
