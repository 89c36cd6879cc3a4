package console_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/turnzerocloud/tzctx/internal/console"
)

func get(t *testing.T, h http.Handler, method, path string, header ...string) *http.Response {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w.Result()
}

func body(t *testing.T, r *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHandlerServesEachFileWithStrictHeaders: every embedded file, and
// the page at the prefix itself, answers 200 with its content type, the
// strict policy headers and a strong ETag that a revalidation answers 304.
func TestHandlerServesEachFileWithStrictHeaders(t *testing.T) {
	h := console.Handler()
	want := map[string]string{
		"":            "text/html; charset=utf-8",
		"index.html":  "text/html; charset=utf-8",
		"console.js":  "text/javascript; charset=utf-8",
		"score.js":    "text/javascript; charset=utf-8",
		"console.css": "text/css; charset=utf-8",
		"favicon.svg": "image/svg+xml",
		"favicon.ico": "image/x-icon",
	}
	for _, f := range console.Files() {
		if _, ok := want[f]; !ok {
			t.Errorf("embedded file %s has no expected content type in this test; add it", f)
		}
	}
	for name, ct := range want {
		r := get(t, h, http.MethodGet, console.Prefix+name)
		b := body(t, r)
		if r.StatusCode != http.StatusOK {
			t.Fatalf("GET %s%s: %d %s", console.Prefix, name, r.StatusCode, b)
		}
		if got := r.Header.Get("Content-Type"); got != ct {
			t.Errorf("%s: Content-Type %q, want %q", name, got, ct)
		}
		for k, v := range map[string]string{
			"Content-Security-Policy": console.CSP,
			"X-Content-Type-Options":  "nosniff",
			"Referrer-Policy":         "no-referrer",
			"X-Frame-Options":         "DENY",
			"Cache-Control":           "no-cache",
		} {
			if got := r.Header.Get(k); got != v {
				t.Errorf("%s: %s %q, want %q", name, k, got, v)
			}
		}
		etag := r.Header.Get("ETag")
		if !regexp.MustCompile(`^"[0-9a-f]{24}"$`).MatchString(etag) {
			t.Errorf("%s: ETag %q is not a strong quoted digest", name, etag)
		}
		if len(b) == 0 {
			t.Errorf("%s: empty body", name)
		}
		r2 := get(t, h, http.MethodGet, console.Prefix+name, "If-None-Match", etag)
		if r2.StatusCode != http.StatusNotModified {
			t.Errorf("%s with If-None-Match its ETag: %d, want 304", name, r2.StatusCode)
		}
		if r2.Header.Get("Content-Security-Policy") != console.CSP {
			t.Errorf("%s: the 304 lacks the policy", name)
		}
		head := get(t, h, http.MethodHead, console.Prefix+name)
		if head.StatusCode != http.StatusOK || body(t, head) != "" {
			t.Errorf("HEAD %s: %d, want 200 and no body", name, head.StatusCode)
		}
	}
}

// TestPolicyIsTheAgreedOne pins the policy text the issue asks for: no
// inline script or style, calls to the page's own origin alone.
func TestPolicyIsTheAgreedOne(t *testing.T) {
	want := "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	if console.CSP != want {
		t.Errorf("CSP %q, want %q", console.CSP, want)
	}
	if strings.Contains(console.CSP, "unsafe") {
		t.Error("the policy allows something unsafe")
	}
}

// TestRedirectsAndRefusals: /console redirects to /console/, and / does
// too (302, since the console may be turned off later); /favicon.ico is
// the console's icon; an unknown
// file is 404; a method other than GET and HEAD is 405 naming them.
func TestRedirectsAndRefusals(t *testing.T) {
	h := console.Handler()
	r := get(t, h, http.MethodGet, "/console")
	if r.StatusCode != http.StatusMovedPermanently || r.Header.Get("Location") != "/console/" {
		t.Errorf("GET /console: %d Location %q, want 301 to /console/", r.StatusCode, r.Header.Get("Location"))
	}
	r = get(t, h, http.MethodGet, "/")
	if r.StatusCode != http.StatusFound || r.Header.Get("Location") != "/console/" {
		t.Errorf("GET /: %d Location %q, want 302 to /console/", r.StatusCode, r.Header.Get("Location"))
	}
	r = get(t, h, http.MethodGet, "/favicon.ico")
	if b := body(t, r); r.StatusCode != http.StatusOK || r.Header.Get("Content-Type") != "image/x-icon" || !strings.HasPrefix(b, "\x00\x00\x01\x00") {
		t.Errorf("GET /favicon.ico: %d %q %.8q, want 200 and an ICO file", r.StatusCode, r.Header.Get("Content-Type"), b)
	}
	for _, p := range []string{"/console/nope.js", "/console/static/console.js", "/console/../go.mod", "/console/e2e/package.json"} {
		if r := get(t, h, http.MethodGet, p); r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, r.StatusCode)
		}
	}
	r = get(t, h, http.MethodPost, "/console/")
	if r.StatusCode != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /console/: %d Allow %q, want 405 with GET, HEAD", r.StatusCode, r.Header.Get("Allow"))
	}
}

