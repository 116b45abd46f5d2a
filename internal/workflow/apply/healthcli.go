package apply

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/exitcode"
	"github.com/specstack/specstack/internal/openspec"
	"github.com/specstack/specstack/spec"
)

// CLIValidateTimeout bounds the OpenSpec CLI's validation in the health
// check (it takes about a second; a hung node process must not hold
// apply).
const CLIValidateTimeout = 2 * time.Minute

// NeedsCLI reports whether the change's schema is one the native
// validator does not cover, and names it. The native validator is
// parity-tested against OpenSpec's built-in spec-driven schema only; a
// project schema (openspec/schemas/NAME/, including one that reuses the
// name spec-driven, which OpenSpec itself no longer treats as the
// built-in) may carry rules the native reader does not know, so the real
// CLI judges it.
func NeedsCLI(r spec.Root, change string) (schema string, needs bool, err error) {
	name, err := r.SchemaName(change)
	if err != nil {
		return "", false, err
	}
	s, err := r.LoadSchema(name)
	if err != nil {
		return name, false, err
	}
	return name, s.Source != spec.SpecDriven.Source, nil
}

// cliValidation is the part of `openspec validate CHANGE --json` the
// health check reads.
type cliValidation struct {
	Items []struct {
		ID     string       `json:"id"`
		Valid  bool         `json:"valid"`
		Issues []spec.Issue `json:"issues"`
	} `json:"items"`
}

// validateWithCLI runs `openspec validate CHANGE --type change --json
// --no-interactive` in the project through the wrapper (its environment
// and noise allow-list, a deadline) and returns whether the change is
// valid and its issues (paths as the CLI gives them, as native issues
// give them: relative to the change, or to its specs/ for delta specs).
func validateWithCLI(ctx context.Context, r spec.Root, change string) (bool, []spec.Issue, error) {
	if strings.HasPrefix(change, "-") {
		return false, nil, exitcode.New(exitcode.Usage, "change %q: a name starting with \"-\" would reach the OpenSpec CLI as an option; rename the change's folder", change)
	}
	var out, errb bytes.Buffer
	args := []string{"validate", change, "--type", "change", "--json", "--no-interactive"}
	what := "openspec " + strings.Join(args, " ")
	res, err := openspec.Run(ctx, openspec.Cmd{Args: args, Dir: r.Dir, Stdout: &out, Stderr: &errb, Timeout: CLIValidateTimeout})
	if err != nil {
		if errors.Is(err, openspec.ErrNotFound) {
			return false, nil, exitcode.Wrap(exitcode.Missing, fmt.Errorf("health check of change %q needs the OpenSpec CLI (its schema is a project schema): %w", change, err))
		}
		return false, nil, fmt.Errorf("health check of change %q: %s (deadline %s): %w; nothing was provisioned", change, what, CLIValidateTimeout, err)
	}
	var v cliValidation
	if jerr := json.Unmarshal(out.Bytes(), &v); jerr != nil || len(v.Items) != 1 {
		return false, nil, exitcode.New(exitcode.Failure, "health check of change %q: %s exited %d without one validation result (%v); stderr: %s; nothing was provisioned",
			change, what, res.ExitCode, jerr, strings.TrimSpace(errb.String()))
	}
	it := v.Items[0]
	if it.Valid && res.ExitCode != 0 {
		return false, nil, exitcode.New(exitcode.Failure, "health check of change %q: %s reported valid but exited %d; stderr: %s; nothing was provisioned", change, what, res.ExitCode, strings.TrimSpace(errb.String()))
	}
	return it.Valid, it.Issues, nil
}
