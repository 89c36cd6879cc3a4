package server

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/turnzerocloud/tzctx/internal/ops/identity"
	"github.com/turnzerocloud/tzctx/internal/ops/objstore"
	"github.com/turnzerocloud/tzctx/internal/ops/pgrecords"
	"github.com/turnzerocloud/tzctx/internal/ops/shed"
	"github.com/turnzerocloud/tzctx/mcp"
	"github.com/turnzerocloud/tzctx/query"
	"github.com/turnzerocloud/tzctx/schemas"
	"github.com/turnzerocloud/tzctx/store"
)

// Config is the configuration file (JSON) tzctx serve and tzctx mcp read.
// Flags given on the command line override it. Its form is documented in
// the cloud manual's configuration page; other tools rely on its member
// names.
type Config struct {
	Addr           string     `json:"addr"`
	Data           string     `json:"data"`
	Site           SiteConfig `json:"site"`
	Origin         string     `json:"origin"`
	Trees          Trees      `json:"trees"`
	BodyLimitBytes int64      `json:"body_limit_bytes"`
	ReadTimeout    Duration   `json:"read_timeout"`
	WriteTimeout   Duration   `json:"write_timeout"`
	WatchInterval  Duration   `json:"watch_interval"`
	// Credentials are the configured callers, each named by the SHA-256
	// of its token: tokens are never stored in clear.
	Credentials []identity.Credential `json:"credentials"`
	// OIDC, where set, also accepts JWTs its issuer signed.
	OIDC *identity.OIDCConfig `json:"oidc"`
	// Records bounds the durable call records under DATA/records.
	Records RecordsConfig `json:"records"`
	// Metrics turns /metrics off where false; MetricsAddr serves it on
	// its own listen address instead of the server's.
	Metrics     *bool  `json:"metrics"`
	MetricsAddr string `json:"metrics_addr"`
	// Console serves the web console at /console/ unless false.
	Console *bool `json:"console"`
	// MCPAllowedOrigins are the browser origins /mcp serves beside
	// loopback ones; a request with any other Origin header is refused.
	MCPAllowedOrigins []string `json:"mcp_allowed_origins"`
	// AllowedHosts are the Host names served over a loopback connection
	// beside loopback ones (hostguard.go): those a proxy on the same host
	// forwards.
	AllowedHosts []string `json:"allowed_hosts"`
	// S3 reaches the object store that publish writes and follow reads;
	// what it leaves empty comes from the AWS_* environment variables.
	S3 objstore.Config `json:"s3"`
	// Follow makes tzctx serve follow the versions published at a
	// location; the --follow flag sets its url.
	Follow FollowConfig `json:"follow"`
	// MaxInFlight bounds the requests of /api/v1/actions and /mcp that
	// tzctx serve runs at once; beyond it a request waits at most
	// QueueWait for a slot, then is shed (503 with Retry-After).
	MaxInFlight int      `json:"max_in_flight"`
	QueueWait   Duration `json:"queue_wait"`
	// MaxInFlightPerCaller bounds the slots of MaxInFlight one caller
	// (a credential; anonymous callers by remote address) holds at once;
	// beyond it its call is refused 429 at once. 0 means
	// shed.DefaultPerCaller(MaxInFlight), a quarter; MaxInFlight gives
	// a caller every slot.
	MaxInFlightPerCaller int `json:"max_in_flight_per_caller"`
	// RateLimit, where set, gives each caller a token bucket; a request
	// beyond it is refused rate_limited (429 with Retry-After).
	RateLimit *RateLimitConfig `json:"rate_limit"`
	// MCPStreams bounds the long-lived streams of /mcp, which hold no
	// call slot; MCPSessions bounds its sessions.
	MCPStreams  MCPStreamsConfig  `json:"mcp_streams"`
	MCPSessions MCPSessionsConfig `json:"mcp_sessions"`
	// MCPCompletions bounds the work of one MCP completion/complete.
	MCPCompletions MCPCompletionsConfig `json:"mcp_completions"`
	// MaxVersionSize bounds the total size, in bytes, of a version that tzctx
	// import or a following server takes from an archive, checked from
	// its manifest before anything is written.
	MaxVersionSize int64 `json:"max_version_bytes"`
	// MCPSubscriptionsPerSession and MCPSubscriptions bound the MCP
	// resource subscriptions of one session and of all sessions;
	// MCPNoticesPerMinute bounds the log notices one session is sent in
	// a minute.
	MCPSubscriptionsPerSession int `json:"mcp_subscriptions_per_session"`
	MCPSubscriptions           int `json:"mcp_subscriptions"`
	MCPNoticesPerMinute        int `json:"mcp_notices_per_minute"`
	// MCPInstructionsMaxChars bounds the MCP server instructions, in
	// code points (issue 31).
	MCPInstructionsMaxChars int `json:"mcp_instructions_max_chars"`
	// AnswerCacheBytes bounds the JSON string forms of page and tree
	// texts the HTTP API keeps for the next reads of the same text; 0
	// keeps none.
	AnswerCacheBytes int64 `json:"answer_cache_bytes"`
	// SearchBudgetMax is the largest budget, in code points, a
	// search_documentation call may ask for.
	SearchBudgetMax int `json:"search_budget_max"`
}

