// Command chatseq is the chatseq command line; see README.md.
package main

import "github.com/chatseq/chatseq/cmd"

func main() { cmd.Main() }
