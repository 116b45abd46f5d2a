package ghapi

import "fmt"

// RepoError is a repository Resolve cannot tell: GH_REPO is not a
// repository (GHRepo), the origin remote is not a GitHub URL (Origin), or
// neither is there.
type RepoError struct {
	GHRepo string // GH_REPO's value, when set
	Origin string // the origin remote's URL, when GH_REPO is not set
	Err    error  // why the value names no repository
}

func (e *RepoError) Error() string {
	switch {
	case e.GHRepo != "":
		return fmt.Sprintf("GH_REPO=%q: %v (want OWNER/REPO or HOST/OWNER/REPO)", e.GHRepo, e.Err)
	case e.Origin != "":
		return fmt.Sprintf("cannot tell the GitHub repository from origin %q: %v; set GH_REPO=OWNER/REPO", e.Origin, e.Err)
	}
	return "cannot tell which GitHub repository to use: the repository has no origin remote; set GH_REPO=OWNER/REPO"
}

func (e *RepoError) Unwrap() error { return e.Err }

// TokenError is a host Resolve has no token for: none is configured, or
// (Err, the context's error) the search was cut short.
type TokenError struct {
	Host string
	Err  error // the context's error when the search was cut short; nil when there is no token
}

func (e *TokenError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("read the GitHub token for %s: %v", e.Host, e.Err)
	}
	return fmt.Sprintf("no GitHub token for %s: %s", e.Host, LoginHint)
}

func (e *TokenError) Unwrap() error { return e.Err }

// configTimeout names the configuration's request limit in messages.
const configTimeout = "[github] timeout"

// SettingError is a setting whose value cannot be used: APIURLEnv,
// TimeoutEnv or the configuration's [github] timeout.
type SettingError struct {
	Name  string // the environment variable, or "[github] timeout"
	Value string
	Err   error // why the value is refused; nil for a URL that is not http(s)
}

func (e *SettingError) Error() string {
	switch {
	case e.Name == configTimeout:
		return fmt.Sprintf("%s = %q: %v", e.Name, e.Value, e.Err)
	case e.Err == nil:
		return fmt.Sprintf("%s=%q is not an http(s) URL (want e.g. https://ghe.example.com/api/v3/)", e.Name, e.Value)
	}
	return fmt.Sprintf("%s=%q: %v", e.Name, e.Value, e.Err)
}

func (e *SettingError) Unwrap() error { return e.Err }