// MCPStreamsConfig bounds the long-lived streams of /mcp (a session's
// GET, a subscriptions/listen): per caller (an account or credential;
// anonymous callers by remote address) and in all, and the body a
// subscriptions/listen stream keeps.
type MCPStreamsConfig struct {
	PerCaller      int `json:"per_caller"`
	Total          int `json:"total"`
	MaxListenBytes int `json:"max_listen_bytes"`
}

// MCPSessionsConfig bounds the sessions of /mcp, per caller and in all,
// and the initialize body whose client name, version and capabilities a
// session keeps.
type MCPSessionsConfig struct {
	PerCaller          int `json:"per_caller"`
	Total              int `json:"total"`
	MaxInitializeBytes int `json:"max_initialize_bytes"`
}

// MCPCompletionsConfig bounds one completion/complete: the characters
// and words of the value completed (a value over either completes to no
// values) and the candidates (pages, trees) it considers.
type MCPCompletionsConfig struct {
	MaxValueChars int `json:"max_value_chars"`
	MaxWords      int `json:"max_words"`
	MaxCandidates int `json:"max_candidates"`
}

// check refuses a bound that is not positive, naming the member.
func (m MCPCompletionsConfig) check() error {
	return positiveBounds("mcp_completions", []string{"max_value_chars", "max_words", "max_candidates"}, []int{m.MaxValueChars, m.MaxWords, m.MaxCandidates},
		[]int{mcp.DefaultCompletionValueChars, mcp.DefaultCompletionWords, mcp.DefaultCompletionCandidates})
}

// bounds are the completion bounds the MCP front end takes.
func (m MCPCompletionsConfig) bounds() mcp.CompletionBounds {
	return mcp.CompletionBounds{MaxValueChars: m.MaxValueChars, MaxWords: m.MaxWords, MaxCandidates: m.MaxCandidates}
}

// check refuses a bound that is not positive, naming the member.
func (m MCPStreamsConfig) check() error {
	return positiveBounds("mcp_streams", []string{"per_caller", "total", "max_listen_bytes"}, []int{m.PerCaller, m.Total, m.MaxListenBytes},
		[]int{mcp.DefaultStreamsPerCaller, mcp.DefaultStreamsTotal, mcp.DefaultMaxListenBytes})
}

// check refuses a bound that is not positive, naming the member.
func (m MCPSessionsConfig) check() error {
	return positiveBounds("mcp_sessions", []string{"per_caller", "total", "max_initialize_bytes"}, []int{m.PerCaller, m.Total, m.MaxInitializeBytes},
		[]int{mcp.DefaultSessionsPerCaller, mcp.DefaultSessionsTotal, mcp.DefaultMaxInitializeBytes})
}

// positiveBounds refuses the first of the named values that is not
// positive, saying its default.
func positiveBounds(group string, names []string, values, defaults []int) error {
	for i, v := range values {
		if v <= 0 {
			return fmt.Errorf("%s.%s: %d is not a positive bound; give one such as %d (the default), or leave it out", group, names[i], v, defaults[i])
		}
	}
	return nil
}

// RateLimitConfig is the token bucket of each caller: a credential by its
// hash prefix, anonymous callers by the Anonymous rule.
type RateLimitConfig struct {
	PerSecond float64 `json:"per_second"`
	Burst     int     `json:"burst"`
	// Anonymous keys callers without a credential: per_address (each
	// remote IP address its own bucket, the default), shared (one bucket
	// for all) or unlimited.
	Anonymous string `json:"anonymous"`
	// MaxBuckets bounds the buckets kept; the least recently used goes
	// first.
	MaxBuckets int `json:"max_buckets"`
}

