package records

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"unicode"

	"github.com/turnzerocloud/tzctx"
)

// WriteTable prints records as an aligned table, one record a line, with
// a header line; tzctx records prints it.
func WriteTable(out io.Writer, recs []tzctx.Record) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TIME\tTRANSPORT\tACTION\tSUBJECT\tCODE\tSTATUS\tACCOUNT\tAPPLICATION\tCREDENTIAL\tVERSION\tCODE POINTS\tµs")
	for _, r := range recs {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%d\t%s\n",
			r.Time.UTC().Format("2006-01-02T15:04:05.000Z07:00"), cell(r.Transport), cell(r.Action), cell(r.Subject), cell(r.Code), r.Status,
			cell(r.Account), cell(r.Application), cell(r.Credential), cell(r.Version), r.CodePoints,
			strconv.FormatInt(r.Duration.Microseconds(), 10))
	}
	return w.Flush()
}

// WriteJSONLines prints each record in its on-disk form (Marshal), one a
// line.
func WriteJSONLines(out io.Writer, recs []tzctx.Record) error {
	for _, r := range recs {
		b, err := Marshal(r)
		if err != nil {
			return err
		}
		if _, err := out.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	return nil
}

// cell is a member as a table cell: "-" where empty, quoted where it
// holds a space or a character that is not printable (a caller's ID may),
// so every row is one line of cells that split on blanks.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	for _, r := range s {
		if r == ' ' || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
