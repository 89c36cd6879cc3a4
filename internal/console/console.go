// Package console is the web console tzctx serve answers at /console/: one
// HTML page, its script module and its style sheet, embedded in the
// binary. The page calls the public HTTP actions, and the admin actions
// for an admin credential, with the bearer token its user types in, so it
// shows nothing the API would not.
package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

// Prefix is the path the console is served under.
const Prefix = "/console/"

// Favicon is the path browsers ask for a site's icon at; the console
// answers it with its own icon, the one its page also links to as
// favicon.svg.
const Favicon = "/favicon.ico"

// Root is the server's root path, which the console redirects to Prefix.
const Root = "/"

// CSP is the Content-Security-Policy of every console answer: scripts,
// styles and images from the page's own origin alone, never inline, and
// calls to that origin alone.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

//go:embed static
var static embed.FS

// file is one embedded file, read once.
type file struct {
	body        []byte
	contentType string
	etag        string
}

// types are the content types of the embedded files, by extension.
var types = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".ico":  "image/x-icon",
}

// Files returns the names of the embedded files, as served under Prefix
// (index.html is also served as Prefix itself).
func Files() []string {
	var out []string
	_ = fs.WalkDir(static, "static", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, strings.TrimPrefix(p, "static/"))
		}
		return nil
	})
	return out
}

// Handler returns the handler of Prefix, of the bare /console and of
// Root, which it redirects to Prefix, and of Favicon. It answers GET and
// HEAD alone. Root's redirect is a 302, not a 301, since a browser keeps
// a 301 and the console may later be turned off.
func Handler() http.Handler {
	files := map[string]*file{}
	for _, name := range Files() {
		b, err := static.ReadFile("static/" + name)
		if err != nil {
			panic("console: embedded file " + name + ": " + err.Error())
		}
		sum := sha256.Sum256(b)
		ct := types[path.Ext(name)]
		if ct == "" {
			ct = "application/octet-stream"
		}
		files[name] = &file{body: b, contentType: ct, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		if r.URL.Path == strings.TrimSuffix(Prefix, "/") {
			http.Redirect(w, r, Prefix, http.StatusMovedPermanently)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			plain(w, http.StatusMethodNotAllowed, "the console answers GET and HEAD alone")
			return
		}
		if r.URL.Path == Root {
			http.Redirect(w, r, Prefix, http.StatusFound)
			return
		}
		name, ok := strings.CutPrefix(r.URL.Path, Prefix)
		if r.URL.Path == Favicon {
			name, ok = "favicon.ico", true
		}
		if !ok {
			plain(w, http.StatusNotFound, "no such console file; open "+Prefix)
			return
		}
		if name == "" {
			name = "index.html"
		}
		f := files[name]
		if f == nil {
			plain(w, http.StatusNotFound, "no such console file; open "+Prefix)
			return
		}
		h.Set("Content-Type", f.contentType)
		h.Set("ETag", f.etag)
		// Revalidated on every load, so a new binary's page is never
		// mixed with an old script; the ETag makes that a 304.
		h.Set("Cache-Control", "no-cache")
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(f.body))
	})
}

func plain(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg + "\n"))
}