// check refuses a rate limit that cannot work, naming the member.
func (r *RateLimitConfig) check() error {
	if r == nil {
		return nil
	}
	if !(r.PerSecond > 0) {
		return fmt.Errorf("rate_limit.per_second: %v is not a positive rate; give the calls a second each caller's bucket refills, such as 10, or leave rate_limit out for none", r.PerSecond)
	}
	if r.Burst <= 0 {
		return fmt.Errorf("rate_limit.burst: %d is not a positive size; give the calls a full bucket holds, such as 20", r.Burst)
	}
	if r.Anonymous == "" {
		r.Anonymous = shed.PerAddress
	}
	if !shed.ValidAnonymous(r.Anonymous) {
		return fmt.Errorf("rate_limit.anonymous: %q must be per_address, shared or unlimited", r.Anonymous)
	}
	if r.MaxBuckets < 0 {
		return fmt.Errorf("rate_limit.max_buckets: %d is negative; give the number of callers' buckets to keep, or leave it out for %d", r.MaxBuckets, shed.DefaultMaxBuckets)
	}
	if r.MaxBuckets == 0 {
		r.MaxBuckets = shed.DefaultMaxBuckets
	}
	return nil
}

// FollowConfig is how a server follows published versions.
type FollowConfig struct {
	// URL is the s3://BUCKET/PREFIX location followed; "" follows none.
	URL string `json:"url"`
	// Interval is the time between polls of the pointer.
	Interval Duration `json:"interval"`
	// Keep is how many versions taken from the store stay on disk, the
	// active one included.
	Keep int `json:"keep"`
	// RequestTimeout bounds each small request to the store (the
	// pointer); StallTimeout bounds the time an archive download may go
	// without receiving a byte.
	RequestTimeout Duration `json:"request_timeout"`
	StallTimeout   Duration `json:"stall_timeout"`
}

// RecordsConfig bounds the records kept: a record older than
// RetentionDays days, or beyond MaxBytes in all, is dropped, oldest first.
type RecordsConfig struct {
	RetentionDays int   `json:"retention_days"`
	MaxBytes      int64 `json:"max_bytes"`
	// PostgresURL, where set, also sends every record to that PostgreSQL
	// database, through a spool under DATA/records-spool bounded by
	// SpoolMaxBytes per process (see package pgrecords).
	PostgresURL   string `json:"postgres_url"`
	SpoolMaxBytes int64  `json:"spool_max_bytes"`
	// Embedded false keeps no records under DATA/records: with
	// PostgresURL, the database holds them instead.
	Embedded *bool `json:"embedded"`
}

// embedded reports whether records are kept under DATA/records.
func (r RecordsConfig) embedded() bool { return r.Embedded == nil || *r.Embedded }

// Duration reads "15s"-style strings.
type Duration time.Duration

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("durations are strings such as \"15s\"")
	}
	v, err := time.ParseDuration(s)
	*d = Duration(v)
	return err
}

// maxSearchBudget is the most search_budget_max may be: a pack of this
// many code points is a few MiB of JSON.
const maxSearchBudget = 1 << 20

// DefaultMaxInFlight is max_in_flight's default: enough for a small
// server's cores to stay busy with reads, few enough that a flood is shed
// at once rather than queued.
const DefaultMaxInFlight = 64

// PerCaller is the share of MaxInFlight one caller may hold:
// MaxInFlightPerCaller, else shed.DefaultPerCaller's quarter.
func (c Config) PerCaller() int {
	if c.MaxInFlightPerCaller > 0 {
		return min(c.MaxInFlightPerCaller, c.MaxInFlight)
	}
	return shed.DefaultPerCaller(c.MaxInFlight)
}

// DefaultAnswerCacheBytes is answer_cache_bytes's default, 32 MiB.
const DefaultAnswerCacheBytes = 32 << 20

