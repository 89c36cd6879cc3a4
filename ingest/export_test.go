package ingest

// UseDerivation makes ingest digest content with derivation version d
// until restore is called, so that a test can compare digests recorded
// under an earlier version of the rules, whose texts must not change.
func UseDerivation(d int) (restore func()) {
	old := derivation
	derivation = d
	return func() { derivation = old }
}
