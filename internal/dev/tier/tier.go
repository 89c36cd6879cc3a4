// Package tier marks a test of the long tier: make test runs go test
// -short, under which Long skips the test, saying it runs in make
// test-long; make test-long runs every test. It imports nothing of the
// module, so the internal tests of every package may use it.
package tier

import "testing"

// LongTarget is the make target that runs the long tier: the tests that
// need the real corpora, child processes at scale, soak, kills or the
// browser, and the exhaustive forms of the sampled tests.
const LongTarget = "make test-long"

// Long skips the test under go test -short, which make test passes, saying
// why it is long and that it runs in make test-long; without -short (make
// test-long, make bench, or a plain go test of one package) it returns and
// the test runs.
func Long(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("%s: runs in %s (skipped under go test -short)", why, LongTarget)
	}
}

// Exhaustive reports whether the test runs its exhaustive form (make
// test-long) rather than its sample (make test, go test -short).
func Exhaustive() bool { return !testing.Short() }
