package jjx

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/specstack/specstack/internal/xec"
)

// Identity is the author jj records on new commits (user.name and
// user.email, which JJ_USER and JJ_EMAIL override).
type Identity struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// UserIdentity reads user.name and user.email as jj resolves them in dir
// (user, repository and environment configuration). An unset key reads as
// "": jj prints nothing and exits 0 for it.
func UserIdentity(ctx context.Context, bin, dir string) (Identity, error) {
	get := func(key string) (string, error) {
		out, err := xec.Output(ctx, xec.Cmd{Name: bin, Dir: dir, Timeout: 30 * time.Second,
			Args: []string{"--no-pager", "--color=never", "--ignore-working-copy", "config", "get", key}})
		if err != nil {
			return "", fmt.Errorf("jj config get %s: %w", key, err)
		}
		return strings.TrimSpace(string(out)), nil
	}
	name, err := get("user.name")
	if err != nil {
		return Identity{}, err
	}
	email, err := get("user.email")
	if err != nil {
		return Identity{}, err
	}
	return Identity{Name: name, Email: email}, nil
}

// IdentityHint says how to set what id lacks, or "" when both are set.
func (id Identity) IdentityHint() string {
	var missing, cmds []string
	if id.Name == "" {
		missing = append(missing, "user.name")
		cmds = append(cmds, "`jj config set --user user.name \"Your Name\"`")
	}
	if id.Email == "" {
		missing = append(missing, "user.email")
		cmds = append(cmds, "`jj config set --user user.email \"you@example.com\"`")
	}
	if len(missing) == 0 {
		return ""
	}
	return "jj " + strings.Join(missing, " and ") + " not configured (jj records new commits without an author): run " + strings.Join(cmds, " and ")
}

// String is "Name <email>", with "(unset)" for what is missing.
func (id Identity) String() string {
	name, email := id.Name, id.Email
	if name == "" {
		name = "(name unset)"
	}
	if email == "" {
		email = "email unset"
	}
	return name + " <" + email + ">"
}
