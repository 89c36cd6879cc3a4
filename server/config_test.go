package server

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/turnzerocloud/tzctx/internal/ops/identity"
)

// TestLoadConfigFaults: each fault of a configuration file stops the
// loader with an error that names the file, the member and what to do.
func TestLoadConfigFaults(t *testing.T) {
	t.Parallel()
	sum := identity.SHA256("tok")
	cred := func(extra string) string {
		return `{"credentials": [{"token_sha256": "` + sum + `", "account": "acme"` + extra + `}]}`
	}
	oidc := func(members string) string { return `{"oidc": {` + members + `}}` }
	const good = `"issuer": "https://id.example.com", "audience": "tzctx", "jwks_url": "https://id.example.com/keys"`
	cases := []struct {
		name, json string
		want       []string
	}{
		{"clear-token table", `{"credentials": {"tok-a": {"subject": "acme", "profiles": ["blueprint"]}}}`,
			[]string{"credentials: a table of clear tokens is no longer read", "tzctx token new --account A --application B", `"credentials" array`, "sha256sum"}},
		{"trees null", `{"trees": null}`, []string{"trees: is null"}},
		{"zero read timeout", `{"read_timeout": "0s"}`, []string{`read_timeout: "0s" is not a positive duration`}},
		{"negative write timeout", `{"write_timeout": "-1s"}`, []string{`write_timeout: "-1s" is not a positive duration`}},
		{"duration text", `{"watch_interval": "soon"}`, []string{`watch_interval: "soon" is not a positive duration`}},
		{"duration number", `{"read_timeout": 15}`, []string{"read_timeout: 15 is not a positive duration"}},
		{"zero body limit", `{"body_limit_bytes": 0}`, []string{"body_limit_bytes: 0 is not a positive size"}},
		{"negative body limit", `{"body_limit_bytes": -1}`, []string{"body_limit_bytes: -1 is not a positive size"}},
		{"negative answer cache", `{"answer_cache_bytes": -1}`, []string{"answer_cache_bytes: -1 is negative", "or 0 to keep none"}},
		{"token_sha256 not hex", `{"credentials": [{"token_sha256": "tok", "account": "acme"}]}`,
			[]string{"credentials[0].token_sha256: must be 64 hex digits", "tzctx token new"}},
		{"token_sha256 short", `{"credentials": [{"token_sha256": "` + sum[:62] + `", "account": "acme"}]}`,
			[]string{"credentials[0].token_sha256: must be 64 hex digits"}},
		{"token_sha256 missing", `{"credentials": [{"account": "acme"}]}`,
			[]string{"credentials[0].token_sha256: must be 64 hex digits"}},
		{"duplicate token", `{"credentials": [{"token_sha256": "` + sum + `", "account": "a"}, {"token_sha256": "` + strings.ToUpper(sum) + `", "account": "b"}]}`,
			[]string{"credentials[1].token_sha256: the same token as credentials[0]"}},
		{"missing account", `{"credentials": [{"token_sha256": "` + sum + `", "application": "x"}]}`,
			[]string{"credentials[0].account: is missing"}},
		{"empty profile", cred(`, "profiles": ["blueprint", ""]`),
			[]string{"credentials[0].profiles[1]: is empty"}},
		{"unknown credential member", cred(`, "subject": "acme"`),
			[]string{`unknown field "subject"`}},
		{"bad tree access", `{"trees": {"cloud": "everyone"}}`,
			[]string{`trees.cloud: "everyone" must be anonymous, signed_in or product_profile:<name>`}},
		{"bad tree name", `{"trees": {"manual": "anonymous"}}`,
			[]string{`trees: "manual" is not a tree name`}},
		{"negative retention", `{"records": {"retention_days": -1}}`,
			[]string{"records.retention_days: -1 is negative"}},
		{"negative max bytes", `{"records": {"max_bytes": -5}}`,
			[]string{"records.max_bytes: -5 is negative"}},
		{"postgres_url unparsable", `{"records": {"postgres_url": "postgres://u:pw@db:port/x"}}`,
			[]string{"records.postgres_url: is not a PostgreSQL connection URL"}},
		{"zero spool bound", `{"records": {"postgres_url": "postgres://db/x", "spool_max_bytes": 0}}`,
			[]string{"records.spool_max_bytes: 0 is not a positive size"}},
		{"embedded off without postgres", `{"records": {"embedded": false}}`,
			[]string{"records.embedded: is false without records.postgres_url"}},
		{"oidc without issuer", oidc(`"audience": "tzctx", "jwks_url": "https://id.example.com/keys"`),
			[]string{`oidc.issuer: "" must be an absolute http(s) URL`}},
		{"oidc issuer not a URL", oidc(`"issuer": "id.example.com", "audience": "tzctx", "jwks_url": "https://id.example.com/keys"`),
			[]string{`oidc.issuer: "id.example.com" must be an absolute http(s) URL`}},
		{"oidc jwks_url relative", oidc(`"issuer": "https://id.example.com", "audience": "tzctx", "jwks_url": "/keys"`),
			[]string{`oidc.jwks_url: "/keys" must be an absolute http(s) URL`}},
		{"oidc jwks_url of another scheme", oidc(`"issuer": "https://id.example.com", "audience": "tzctx", "jwks_url": "file:///etc/keys"`),
			[]string{`oidc.jwks_url: "file:///etc/keys" must be an absolute http(s) URL`}},
		{"oidc without audience", oidc(`"issuer": "https://id.example.com", "jwks_url": "https://id.example.com/keys"`),
			[]string{"oidc.audience: is missing"}},
		{"oidc resource not a URL", oidc(good + `, "resource": "/mcp"`),
			[]string{`oidc.resource: "/mcp" must be the absolute http(s) URL of this server's /mcp`}},
		{"oidc unknown member", oidc(good + `, "client_secret": "s"`),
			[]string{`unknown field "client_secret"`}},
		{"oidc not an object", `{"oidc": "https://id.example.com"}`,
			[]string{"cannot unmarshal string"}},
		{"unknown member", `{"adress": "127.0.0.1:9"}`,
			[]string{`unknown field "adress"`, "configuration page of the cloud manual"}},
		{"not JSON", `{`, []string{"unexpected EOF"}},
		{"zero follow request timeout", `{"follow": {"request_timeout": "0s"}}`, []string{"follow.request_timeout: 0s is not a positive duration"}},
		{"negative follow stall timeout", `{"follow": {"stall_timeout": "-1s"}}`, []string{"follow.stall_timeout: -1s is not a positive duration"}},
		{"zero max version bytes", `{"max_version_bytes": 0}`, []string{"max_version_bytes: 0 is not a positive size"}},
		{"search budget max under the least budget", `{"search_budget_max": 499}`, []string{"search_budget_max: 499 is outside 500 through 1048576"}},
		{"search budget max over its bound", `{"search_budget_max": 2000000}`, []string{"search_budget_max: 2000000 is outside 500 through 1048576"}},
		{"instructions bound too small", `{"mcp_instructions_max_chars": 100}`, []string{"mcp_instructions_max_chars: 100 is outside 800 through 20000", "leave it out for 1200"}},
		{"zero max in flight", `{"max_in_flight": 0}`, []string{"max_in_flight: 0 is not a positive bound"}},
		{"negative max in flight", `{"max_in_flight": -4}`, []string{"max_in_flight: -4 is not a positive bound"}},
		{"negative queue wait", `{"queue_wait": "-1s"}`, []string{`queue_wait: "-1s" is not a duration of zero or more`}},
		{"queue wait a number", `{"queue_wait": 100}`, []string{`queue_wait: 100 is not a duration`}},
		{"rate limit without a rate", `{"rate_limit": {"burst": 5}}`, []string{"rate_limit.per_second: 0 is not a positive rate"}},
		{"rate limit negative rate", `{"rate_limit": {"per_second": -1, "burst": 5}}`, []string{"rate_limit.per_second: -1 is not a positive rate"}},
		{"rate limit without a burst", `{"rate_limit": {"per_second": 5}}`, []string{"rate_limit.burst: 0 is not a positive size"}},
		{"rate limit anonymous rule", `{"rate_limit": {"per_second": 5, "burst": 5, "anonymous": "per_ip"}}`,
			[]string{`rate_limit.anonymous: "per_ip" must be per_address, shared or unlimited`}},
		{"rate limit negative buckets", `{"rate_limit": {"per_second": 5, "burst": 5, "max_buckets": -1}}`, []string{"rate_limit.max_buckets: -1 is negative"}},
		{"oidc jwks_min_refresh not a duration", oidc(good + `, "jwks_min_refresh": "often"`),
			[]string{`oidc.jwks_min_refresh: "often" is not a positive duration`}},
		{"oidc negative max_keys_tried", oidc(good + `, "max_keys_tried": -2`),
			[]string{"oidc.max_keys_tried: -2 is negative"}},
		{"allowed host with a scheme", `{"allowed_hosts": ["https://docs.example.com"]}`,
			[]string{`allowed_hosts[0]: "https://docs.example.com" is not a host name`}},
		{"allowed host with a port", `{"allowed_hosts": ["docs.example.com", "docs.example.com:443"]}`,
			[]string{`allowed_hosts[1]: "docs.example.com:443" is not a host name`}},
		{"rate limit unknown member", `{"rate_limit": {"per_second": 5, "burst": 5, "per_minute": 5}}`, []string{`unknown field "per_minute"`}},
		{"negative share of slots", `{"max_in_flight_per_caller": -1}`, []string{"max_in_flight_per_caller: -1 is not between 1 and max_in_flight (64)"}},
		{"share above every slot", `{"max_in_flight": 8, "max_in_flight_per_caller": 9}`, []string{"max_in_flight_per_caller: 9 is not between 1 and max_in_flight (8)"}},
		{"zero completion words", `{"mcp_completions": {"max_words": 0}}`, []string{"mcp_completions.max_words: 0 is not a positive bound", "16 (the default)"}},
		{"negative completion candidates", `{"mcp_completions": {"max_candidates": -5}}`, []string{"mcp_completions.max_candidates: -5 is not a positive bound"}},
	}
	dir := t.TempDir()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := filepath.Join(dir, fmt.Sprintf("case%02d.json", i))
			if err := os.WriteFile(f, []byte(c.json), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadConfig(f)
			if err == nil {
				t.Fatalf("LoadConfig(%s) = nil error", c.json)
			}
			if !strings.HasPrefix(err.Error(), "config "+f+": ") {
				t.Errorf("error %q does not start by naming the file", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestLoadConfigDefaults: no path, or a path where no file is, is the
// defaults; a good file's digests are lowercased and the oidc claim names
// defaulted.
func TestLoadConfigDefaults(t *testing.T) {
	t.Parallel()
	for _, p := range []string{"", filepath.Join(t.TempDir(), "absent.json")} {
		c, err := LoadConfig(p)
		if err != nil || !reflect.DeepEqual(c, DefaultConfig()) {
			t.Errorf("LoadConfig(%q) = %+v, %v; want the defaults", p, c, err)
		}
	}
	sum := identity.SHA256("tok")
	f := filepath.Join(t.TempDir(), "tzctx.json")
	body := `{"credentials": [{"token_sha256": "` + strings.ToUpper(sum) + `", "account": "acme", "profiles": ["blueprint"]}],
		"oidc": {"issuer": "https://id.example.com", "audience": "tzctx", "jwks_url": "https://id.example.com/keys", "resource": "https://docs.example.com/mcp"}}`
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if c.Credentials[0].TokenSHA256 != sum {
		t.Errorf("token_sha256 %q, want it lowercased to %q", c.Credentials[0].TokenSHA256, sum)
	}
	want := identity.OIDCConfig{Issuer: "https://id.example.com", Audience: "tzctx", JWKSURL: "https://id.example.com/keys", AccountClaim: "sub", ProfilesClaim: "tzctx_profiles", Resource: "https://docs.example.com/mcp", MaxKeysTried: identity.DefaultMaxKeysTried}
	if c.OIDC == nil || *c.OIDC != want {
		t.Errorf("oidc %+v, want %+v", c.OIDC, want)
	}
	if c.Addr != DefaultConfig().Addr || c.Records != DefaultConfig().Records {
		t.Errorf("members the file leaves out are not the defaults: %+v", c)
	}
}

// TestLoadConfigShedding: max_in_flight and queue_wait default to 64 and
// 100 ms, queue_wait may be 0, no rate limit is the default, and a rate
// limit's anonymous rule and bucket bound default to per_address and
// 10000.
func TestLoadConfigShedding(t *testing.T) {
	t.Parallel()
	d := DefaultConfig()
	if d.MaxInFlight != 64 || time.Duration(d.QueueWait) != 100*time.Millisecond || d.RateLimit != nil {
		t.Fatalf("defaults: max_in_flight %d, queue_wait %v, rate_limit %+v", d.MaxInFlight, time.Duration(d.QueueWait), d.RateLimit)
	}
	f := filepath.Join(t.TempDir(), "tzctx.json")
	body := `{"max_in_flight": 8, "queue_wait": "0s", "rate_limit": {"per_second": 2.5, "burst": 10}}`
	if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	want := RateLimitConfig{PerSecond: 2.5, Burst: 10, Anonymous: "per_address", MaxBuckets: 10000}
	if c.MaxInFlight != 8 || c.QueueWait != 0 || c.RateLimit == nil || *c.RateLimit != want {
		t.Fatalf("max_in_flight %d, queue_wait %v, rate_limit %+v; want 8, 0s, %+v", c.MaxInFlight, time.Duration(c.QueueWait), c.RateLimit, want)
	}
	if err := os.WriteFile(f, []byte(`{"rate_limit": null}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := LoadConfig(f); err != nil || c.RateLimit != nil {
		t.Fatalf("rate_limit null: %+v, %v; want no rate limit", c.RateLimit, err)
	}
}

// TestConfigTreesKeepTheirDefaults: a file naming some trees leaves the
// others at their default access, so naming cloud never opens blueprint.
func TestConfigTreesKeepTheirDefaults(t *testing.T) {
	t.Parallel()
	f := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(f, []byte(`{"trees": {"cloud": "signed_in"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(f)
	if err != nil {
		t.Fatal(err)
	}
	if a := c.Trees.Access(); a["cloud"] != "signed_in" || a["blueprint"] != "product_profile:blueprint" || a["tzdocs"] != "anonymous" {
		t.Errorf("trees %v", c.Trees)
	}
}

// TestLoadConfigPostgresURL: a PostgreSQL URL that does not parse is
// refused without repeating it, since it may hold a password; one that
// parses is kept, with the embedded records still on by default.
func TestLoadConfigPostgresURL(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"records": {"postgres_url": "postgres://u:s3cretpw@db:notaport/x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(bad); err == nil || strings.Contains(err.Error(), "s3cretpw") {
		t.Fatalf("loadConfig: %v", err)
	}
	good := filepath.Join(dir, "good.json")
	if err := os.WriteFile(good, []byte(`{"records": {"postgres_url": "postgres://u:pw@db:5432/x?sslmode=disable", "spool_max_bytes": 1000000}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(good)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Records.embedded() || c.Records.SpoolMaxBytes != 1000000 || c.Records.RetentionDays != 30 {
		t.Fatalf("records %+v", c.Records)
	}
}

// TestLoadConfigPostgresEnv: $TZCTX_RECORDS_POSTGRES_URL is
// records.postgres_url, over the file's and without a file, and one that
// does not parse is refused naming the variable, not repeating it.
func TestLoadConfigPostgresEnv(t *testing.T) {
	const env = "postgres://u:envpw@db.example.com:5432/m?sslmode=disable"
	t.Setenv(PostgresURLEnv, env)
	f := filepath.Join(t.TempDir(), "tzctx.json")
	if err := os.WriteFile(f, []byte(`{"records": {"postgres_url": "postgres://file/x"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"", f, filepath.Join(t.TempDir(), "absent.json")} {
		c, err := LoadConfig(p)
		if err != nil || c.Records.PostgresURL != env {
			t.Errorf("LoadConfig(%q): postgres_url %q, %v", p, c.Records.PostgresURL, err)
		}
	}
	t.Setenv(PostgresURLEnv, "postgres://u:envpw@db:notaport/m")
	for _, p := range []string{"", f} {
		_, err := LoadConfig(p)
		if err == nil || !strings.Contains(err.Error(), "records.postgres_url (from $"+PostgresURLEnv+")") || strings.Contains(err.Error(), "envpw") {
			t.Errorf("LoadConfig(%q) with a bad URL in the environment: %v", p, err)
		}
	}
}
