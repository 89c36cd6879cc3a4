package ingest

// SetDerivation makes Run digest by the derivation version n, for a test
// that compares a digest recorded under older rules, and returns what
// restores the version.
func SetDerivation(n int) (restore func()) {
	old := derivation
	derivation = n
	return func() { derivation = old }
}