// TestPageHoldsNoInlineScriptOrStyle: the policy would block inline code,
// so none may be relied on: no <script> body, no style element or
// attribute, no on* handler attribute, in the page or built by the script.
func TestPageHoldsNoInlineScriptOrStyle(t *testing.T) {
	h := console.Handler()
	page := body(t, get(t, h, http.MethodGet, console.Prefix))
	if m := regexp.MustCompile(`(?is)<script[^>]*>(.*?)</script>`).FindAllStringSubmatch(page, -1); len(m) == 0 {
		t.Error("the page loads no script")
	} else {
		for _, s := range m {
			if strings.TrimSpace(s[1]) != "" {
				t.Errorf("inline script: %.80q", s[1])
			}
		}
	}
	for _, re := range []string{`(?i)<style`, `(?i)\sstyle\s*=`, `(?i)\son[a-z]+\s*=`, `(?i)javascript:`, `(?i)https?://`} {
		if regexp.MustCompile(re).MatchString(page) {
			t.Errorf("the page matches %s", re)
		}
	}
	for _, f := range []string{"console.js", "score.js"} {
		js := body(t, get(t, h, http.MethodGet, console.Prefix+f))
		for _, re := range []string{`\.style\b`, `innerHTML`, `outerHTML`, `insertAdjacentHTML`, `document\.write`, `\beval\(`, `new Function`, `'style'`, `"style"`} {
			if regexp.MustCompile(re).MatchString(js) {
				t.Errorf("%s matches %s: the policy blocks it, or it builds markup from strings", f, re)
			}
		}
	}
}

// TestScriptNeverPutsTheTokenInAURL: the token goes into the
// Authorization header alone. The script reads it from session storage
// in one function, and no URL it builds (fetch, location, history)
// holds it or the query words.
func TestScriptNeverPutsTheTokenInAURL(t *testing.T) {
	h := console.Handler()
	js := body(t, get(t, h, http.MethodGet, console.Prefix+"console.js"))
	if n := strings.Count(js, "sessionStorage.getItem"); n != 1 {
		t.Errorf("the script reads session storage in %d places, want 1 (token())", n)
	}
	if n := strings.Count(js, "token()"); n < 2 {
		t.Fatalf("token() is used %d times; the test no longer matches the script", n)
	}
	// Every use of the token is in authHeaders, which puts it in the
	// Authorization header, or tests whether one is set.
	for _, line := range strings.Split(js, "\n") {
		l := strings.TrimSpace(line)
		if !strings.Contains(l, "token()") || strings.HasPrefix(l, "function token()") {
			continue
		}
		switch l {
		case "const t = token();", "if (!token()) {":
		default:
			t.Errorf("the token is used outside authHeaders: %q", l)
		}
	}
	if !strings.Contains(js, "h.Authorization = 'Bearer ' + t;") {
		t.Error("authHeaders no longer sets the Authorization header from the token")
	}
	// URLs the script builds: fetch targets are fixed paths, and the hash
	// holds a route and a limit alone.
	for _, m := range regexp.MustCompile(`fetch\(([^,]+),`).FindAllStringSubmatch(js, -1) {
		switch strings.TrimSpace(m[1]) {
		case "'/api/v1/actions/' + encodeURIComponent(action)", "'/metrics'":
		default:
			t.Errorf("fetch of an unexpected URL %s", m[1])
		}
	}
	for _, re := range []string{`location\.(href|search|hash)\s*=`, `location\.assign`, `location\.replace`, `pushState`, `[?&]token=`, `[?&]q=`} {
		if regexp.MustCompile(re).MatchString(js) {
			t.Errorf("the script matches %s", re)
		}
	}
	for _, m := range regexp.MustCompile(`p\.set\('([a-z]+)'`).FindAllStringSubmatch(js, -1) {
		if m[1] != "route" && m[1] != "id" && m[1] != "limit" {
			t.Errorf("the page hash carries %q; it holds a route or a content ID and a limit alone", m[1])
		}
	}
}
