package api

import (
	"testing"

	"github.com/turnzerocloud/tzctx/internal/action/dispatch"
	"github.com/turnzerocloud/tzctx/schemas"
)

// BenchmarkQueryArgs measures the GET parameter reader on a page read's
// parameters.
func BenchmarkQueryArgs(b *testing.B) {
	c, err := schemas.Load()
	if err != nil {
		b.Fatal(err)
	}
	sa, err := c.Action("read_documentation")
	if err != nil {
		b.Fatal(err)
	}
	a := &dispatch.Action{Action: sa}
	raw := "page=%2Ftzdocs%2F7.6%2FCimCmdlets%2FGet-CimClass%2F&limit=8000&offset=0&stamp=" + "abababababababababababababababababababababababababababababababab"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := queryArgs(raw, a); err != nil {
			b.Fatal(err)
		}
	}
}
