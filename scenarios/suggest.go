package scenarios

import "strings"

// closest returns the candidate nearest to s by edit distance, or "" if
// none is near enough to be a likely misspelling. Case and the choice of
// '-' or '_' do not count as differences, so "crash-after-allocate" finds
// crash_after_allocate.
func closest(s string, candidates []string) string {
	norm := func(x string) string { return strings.ReplaceAll(strings.ToLower(x), "-", "_") }
	target := norm(s)
	best, bestDist := "", -1
	for _, c := range candidates {
		d := editDistance(target, norm(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	// Allow about one edit in three characters, at least two: "writer",
	// "writes" and "wrters" all find writers; "x" finds nothing.
	limit := max(2, len([]rune(target))/3)
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}

// didYouMean is closest as a message suffix.
func didYouMean(s string, candidates []string) string {
	if c := closest(s, candidates); c != "" {
		return " (did you mean " + c + "?)"
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Scenario keys are short; a long input (a fuzzer's) is cut so this
	// stays cheap.
	const maxLen = 64
	ra, rb = ra[:min(len(ra), maxLen)], rb[:min(len(rb), maxLen)]
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
