package ghapi

import (
	"net/http"
	"strconv"
	"time"
)

// resetTime renders when a rate limit lifts, from X-RateLimit-Reset (Unix
// seconds) or Retry-After (seconds).
func resetTime(h http.Header) string {
	if v := h.Get("X-RateLimit-Reset"); v != "" {
		if sec, err := strconv.ParseInt(v, 10, 64); err == nil {
			return time.Unix(sec, 0).UTC().Format(time.RFC3339)
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		return "in " + v + "s"
	}
	return ""
}
