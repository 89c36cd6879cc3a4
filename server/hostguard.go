package server

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// hostGuard is the one Host check of a server's every route, in front of
// everything else (the rate limiter, credentials, the console, /metrics):
// a request that arrived over a loopback connection must name, in its
// Host, a loopback name (localhost, 127.0.0.0/8 or ::1, any port) or one
// of allowed, the allowed_hosts a proxy on the same host forwards. A page
// in a browser on the same host whose name an attacker has rebound to
// 127.0.0.1 (DNS rebinding) sends its own name, and is refused 403
// before any route reads a credential or answers. Requests over other
// connections reach a server its operator exposed on purpose and pass.
func hostGuard(next http.Handler, allowed []string) http.Handler {
	names := map[string]bool{}
	for _, a := range allowed {
		names[hostName(a)] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if local == nil || !loopbackName(local.String()) || loopbackName(r.Host) || names[hostName(r.Host)] {
			next.ServeHTTP(w, r)
			return
		}
		body := []byte(`{"error":{"code":"invalid_request","detail":"the Host header does not name this server: over a loopback connection it answers localhost, 127.0.0.1 and [::1] (any port) and the names listed in allowed_hosts; a reverse proxy on this host forwards Host: localhost or a listed name"}}` + "\n")
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write(body)
	})
}

// hostName is the lower-cased name of a Host header, without its port.
func hostName(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.ToLower(strings.Trim(host, "[]"))
}

// loopbackName reports whether a host or host:port names a loopback
// interface: localhost or a loopback IP address.
func loopbackName(host string) bool {
	h := hostName(host)
	if h == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && ip.IsLoopback()
}

// checkAllowedHosts refuses an allowed_hosts entry that is not a bare
// host name, naming the entry.
func checkAllowedHosts(hosts []string) error {
	for i, h := range hosts {
		if h == "" || strings.ContainsAny(h, "/:@ \t") && !(strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]")) {
			return fmt.Errorf("allowed_hosts[%d]: %q is not a host name; give the name a proxy forwards in Host, without scheme, port or path, such as docs.example.com", i, h)
		}
	}
	return nil
}
