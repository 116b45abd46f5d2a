package stackcli

import (
	"errors"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/stack/ghapi"
)

// githubExit attaches the exit code to an error of ghapi's resolution of
// the repository, the token and the request settings: a repository that
// cannot be told or a bad setting is a usage error, no token a missing
// tool, a search for the token cut short an interruption. Any other error
// is returned as it is. ghapi knows nothing of exit codes, and
// exitcode.Of does not classify its errors (importing ghapi there would
// link the GitHub client into every binary): gh-specstack's commands
// reach that resolution only through connect and loadSettings, which map
// here.
func githubExit(err error) error {
	var tok *ghapi.TokenError
	switch {
	case errors.As(err, &tok) && tok.Err != nil:
		return exitcode.Wrap(exitcode.Interrupted, err)
	case tok != nil:
		return exitcode.Wrap(exitcode.Missing, err)
	case errors.As(err, new(*ghapi.RepoError)), errors.As(err, new(*ghapi.SettingError)):
		return exitcode.Wrap(exitcode.Usage, err)
	}
	return err
}
