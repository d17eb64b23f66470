package checker

// StringHashForTest exposes stringHash to the external tests.
var StringHashForTest = stringHash
