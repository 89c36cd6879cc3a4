package records

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/turnzerocloud/tzctx"
)

// Filter selects records; a zero member selects every record.
type Filter struct {
	// Since selects records of calls that began at or after it.
	Since time.Time
	// Account and Action select records naming exactly them.
	Account, Action string
}

func (f Filter) admits(r tzctx.Record) bool {
	return (f.Since.IsZero() || !r.Time.Before(f.Since)) &&
		(f.Account == "" || r.Account == f.Account) &&
		(f.Action == "" || r.Action == f.Action)
}

// Stats describe what a Read went through.
type Stats struct {
	// Segments is the number of segments read.
	Segments int
	// Skipped is the number of complete lines that are not records.
	Skipped int
	// Partial is the number of segments ending in a line without a line
	// end that is not a record: a write in progress, or one a machine
	// crash tore.
	Partial int
}

// ErrNoRecords is the error of Read where the folder does not exist: no
// process has recorded a call in the data directory yet.
var ErrNoRecords = errors.New("no call records are kept here yet")

// modMargin is how far a segment's modification time may fall behind the
// time of the last record written to it.
const modMargin = time.Minute

// maxLine bounds the lines Read parses; records are far shorter, and a
// longer line is damage, skipped.
const maxLine = 1 << 20

// Read returns the records of every segment under dir that f admits,
// ordered by time (records of one time in segment and line order), and
// what it skipped. It takes no lock and reads while writers append; a
// segment a pruner deletes meanwhile is read whole or not at all. A
// folder that does not exist is ErrNoRecords.
func Read(dir string, f Filter) ([]tzctx.Record, Stats, error) {
	var st Stats
	segs, err := listSegments(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, st, ErrNoRecords
	}
	if err != nil {
		return nil, st, fmt.Errorf("list the call records: %w", err)
	}
	var out []tzctx.Record
	for _, s := range segs {
		// A segment's records were written before it was last modified,
		// and each call began before its record was written; file times
		// are coarse (a clock tick behind, or whole seconds), hence the
		// margin.
		if !f.Since.IsZero() && s.mod.Add(modMargin).Before(f.Since) {
			continue
		}
		recs, err := readSegment(filepath.Join(dir, s.name), f, &st)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, st, err
		}
		st.Segments++
		out = append(out, recs...)
	}
	slices.SortStableFunc(out, func(a, b tzctx.Record) int { return a.Time.Compare(b.Time) })
	return out, st, nil
}

// readSegment reads the records of one segment that f admits.
func readSegment(path string, f Filter, st *Stats) ([]tzctx.Record, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var out []tzctx.Record
	r := bufio.NewReaderSize(file, 64<<10)
	var long bytes.Buffer
	for {
		chunk, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if long.Len() < maxLine {
				long.Write(chunk)
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read the call records: %w", err)
		}
		line := chunk
		if long.Len() > 0 {
			long.Write(chunk)
			line = long.Bytes()
		}
		ended := len(line) > 0 && line[len(line)-1] == '\n'
		if len(bytes.TrimSpace(line)) > 0 {
			if len(line) > maxLine {
				st.Skipped++
			} else if rec, perr := Unmarshal(line); perr != nil {
				if ended {
					st.Skipped++
				} else {
					st.Partial++
				}
			} else if f.admits(rec) {
				out = append(out, rec)
			}
		}
		long.Reset()
		if err != nil { // io.EOF
			return out, nil
		}
	}
}

// Last returns the last n records under dir (n > 0), ordered by time,
// as Read would end. It reads the segments last modified most recently
// first, and stops where no segment left can hold a record as recent as
// the n-th newest found: a segment's records were written before it was
// last modified, within modMargin. So a status read costs a few recent
// segments, not every record kept. A folder that does not exist is
// ErrNoRecords.
func Last(dir string, n int) ([]tzctx.Record, error) {
	segs, err := listSegments(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoRecords
	}
	if err != nil {
		return nil, fmt.Errorf("list the call records: %w", err)
	}
	// Read orders records of one time in segment (name) then line order;
	// Last reads segments in another order, so it keeps each segment's
	// records under its place in the listing and joins them in that
	// order at the end, as Read does.
	order := make([]int, len(segs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return segs[b].mod.Compare(segs[a].mod) })
	bySeg := make([][]tzctx.Record, len(segs))
	var times []time.Time
	var st Stats
	for _, i := range order {
		if len(times) >= n {
			slices.SortFunc(times, time.Time.Compare)
			times = times[len(times)-n:]
			if segs[i].mod.Add(modMargin).Before(times[0]) {
				break
			}
		}
		recs, err := readSegment(filepath.Join(dir, segs[i].name), Filter{}, &st)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		bySeg[i] = recs
		for _, r := range recs {
			times = append(times, r.Time)
		}
	}
	var out []tzctx.Record
	for _, recs := range bySeg {
		out = append(out, recs...)
	}
	slices.SortStableFunc(out, func(a, b tzctx.Record) int { return a.Time.Compare(b.Time) })
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out, nil
}

// Notes are the lines that tell a reader of records what Read skipped, if
// anything: damaged lines, and unfinished last lines.
func (s Stats) Notes() []string {
	var out []string
	if s.Skipped > 0 {
		out = append(out, fmt.Sprintf("skipped %s that %s not records (damage)", lines(s.Skipped, "damaged line"), be(s.Skipped)))
	}
	if s.Partial > 0 {
		out = append(out, fmt.Sprintf("skipped %s (a write in progress, or one a crash cut short)", lines(s.Partial, "unfinished last line")))
	}
	return out
}

// lines is "1 <what>" or "n <what>s".
func lines(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// be is "is" or "are", to agree with n.
func be(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// ParseSince reads tzctx records --since: an RFC 3339 time, or a positive duration back
// from now.
func ParseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("--since %q: give an RFC 3339 time such as 2026-12-01T09:00:00Z, or a duration back from now such as 24h or 90m", s)
}
