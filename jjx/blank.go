package jjx

import (
	"context"
	"fmt"
	"strings"
)

// WriteOnBlank runs write in the jj workspace enclosing dir and, when @
// was blank before it (an empty change with no description, as `jj git
// init` or `jj new` leave it), describes @ message afterwards, so that
// files a command wrote for the user's next step do not leave @ holding
// undescribed changes (which a run refuses to squash into). It returns
// the change ID it described, or "" when it described nothing: outside a
// jj workspace, without jj, or when @ held changes or a description of
// the user's (those stay as the user left them).
func WriteOnBlank(ctx context.Context, dir, message string, write func() error) (string, error) {
	var repo *Repo
	blank := ""
	if r, err := Open(ctx, dir); err == nil {
		if ats, err := r.LogDetail(ctx, "@"); err == nil && len(ats) == 1 && ats[0].Empty && strings.TrimSpace(ats[0].Description) == "" {
			repo, blank = r, ats[0].ChangeID
		}
	}
	if err := write(); err != nil {
		return "", err
	}
	if repo == nil {
		return "", nil
	}
	if err := repo.Describe(ctx, "@", message); err != nil {
		return "", fmt.Errorf("describe @ %q (what was written is kept; describe it yourself: `jj describe -m \"…\"`): %w", message, err)
	}
	return blank, nil
}