// DefaultConfig is the configuration of a server whose file sets
// nothing.
func DefaultConfig() Config {
	return Config{
		Addr:           "127.0.0.1:8080",
		Site:           SiteConfig{Name: schemas.DefaultSiteName},
		Origin:         "https://turnzero.ai",
		Trees:          DefaultTrees(),
		BodyLimitBytes: 1 << 20,
		ReadTimeout:    Duration(15 * time.Second),
		WriteTimeout:   Duration(30 * time.Second),
		WatchInterval:  Duration(time.Second),
		Records:        RecordsConfig{RetentionDays: 30, MaxBytes: 1 << 30, SpoolMaxBytes: pgrecords.DefaultSpoolMaxBytes},
		Follow:         FollowConfig{Interval: Duration(5 * time.Second), Keep: 3, RequestTimeout: Duration(objstore.DefaultRequestTimeout), StallTimeout: Duration(objstore.DefaultStallTimeout)},
		MaxInFlight:    DefaultMaxInFlight,
		QueueWait:      Duration(100 * time.Millisecond),
		MCPStreams:     MCPStreamsConfig{PerCaller: mcp.DefaultStreamsPerCaller, Total: mcp.DefaultStreamsTotal, MaxListenBytes: mcp.DefaultMaxListenBytes},
		MCPSessions:    MCPSessionsConfig{PerCaller: mcp.DefaultSessionsPerCaller, Total: mcp.DefaultSessionsTotal, MaxInitializeBytes: mcp.DefaultMaxInitializeBytes},
		MCPCompletions: MCPCompletionsConfig{MaxValueChars: mcp.DefaultCompletionValueChars, MaxWords: mcp.DefaultCompletionWords, MaxCandidates: mcp.DefaultCompletionCandidates},
		MaxVersionSize: store.DefaultMaxVersionBytes,

		MCPSubscriptionsPerSession: mcp.DefaultSubscriptionsPerSession,
		MCPSubscriptions:           mcp.DefaultSubscriptionsTotal,
		MCPNoticesPerMinute:        mcp.DefaultNoticesPerMinute,
		MCPInstructionsMaxChars:    mcp.DefaultInstructionsMaxChars,
		AnswerCacheBytes:           DefaultAnswerCacheBytes,
		SearchBudgetMax:            query.SearchBudgetMax,
	}
}

// ConsoleOn reports whether the web console is served at /console/.
func (c Config) ConsoleOn() bool { return c.Console == nil || *c.Console }

// MetricsOn reports whether /metrics is served.
func (c Config) MetricsOn() bool { return c.Metrics == nil || *c.Metrics }

