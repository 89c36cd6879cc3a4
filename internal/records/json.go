package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/turnzerocloud/tzctx/internal/dispatch"
)

// onDisk is a record's on-disk form: the members of dispatch.Record, with
// the time in UTC, and "us", the duration in microseconds.
type onDisk struct {
	dispatch.Record
	US micros `json:"us"`
}

// Marshal returns the on-disk form of rec, one JSON object without a
// line end. Unmarshal gives back rec exactly: the time to the nanosecond
// (in UTC), the duration to the nanosecond.
func Marshal(rec dispatch.Record) ([]byte, error) {
	rec.Time = rec.Time.UTC()
	return json.Marshal(onDisk{Record: rec, US: micros(rec.Duration)})
}

// ErrNotRecord is the error of a line that is JSON but no record: it
// lacks the time or the action.
var ErrNotRecord = errors.New("the line is not a call record: it lacks the time or the action")

// Unmarshal reads a record from its on-disk form. Members it does not
// know are ignored, so a later build's records still read.
func Unmarshal(line []byte) (dispatch.Record, error) {
	var d onDisk
	if err := json.Unmarshal(line, &d); err != nil {
		return dispatch.Record{}, err
	}
	if d.Time.IsZero() || d.Action == "" {
		return dispatch.Record{}, ErrNotRecord
	}
	rec := d.Record
	rec.Duration = time.Duration(d.US)
	return rec, nil
}

// micros is a duration written as a decimal number of microseconds, with
// up to three decimals, so it keeps the nanoseconds: 3667ns is 3.667.
type micros time.Duration

// MarshalJSON implements json.Marshaler.
func (m micros) MarshalJSON() ([]byte, error) {
	ns := int64(m)
	sign := ""
	if ns < 0 {
		if ns == math.MinInt64 {
			return nil, fmt.Errorf("duration %d ns is out of range", ns)
		}
		sign, ns = "-", -ns
	}
	s := sign + strconv.FormatInt(ns/1000, 10)
	if frac := ns % 1000; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", frac), "0")
	}
	return []byte(s), nil
}

// UnmarshalJSON implements json.Unmarshaler. It reads the decimal form
// exactly; a number with an exponent is rounded to the nanosecond.
func (m *micros) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		return nil
	}
	if strings.ContainsAny(s, "eE") {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f*1000, 0) {
			return fmt.Errorf("us: %s is not a number of microseconds", s)
		}
		*m = micros(math.Round(f * 1000))
		return nil
	}
	neg := strings.HasPrefix(s, "-")
	whole, frac, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	us, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || us > math.MaxInt64/1000 {
		return fmt.Errorf("us: %s is not a number of microseconds", s)
	}
	frac = (frac + "000")[:3] // nanoseconds; finer digits are dropped
	ns, err := strconv.ParseInt(frac, 10, 64)
	if err != nil {
		return fmt.Errorf("us: %s is not a number of microseconds", s)
	}
	v := us*1000 + ns
	if neg {
		v = -v
	}
	*m = micros(v)
	return nil
}
