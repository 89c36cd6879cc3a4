package records

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/turnzerocloud/tzctx"
	"github.com/turnzerocloud/tzctx/internal/leaf/jsonwire"
)

// onDisk is a record's on-disk form: the members of tzctx.Record, with
// the time in UTC, and "us", the duration in microseconds.
type onDisk struct {
	tzctx.Record
	US micros `json:"us"`
}

// Marshal returns the on-disk form of rec, one JSON object without a
// line end. Unmarshal gives back rec exactly: the time to the nanosecond
// (in UTC), the duration to the nanosecond.
func Marshal(rec tzctx.Record) ([]byte, error) {
	return appendRecord(make([]byte, 0, 384), rec)
}

// appendRecord appends the on-disk form of rec to dst: the bytes
// json.Marshal writes of onDisk, written member by member (a test holds
// the two equal and the members to tzctx.Record's). A record whose
// strings hold what json.Marshal escapes for HTML (<, > and &), or whose
// time it refuses, takes json.Marshal itself.
func appendRecord(dst []byte, rec tzctx.Record) ([]byte, error) {
	rec.Time = rec.Time.UTC()
	strs := [...]string{rec.Action, rec.Transport, rec.Subject, rec.Code, rec.Credential, rec.Account, rec.Application, rec.Version}
	for _, s := range strs {
		if strings.ContainsAny(s, "<>&") {
			return marshalRecord(dst, rec)
		}
	}
	orig := dst
	dst, err := rec.Time.AppendText(append(dst, `{"time":"`...))
	if err != nil || rec.Duration == math.MinInt64 {
		return marshalRecord(orig, rec)
	}
	dst = append(dst, `","action":`...)
	dst = jsonwire.AppendString(dst, rec.Action)
	dst = append(dst, `,"transport":`...)
	dst = jsonwire.AppendString(dst, rec.Transport)
	dst = append(dst, `,"subject":`...)
	dst = jsonwire.AppendString(dst, rec.Subject)
	dst = append(dst, `,"code":`...)
	dst = jsonwire.AppendString(dst, rec.Code)
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(rec.Status), 10)
	for _, m := range [...]struct{ key, val string }{
		{`,"credential":`, rec.Credential}, {`,"account":`, rec.Account},
		{`,"application":`, rec.Application}, {`,"version":`, rec.Version},
	} {
		if m.val != "" { // omitempty
			dst = append(dst, m.key...)
			dst = jsonwire.AppendString(dst, m.val)
		}
	}
	dst = append(dst, `,"code_points":`...)
	dst = strconv.AppendInt(dst, int64(rec.CodePoints), 10)
	dst = append(dst, `,"us":`...)
	dst = appendMicros(dst, rec.Duration)
	return append(dst, '}'), nil
}

// marshalRecord appends json.Marshal's encoding of rec's on-disk form.
func marshalRecord(dst []byte, rec tzctx.Record) ([]byte, error) {
	b, err := json.Marshal(onDisk{Record: rec, US: micros(rec.Duration)})
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// ErrNotRecord is the error of a line that is JSON but no record: it
// lacks the time or the action.
var ErrNotRecord = errors.New("the line is not a call record: it lacks the time or the action")

// Unmarshal reads a record from its on-disk form. Members it does not
// know are ignored, so a later build's records still read.
func Unmarshal(line []byte) (tzctx.Record, error) {
	var d onDisk
	if err := json.Unmarshal(line, &d); err != nil {
		return tzctx.Record{}, err
	}
	if d.Time.IsZero() || d.Action == "" {
		return tzctx.Record{}, ErrNotRecord
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
	if m == math.MinInt64 {
		return nil, fmt.Errorf("duration %d ns is out of range", int64(m))
	}
	return appendMicros(nil, time.Duration(m)), nil
}

// appendMicros appends d as micros writes it; d is not math.MinInt64.
func appendMicros(dst []byte, d time.Duration) []byte {
	ns := int64(d)
	if ns < 0 {
		dst = append(dst, '-')
		ns = -ns
	}
	dst = strconv.AppendInt(dst, ns/1000, 10)
	if frac := ns % 1000; frac != 0 {
		digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		n := 3
		for digits[n-1] == '0' {
			n--
		}
		dst = append(dst, '.')
		dst = append(dst, digits[:n]...)
	}
	return dst
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