// LoadConfig reads the configuration file at path; "" or a missing file
// is the defaults. A fault names the member and what is wrong.
func LoadConfig(path string) (Config, error) {
	c := DefaultConfig()
	if path == "" {
		return withPostgresEnv(c)
	}
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		// A missing file means the defaults, so an optional mounted
		// configuration may be absent; the start-up log says so.
		slog.Warn("the configuration file does not exist; serving the defaults", "config", path)
		return withPostgresEnv(c)
	}
	if err != nil {
		return c, fmt.Errorf("read config: %w", err)
	}
	fail := func(format string, args ...any) (Config, error) {
		return c, fmt.Errorf("config %s: "+format, append([]any{path}, args...)...)
	}
	// The table of clear tokens an earlier release read is refused with
	// the way to convert it, before the strict decode names it wrongly.
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) == nil {
		if cr := bytes.TrimSpace(top["credentials"]); len(cr) > 0 && cr[0] == '{' {
			return fail("credentials: a table of clear tokens is no longer read, since tokens are never stored in clear; " +
				"for each token, run 'tzctx token new --account A --application B [--profile P ...]', hand the new token to its caller, " +
				"and list the credential line it prints in a \"credentials\" array (or compute the token_sha256 of an existing token with 'printf %%s TOKEN | sha256sum')")
		}
	}
	// Durations are checked here, by member, since the decoder's error
	// for one would not name it.
	for _, m := range []string{"read_timeout", "write_timeout", "watch_interval"} {
		v, ok := top[m]
		if !ok {
			continue
		}
		var str string
		d, err := time.Duration(0), json.Unmarshal(v, &str)
		if err == nil {
			d, err = time.ParseDuration(str)
		}
		if err != nil || d <= 0 {
			return fail("%s: %s is not a positive duration; give one such as \"15s\"", m, bytes.TrimSpace(v))
		}
	}
	// queue_wait may be zero: a request is then shed at once.
	if v, ok := top["queue_wait"]; ok {
		var str string
		d, err := time.Duration(0), json.Unmarshal(v, &str)
		if err == nil {
			d, err = time.ParseDuration(str)
		}
		if err != nil || d < 0 {
			return fail("queue_wait: %s is not a duration of zero or more; give how long a request waits for a slot before it is shed, such as \"100ms\", or \"0s\" to shed at once", bytes.TrimSpace(v))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return fail("%v; see the configuration page of the cloud manual", err)
	}
	if err := c.Trees.check(); err != nil {
		return fail("%w", err)
	}
	seen := map[string]int{}
	for i, cr := range c.Credentials {
		m := fmt.Sprintf("credentials[%d]", i)
		sum := strings.ToLower(cr.TokenSHA256)
		if b, err := hex.DecodeString(sum); err != nil || len(b) != 32 {
			return fail("%s.token_sha256: must be 64 hex digits, the SHA-256 of the token that 'tzctx token new' prints", m)
		}
		if j, dup := seen[sum]; dup {
			return fail("%s.token_sha256: the same token as credentials[%d]; give each token once", m, j)
		}
		seen[sum] = i
		c.Credentials[i].TokenSHA256 = sum
		if cr.Account == "" {
			return fail("%s.account: is missing; name the account the credential belongs to", m)
		}
		for k, p := range cr.Profiles {
			if p == "" {
				return fail("%s.profiles[%d]: is empty; name a product profile such as blueprint", m, k)
			}
		}
	}
	if c.OIDC != nil {
		if err := c.OIDC.Check(); err != nil {
			return fail("oidc.%v", err)
		}
	}
	if err := checkAllowedHosts(c.AllowedHosts); err != nil {
		return fail("%v", err)
	}
	if err := c.Site.check(); err != nil {
		return fail("%w", err)
	}
	if c.AnswerCacheBytes < 0 {
		return fail("answer_cache_bytes: %d is negative; give the bytes of answered texts' JSON forms to keep, such as 33554432, or 0 to keep none", c.AnswerCacheBytes)
	}
	if c.BodyLimitBytes <= 0 {
		return fail("body_limit_bytes: %d is not a positive size; give the largest request body to read, in bytes, such as 1048576", c.BodyLimitBytes)
	}
	if c.Records.RetentionDays < 0 {
		return fail("records.retention_days: %d is negative; give a number of days, or 0 to keep records without a time bound", c.Records.RetentionDays)
	}
	if c.Records.MaxBytes < 0 {
		return fail("records.max_bytes: %d is negative; give a size in bytes, or 0 to keep records without a size bound", c.Records.MaxBytes)
	}
	if err := c.Follow.check(); err != nil {
		return fail("%v", err)
	}
	if c.MaxInFlight <= 0 {
		return fail("max_in_flight: %d is not a positive bound; give the requests of /api/v1/actions and /mcp to run at once, such as %d", c.MaxInFlight, DefaultMaxInFlight)
	}
	if c.MaxInFlightPerCaller < 0 || c.MaxInFlightPerCaller > c.MaxInFlight {
		return fail("max_in_flight_per_caller: %d is not between 1 and max_in_flight (%d); give the calls one caller may run at once, leave it out for a quarter of max_in_flight, or give max_in_flight to let one caller take every slot", c.MaxInFlightPerCaller, c.MaxInFlight)
	}
	if err := c.RateLimit.check(); err != nil {
		return fail("%v", err)
	}
	if err := c.MCPCompletions.check(); err != nil {
		return fail("%v", err)
	}
	if err := c.MCPStreams.check(); err != nil {
		return fail("%v", err)
	}
	if err := c.MCPSessions.check(); err != nil {
		return fail("%v", err)
	}
	for _, b := range []struct {
		name     string
		v, deflt int
	}{
		{"mcp_subscriptions_per_session", c.MCPSubscriptionsPerSession, mcp.DefaultSubscriptionsPerSession},
		{"mcp_subscriptions", c.MCPSubscriptions, mcp.DefaultSubscriptionsTotal},
		{"mcp_notices_per_minute", c.MCPNoticesPerMinute, mcp.DefaultNoticesPerMinute},
	} {
		if b.v <= 0 {
			return fail("%s: %d is not a positive bound; give one such as %d (the default), or leave it out", b.name, b.v, b.deflt)
		}
	}
	if c.MCPInstructionsMaxChars < mcp.MinInstructionsMaxChars || c.MCPInstructionsMaxChars > mcp.MaxInstructionsMaxChars {
		return fail("mcp_instructions_max_chars: %d is outside %d through %d; give the most code points the MCP server instructions may take, or leave it out for %d", c.MCPInstructionsMaxChars, mcp.MinInstructionsMaxChars, mcp.MaxInstructionsMaxChars, mcp.DefaultInstructionsMaxChars)
	}
	if c.SearchBudgetMax < query.SearchBudgetMin || c.SearchBudgetMax > maxSearchBudget {
		return fail("search_budget_max: %d is outside %d through %d; give the largest budget, in code points, a search_documentation call may ask for, or leave it out for %d", c.SearchBudgetMax, query.SearchBudgetMin, maxSearchBudget, query.SearchBudgetMax)
	}
	if c.MaxVersionSize <= 0 {
		return fail("max_version_bytes: %d is not a positive size; give the largest total size, in bytes, of a version to import or follow, or leave it out for %d", c.MaxVersionSize, store.DefaultMaxVersionBytes)
	}
	from := c.postgresFromEnv()
	if c.Records.PostgresURL != "" {
		// The value is not repeated: it may hold a password.
		if _, err := pgrecords.ParseURL(c.Records.PostgresURL); err != nil {
			return fail("records.postgres_url%s: is not a PostgreSQL connection URL; give one such as postgres://USER:PASSWORD@HOST:5432/DATABASE?sslmode=verify-full", from)
		}
	}
	if c.Records.SpoolMaxBytes <= 0 {
		return fail("records.spool_max_bytes: %d is not a positive size; the spool of records not yet in PostgreSQL is always bounded (default %d bytes)", c.Records.SpoolMaxBytes, pgrecords.DefaultSpoolMaxBytes)
	}
	if !c.Records.embedded() && c.Records.PostgresURL == "" {
		return fail("records.embedded: is false without records.postgres_url, which would record no call; give a postgres_url, or leave embedded out")
	}
	return c, nil
}

