package specwrite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/specstack/specstack/spec"
	"github.com/specstack/specstack/spec/drift"
)

// ArchiveOptions are archive's flags.
type ArchiveOptions struct {
	Yes          bool // archive with tasks unchecked
	SkipSpecs    bool // move the change, leave the specs
	DryRun       bool // plan only: no lock, nothing written
	NoDriftCheck bool // exactly OpenSpec's archive: no drift.Refuse
	// Ask puts a yes/no question to the person running archive; nil when
	// no answer can be read (no terminal, or --json). Without Yes,
	// archive asks OpenSpec 1.13.2's questions (unchecked tasks, then
	// the specs it would update) under the lock before writing; where it
	// cannot ask it refuses as OpenSpec does (*Blocked, nothing written),
	// and a "no" ends it with ErrCancelled.
	Ask func(question string) (bool, error)
	// JSON: the refusals are worded for --json, as OpenSpec's are.
	JSON bool
}

// ErrCancelled: the person declined at a question; archive ends with
// "Archive cancelled." and exit 0, as OpenSpec's does.
var ErrCancelled = errors.New("archive cancelled")

// Archive is `jj openspec archive CHANGE`: under the project lock (none
// for a dry run), the drift refusal (drift.Refuse, unless NoDriftCheck or
// SkipSpecs), the native archive's plan and, unless dry, its write
// through the intent journal, under OpenSpec's archive claim
// (ClaimName). A plan refused by validation comes back
// with the error, for its issues; any other error comes back with a nil
// plan.
func Archive(ctx context.Context, r spec.Root, name string, o ArchiveOptions) (*spec.ArchivePlan, error) {
	release, jdir, err := lockUnless(r, o.DryRun)
	if err != nil {
		return nil, err
	}
	defer release()
	// The drift check runs first, so a stale change gets its finding and
	// fix rather than the merge's refusal; a failure to read history is
	// reported only when the archive itself would go ahead.
	var driftErr error
	if !o.NoDriftCheck && !o.SkipSpecs {
		var refused bool
		refused, driftErr = drift.Refuse(ctx, r, name)
		if refused {
			return nil, Classify(driftErr)
		}
	}
	plan, err := r.PlanArchive(name, spec.ArchiveOptions{Yes: true, SkipSpecs: o.SkipSpecs})
	if err != nil {
		// OpenSpec asks its questions before it applies the deltas: a
		// delta that cannot be applied, or a spec rebuilt invalid, is
		// found only once they are answered.
		if plan != nil && !o.Yes && !o.DryRun {
			var cerr error
			switch {
			case errors.As(err, new(*spec.MergeError)) || errors.As(err, new(*spec.RebuiltInvalidError)):
				cerr = confirm(name, o, plan, true)
			case errors.Is(err, spec.ErrArchiveExists):
				// OpenSpec checks the destination between its two
				// questions.
				cerr = confirm(name, o, plan, false)
			}
			if cerr != nil {
				return nil, cerr
			}
		}
		if errors.Is(err, spec.ErrArchiveExists) && plan != nil && plan.ArchiveName != "" {
			// OpenSpec's refusal, after the task status it has printed.
			return plan, &Blocked{Code: "archive_target_exists", Message: fmt.Sprintf("Archive '%s' already exists.", plan.ArchiveName),
				Stdout: TaskStatus(plan.Progress, len(plan.Incomplete), o.Yes)}
		}
		return plan, Classify(err)
	}
	if driftErr != nil {
		return nil, Classify(driftErr)
	}
	if !o.DryRun {
		if !o.Yes {
			if err := confirm(name, o, plan, true); err != nil {
				return nil, err
			}
		}
		// OpenSpec's own claim, so that it and jj-openspec never archive
		// into one project at once.
		unclaim, err := claimArchive(plan.ArchivePath, plan.ArchiveName, filepath.Dir(jdir))
		if err != nil {
			return nil, err
		}
		defer unclaim()
		if err := plan.Apply(jdir); err != nil {
			return nil, Classify(err)
		}
	}
	return plan, nil
}

// confirm asks, without --yes, the questions OpenSpec 1.13.2's archive
// asks before it writes (unchecked tasks, then the specs it would
// update). The plan was made as if Yes, so unchecked tasks are in
// plan.Incomplete. Where no answer can be read it refuses as OpenSpec
// does: its code, message and fix. The spec question only when specs is
// set.
func confirm(name string, o ArchiveOptions, p *spec.ArchivePlan, specs bool) error {
	rerun := "openspec archive " + name
	if o.SkipSpecs {
		rerun += " --skip-specs"
	}
	rerun += " --yes"
	ask := func(question string, refuse func() *Blocked) error {
		if o.Ask == nil {
			return refuse()
		}
		ok, err := o.Ask(question)
		if err != nil {
			return err
		}
		if !ok {
			return ErrCancelled
		}
		return nil
	}
	// Without an answer OpenSpec has printed the task status and its
	// question (on stdout) when it refuses.
	status := TaskStatus(p.Progress, 0, false)
	if n := len(p.Incomplete); n > 0 {
		question := fmt.Sprintf("Warning: %d incomplete task(s) found. Continue?", n)
		err := ask(question, func() *Blocked {
			if o.JSON {
				return &Blocked{Code: "archive_tasks_incomplete", Message: fmt.Sprintf("%d incomplete task(s) found for change '%s'.", n, name), Fix: "Complete the tasks or rerun with --yes."}
			}
			return &Blocked{Code: "archive_tasks_incomplete", Message: fmt.Sprintf("%d incomplete task(s) found for change '%s', and no answer could be read from stdin.", n, name), Fix: "Complete the tasks or rerun with " + rerun,
				Stdout: status + question + " (y/N) "}
		})
		if err != nil {
			return err
		}
	}
	if n := len(p.Specs) + len(p.Unmerged); n > 0 && !o.SkipSpecs && specs {
		return ask("Proceed with spec updates?", func() *Blocked {
			if o.JSON {
				return &Blocked{Code: "archive_confirmation_required", Message: fmt.Sprintf("Updating %d spec(s) requires confirmation: rerun with --yes.", n), Fix: "openspec archive <change-name> --json --yes"}
			}
			return &Blocked{Code: "archive_confirmation_required", Message: fmt.Sprintf("Updating %d spec(s) requires confirmation, and no answer could be read from stdin.", n), Fix: rerun,
				Stdout: status + SpecsToUpdate(append(p.Changes(), p.Unmerged...)) + "Proceed with spec updates? (Y/n) "}
		})
	}
	return nil
}

// TaskStatus is the task status OpenSpec 1.13.2's archive prints first,
// and, when incomplete tasks are passed over with yes, its warning.
func TaskStatus(progress spec.TaskProgress, incomplete int, yes bool) string {
	s := fmt.Sprintf("Task status: %s\n", progress)
	if incomplete > 0 && yes {
		s += fmt.Sprintf("Warning: %d incomplete task(s) found. Continuing due to --yes flag.\n", incomplete)
	}
	return s
}

// SpecsToUpdate is OpenSpec 1.13.2's list of the specs an archive will
// write ("" for none).
func SpecsToUpdate(specs []spec.SpecChange) string {
	if len(specs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nSpecs to update:\n")
	for _, s := range specs {
		action := "update"
		if s.Action == "create" {
			action = "create"
		}
		fmt.Fprintf(&b, "  %s: %s\n", s.ID, action)
	}
	return b.String()
}
