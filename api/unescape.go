package api

import "net/url"

func urlQueryUnescape(s string) (string, error) { return url.QueryUnescape(s) }