// SiteConfig is the site as its readers know it.
type SiteConfig struct {
	// Name is the site's public name, which every served text that names
	// the product names (the overview, the guides, the skills, the tool
	// and prompt descriptions, the MCP server's instructions): one line of
	// at most schemas.SiteNameMaxLength characters. The default is the
	// contract's, schemas.DefaultSiteName.
	Name string `json:"name"`
}

// name returns the configured name, the default where none is set (a
// Config built in code rather than loaded).
func (s SiteConfig) name() string {
	if s.Name == "" {
		return schemas.DefaultSiteName
	}
	return s.Name
}

// check refuses a site name the served texts cannot carry, naming the
// member.
func (s SiteConfig) check() error {
	if err := schemas.CheckSiteName(s.Name); err != nil {
		return fmt.Errorf("site.name: %q: %w (leave site.name out for %q)", s.Name, err, schemas.DefaultSiteName)
	}
	return nil
}

// check refuses a follow configuration that cannot work, naming the
// member.
func (f FollowConfig) check() error {
	if f.URL != "" {
		if _, err := objstore.ParseLocation(f.URL); err != nil {
			return fmt.Errorf("follow.url: %v", err)
		}
	}
	if f.Interval <= 0 {
		return fmt.Errorf("follow.interval: %s is not a positive duration; give one such as \"5s\"", time.Duration(f.Interval))
	}
	if f.Keep < 1 {
		return fmt.Errorf("follow.keep: %d keeps no version; give 1 or more (the active version is always kept)", f.Keep)
	}
	if f.RequestTimeout <= 0 {
		return fmt.Errorf("follow.request_timeout: %s is not a positive duration; give how long a request to the store (the pointer) may take, such as \"10s\"", time.Duration(f.RequestTimeout))
	}
	if f.StallTimeout <= 0 {
		return fmt.Errorf("follow.stall_timeout: %s is not a positive duration; give how long an archive download may go without receiving a byte, such as \"30s\"", time.Duration(f.StallTimeout))
	}
	return nil
}

// PostgresURLEnv names the environment variable that, where set, is
// records.postgres_url, over the file's: a URL holding a password can
// come from a secret store (a Kubernetes Secret) rather than the file.
const PostgresURLEnv = "TZCTX_RECORDS_POSTGRES_URL"

// postgresFromEnv takes records.postgres_url from $TZCTX_RECORDS_POSTGRES_URL
// where it is set, and returns where the URL came from for an error.
func (c *Config) postgresFromEnv() string {
	v := os.Getenv(PostgresURLEnv)
	if v == "" {
		return ""
	}
	c.Records.PostgresURL = v
	return " (from $" + PostgresURLEnv + ")"
}

// withPostgresEnv is the defaults c with records.postgres_url from the
// environment, where set.
func withPostgresEnv(c Config) (Config, error) {
	if c.postgresFromEnv() == "" {
		return c, nil
	}
	if _, err := pgrecords.ParseURL(c.Records.PostgresURL); err != nil {
		return c, fmt.Errorf("records.postgres_url (from $%s): is not a PostgreSQL connection URL; give one such as postgres://USER:PASSWORD@HOST:5432/DATABASE?sslmode=verify-full", PostgresURLEnv)
	}
	return c, nil
}
