package stackcli

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"github.com/specstack/specstack/internal/cliapp"
	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/regfile"
	"github.com/specstack/specstack/stack"
)

// maxBody bounds a pull request body read from --body-file (GitHub's own
// limit is 65,536 characters).
const maxBody = 1 << 20

func prCommand() *cli.Command {
	return &cli.Command{
		Name:      "pr",
		Usage:     "push a branch (or jj bookmark) once and open its pull request, or update the open one's body",
		ArgsUsage: "BRANCH",
		Description: `Pushes BRANCH to origin when origin does not have it at that commit (in jj
through "jj git push -b"): a branch origin has at another commit is refused,
and nothing is ever force-pushed. Then the branch's open pull request gets the
new body (its title, base and draft state stay; a note says so when --title,
--base or --draft ask otherwise), or a pull request is opened with --title and
the body, on --base (default the repository's default branch), as a draft with
--draft. --check only checks what opening one needs (the GitHub repository
from GH_REPO or origin, a token) and prints the repository: nothing is
pushed, no request is sent.
jj openspec apply and propose --publish publish through this verb (apply
runs --check before its workers when it will open a pull request).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "title", Usage: "title of a new pull request (required)"},
			&cli.StringFlag{Name: "body-file", Usage: "the body, read from `FILE` (- for standard input; required)"},
			&cli.StringFlag{Name: "base", Usage: "base branch of a new pull request (default: the repository's default branch)"},
			&cli.BoolFlag{Name: "draft", Usage: "open a new pull request as a draft"},
			&cli.BoolFlag{Name: "check", Usage: "only check the repository and token a pull request needs; push nothing, send nothing"},
		},
		Action: func(c *cli.Context) error {
			branch, err := oneBranch(c)
			if err != nil {
				return err
			}
			if c.Bool("check") {
				env, _, err := connect(c)
				if err != nil {
					return err
				}
				res := &prCheck{Branch: branch, Host: env.GH.T.Host, Repository: env.GH.T.Repo()}
				return cliapp.Emit(c, res, res.writeText)
			}
			for _, f := range []string{"title", "body-file"} {
				if c.String(f) == "" {
					return exitcode.New(exitcode.Usage, "pr: --%s is required", f)
				}
			}
			body, err := readBody(c, c.String("body-file"))
			if err != nil {
				return err
			}
			env, _, err := connect(c)
			if err != nil {
				return err
			}
			res, err := stack.PublishPR(c.Context, env, stack.PRRequest{Branch: branch, Title: c.String("title"),
				Body: body, Base: c.String("base"), Draft: c.Bool("draft")})
			if err != nil {
				return err
			}
			return cliapp.Emit(c, res, res.WriteText)
		},
	}
}

// readBody reads the body from path, or standard input for "-".
func readBody(c *cli.Context, path string) (string, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(io.LimitReader(c.App.Reader, maxBody+1))
	} else {
		data, err = regfile.Read(path)
	}
	if err != nil {
		return "", exitcode.New(exitcode.Usage, "--body-file %s: %w", path, err)
	}
	if len(data) > maxBody {
		return "", exitcode.New(exitcode.Usage, "--body-file %s: over %d bytes; GitHub takes at most 65,536 characters", path, maxBody)
	}
	return string(data), nil
}

func pushCommand() *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "push a branch (or jj bookmark) to origin once: never over another commit, never forced",
		ArgsUsage: "BRANCH",
		Description: `Pushes BRANCH to origin when origin does not have it at that commit (in jj
through "jj git push -b"). A branch origin has at another commit is refused,
naming both commits; nothing is ever force-pushed. jj openspec apply pushes
its feat/ bookmark through this verb before opening the pull request.`,
		Action: func(c *cli.Context) error {
			branch, err := oneBranch(c)
			if err != nil {
				return err
			}
			// Only the repository: pushing needs no GitHub token.
			dir, err := cliapp.RepoDir(c)
			if err != nil {
				return exitcode.Wrap(exitcode.Usage, err)
			}
			vcs, err := stack.OpenVCS(c.Context, dir)
			if err != nil {
				return err
			}
			pushed, err := vcs.Publish(c.Context, branch)
			if err != nil {
				return err
			}
			res := &stack.PushResult{Branch: branch, Push: string(pushed)}
			return cliapp.Emit(c, res, res.WriteText)
		},
	}
}

// oneBranch is the command's one argument, a branch (or bookmark).
func oneBranch(c *cli.Context) (string, error) {
	args, err := cliapp.Args(c)
	if err != nil {
		return "", err
	}
	if len(args) != 1 {
		return "", exitcode.New(exitcode.Usage, "%s: name one branch (got %d arguments)", c.Command.Name, len(args))
	}
	return args[0], nil
}

// prCheck is `pr --check`'s report: where the pull request of Branch
// would be opened.
type prCheck struct {
	Branch     string `json:"branch"`
	Host       string `json:"host"`
	Repository string `json:"repository"`
}

func (r *prCheck) writeText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "pr %s: would open on %s/%s (repository and token found; nothing sent)\n", r.Branch, r.Host, r.Repository)
	return err
}
