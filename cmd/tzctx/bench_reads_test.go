package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/turnzerocloud/tzctx/ingest"
	"github.com/turnzerocloud/tzctx/internal/action/catalog"
	"github.com/turnzerocloud/tzctx/internal/action/plane"
	"github.com/turnzerocloud/tzctx/internal/dev/testkit"
	"github.com/turnzerocloud/tzctx/query"
)

// BenchmarkReads times the reads, in process and without HTTP, that the
// HTTP benchmarks' figures are made of, on the PowerShell corpus: chunks
// at offset 0 and at the end of the largest text (the tree's whole text),
// the first catalog page, and page reads whole in one answer (no headings)
// and as a first chunk of the default limit, which lists the page's
// headings. Each op is one read; page reads rotate over the tree's pages.
func BenchmarkReads(b *testing.B) {
	corpus := testkit.Corpus(b, "powershell-docs")
	st := testkit.Ingest(b, ingest.TreeSource{Name: "tzdocs", Dir: corpus})
	limits, err := plane.Limits()
	if err != nil {
		b.Fatal(err)
	}
	cat, err := catalog.Load()
	if err != nil {
		b.Fatal(err)
	}
	r := query.NewReader(query.Config{Limits: limits, Origin: "https://turnzero.ai", Catalog: cat}, query.FromStore(st))
	ctx := context.Background()
	str := func(s string) *string { return &s }
	num := func(n int) *int { return &n }
	read := func(b *testing.B, req query.DocRequest) *query.Answer {
		a, _, err := r.ReadDocumentation(ctx, req)
		if err != nil {
			b.Fatalf("%+v: %v", req, err)
		}
		return a
	}

	full := read(b, query.DocRequest{Tree: str("tzdocs"), Part: str("full")})
	// The last chunk as a pager meets it: asked one default limit before
	// the end, with the first chunk's stamp.
	near := read(b, query.DocRequest{Tree: str("tzdocs"), Part: str("full"), Paging: query.Paging{Offset: num(full.Total - limits.TextDefaultLimit), Stamp: &full.Stamp}})
	var index string
	for a := read(b, query.DocRequest{Tree: str("tzdocs")}); ; {
		index += a.Text
		if a.NextOffset == nil {
			break
		}
		a = read(b, query.DocRequest{Tree: str("tzdocs"), Paging: query.Paging{Offset: a.NextOffset, Stamp: &a.Stamp}})
	}
	var whole, headed []string // pages that fit one 16,000 answer; pages longer than the default limit
	for _, m := range indexLink.FindAllStringSubmatch(index, -1) {
		a := read(b, query.DocRequest{Page: str(m[1])})
		if len(a.Headings) > 0 {
			headed = append(headed, m[1])
		}
		if a.Total <= 16000 {
			whole = append(whole, m[1])
		}
	}
	if len(whole) == 0 || len(headed) == 0 {
		b.Fatalf("%d pages fit one answer, %d have headings on their first chunk; the benchmark needs both", len(whole), len(headed))
	}

	b.Run("chunk-first", func(b *testing.B) {
		for b.Loop() {
			read(b, query.DocRequest{Tree: str("tzdocs"), Part: str("full")})
		}
	})
	b.Run("chunk-last", func(b *testing.B) {
		for b.Loop() {
			read(b, query.DocRequest{Tree: str("tzdocs"), Part: str("full"), Paging: query.Paging{Offset: &near.Offset, Stamp: &full.Stamp}})
		}
	})
	b.Run("catalog", func(b *testing.B) {
		all := func(string) bool { return true }
		for b.Loop() {
			if _, _, err := r.ListContext(ctx, query.ListRequest{}, all); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("page-whole", func(b *testing.B) {
		i := 0
		for b.Loop() {
			read(b, query.DocRequest{Page: str(whole[i%len(whole)]), Paging: query.Paging{Limit: num(16000)}})
			i++
		}
	})
	b.Run("page-headings", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if a := read(b, query.DocRequest{Page: str(headed[i%len(headed)])}); len(a.Headings) == 0 {
				b.Fatalf("%s: no headings on the first chunk", headed[i%len(headed)])
			}
			i++
		}
	})
	fmt.Printf("reads on powershell-docs: whole text %d code points (last chunk at %d); %d pages fit one answer, %d list headings on their first chunk\n",
		full.Total, near.Offset, len(whole), len(headed))
}
