package ingest

import (
	"context"
	"strings"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/grams"
	"github.com/turnzerocloud/tzctx/internal/textmap"
	"github.com/turnzerocloud/tzctx/store"
)

func layoutOf(m *textmap.Map) store.Layout {
	return store.Layout{Total: m.Len, LineStarts: m.LineStarts, Bases: m.Bases}
}

// write stores every tree's texts, search data and n-grams in b.
func write(ctx context.Context, b *store.Builder, trees []*loadedTree, progress func(Progress)) error {
	var pr Progress
	for _, t := range trees {
		pr.TotalPages += len(t.pages)
		pr.TotalBytes += t.bytes
	}
	ord := 0
	for _, t := range trees {
		pages := make([]tzctx.Page, len(t.pages))
		for i, p := range t.pages {
			pages[i] = p.Page
		}
		if err := b.PutTree(t.name, t.title, pages); err != nil {
			return err
		}
		for key, text := range map[string]string{"index": t.index, "full": t.full, "outline": t.outline} {
			if err := b.PutText(t.name, key, text, layoutOf(textmap.Scan(text))); err != nil {
				return err
			}
		}
		for _, p := range t.pages {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := b.PutText(t.name, p.Route, p.copy, layoutOf(p.scan)); err != nil {
				return err
			}
			lower := strings.ToLower(p.copy)
			if err := b.PutPageSearch(t.name, p.Route, lower, p.headings); err != nil {
				return err
			}
			lowerTitle := strings.ToLower(p.Title)
			var hs strings.Builder
			for _, h := range p.headings {
				hs.WriteString(strings.ToLower(h.Text))
				hs.WriteByte('\n')
			}
			pg := store.PageGrams{All: grams.Of(lowerTitle + "\n" + lower), Title: grams.Of(lowerTitle), Headings: grams.Of(hs.String())}
			if err := b.IndexPage(ord, pg); err != nil {
				return err
			}
			ord++
			pr.Pages++
			pr.Bytes += int64(len(p.copy))
			if progress != nil {
				progress(pr)
			}
		}
	}
	return nil
}
