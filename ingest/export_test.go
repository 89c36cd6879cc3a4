package ingest

// SetDerivation makes ingest digest what it stores under derivation
// version n, for a test that compares digests recorded under an earlier
// version (the texts the same, the rules' version not); the function it
// returns restores the version.
func SetDerivation(n int) (restore func()) {
	d := derivation
	derivation = n
	return func() { derivation = d }
}
