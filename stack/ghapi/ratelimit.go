package ghapi

import (
	"context"
	"errors"
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

// secondaryWait is how long GitHub asks a client to wait after a
// secondary rate limit that names no time: "at least one minute".
const secondaryWait = time.Minute

// retryDelay is how long to wait before retrying a rate-limited request,
// as GitHub documents it: Retry-After seconds when sent; else, with
// X-RateLimit-Remaining 0, until X-RateLimit-Reset; else a minute.
func retryDelay(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After"); v != "" {
		if sec, err := strconv.Atoi(v); err == nil && sec >= 0 {
			return time.Duration(sec) * time.Second
		}
	}
	if h.Get("X-RateLimit-Remaining") == "0" {
		if sec, err := strconv.ParseInt(h.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return max(time.Unix(sec, 0).Sub(now), 0)
		}
	}
	return secondaryWait
}

// Backoff bounds the retries of a rate-limited request (followRequest).
type Backoff struct {
	// Tries is how many times a request is sent at most; MaxWait bounds
	// one wait: a limit that lifts later than that ends the call with
	// the *Error.
	Tries   int
	MaxWait time.Duration
}

// DefaultBackoff is the backoff of the calls that follow workflow runs.
var DefaultBackoff = Backoff{Tries: 5, MaxWait: 15 * time.Minute}

// withBackoff calls f until it returns anything but a rate-limited
// *Error, waiting as GitHub asks between tries, within b's bounds and
// ctx.
func withBackoff(ctx context.Context, b Backoff, f func() error) error {
	for try := 1; ; try++ {
		err := f()
		var ge *Error
		if !errors.As(err, &ge) || !ge.RateLimited {
			return err
		}
		ge.Tries = try
		if try >= b.Tries || ge.RetryAfter > b.MaxWait {
			return err
		}
		t := time.NewTimer(ge.RetryAfter)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}
