package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strings"

	"github.com/specstack/specstack/internal/lazyregexp"
	"github.com/specstack/specstack/internal/regfile"
)

var statusRe = lazyregexp.New(`(?im)^[ \t*_>-]*status[ \t*_]*:[ \t*_]*(DONE_WITH_CONCERNS|DONE WITH CONCERNS|DONE|BLOCKED|NEEDS_CONTEXT|NEEDS CONTEXT)\b`)

// ErrNoStatus reports a worker's report that names no status: it is
// missing, not a regular file (a symbolic link, a directory), or holds no
// "Status:" line with one of the four words.
var ErrNoStatus = errors.New("no status in the report")

// ParseReport reads the status a worker wrote in its report text
// ("Status: DONE"); ok is false when it names none. The last status line
// wins: fixers append to the implementer's report.
func ParseReport(data []byte) (status string, ok bool) {
	ms := statusRe.FindAllStringSubmatch(string(data), -1)
	if len(ms) == 0 {
		return "", false
	}
	s := strings.ToUpper(strings.ReplaceAll(ms[len(ms)-1][1], " ", "_"))
	switch s {
	case "DONE":
		return StatusDone, true
	case "DONE_WITH_CONCERNS":
		return StatusConcerns, true
	case "BLOCKED":
		return StatusBlocked, true
	default:
		return StatusNeedsContext, true
	}
}

// ReadReport reads the status of the report at path. The error wraps
// ErrNoStatus and says why there is none: the file is missing, is not a
// regular file (a link is never followed), or names no status.
func ReadReport(path string) (string, error) {
	data, err := regfile.ReadNoFollow(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%w: %s was not written", ErrNoStatus, path)
	case err != nil:
		return "", fmt.Errorf("%w: %w", ErrNoStatus, err)
	}
	s, ok := ParseReport(data)
	if !ok {
		return "", fmt.Errorf("%w: %s has no line \"Status: DONE\" (or DONE_WITH_CONCERNS, BLOCKED, NEEDS_CONTEXT)", ErrNoStatus, path)
	}
	return s, nil
}

// ReportStatus reads the status a worker wrote in its report ("Status:
// DONE"); ok is false when the report is missing, is not a regular file
// or names none (ReadReport says which).
func ReportStatus(path string) (status string, ok bool) {
	s, err := ReadReport(path)
	return s, err == nil
}

// Outcome decides how a worker that ended as res did, with its report at
// path: the exit code wins over the report (a worker that wrote "Status:
// DONE" and exited 1 crashed), and a worker that exited 0 without a status
// in a regular report file did not finish (no status is not done). The
// reason explains any status that is not the report's own, naming log.
func Outcome(res Result, report, log string) (status, reason string) {
	switch {
	case res.TimedOut:
		return StatusCrashed, fmt.Sprintf("worker timed out; log %s", log)
	case res.ExitCode != 0 || res.Err != nil:
		why := fmt.Sprintf("worker exited %d", res.ExitCode)
		if res.ExitCode == 0 || (res.Agent != nil || res.Remote) && res.Err != nil {
			why += fmt.Sprintf(" (%v)", res.Err)
		}
		if s, ok := ReportStatus(report); ok {
			why += fmt.Sprintf(" although its report says %s (the exit code wins)", s)
		} else {
			why += " without a status in its report"
		}
		return StatusCrashed, why + "; log " + log
	}
	s, err := ReadReport(report)
	if err != nil {
		return StatusCrashed, fmt.Sprintf("worker exited 0 with %v: a worker that reports no status did not finish; log %s", err, log)
	}
	return s, ""
}

// Finding is one reviewer finding, of every binary: a severity (the one
// scale: critical, important, suggestion), and, from gh-specstack's gate
// reviewers, a kind (see KindSeverity), an id, and the rejected finding it
// raises again with why that rejection's reason is false.
type Finding struct {
	ID        string `json:"id,omitempty"`
	Task      int    `json:"task,omitempty"`
	Severity  string `json:"severity"`
	Kind      string `json:"kind,omitempty"`
	File      string `json:"file,omitempty"`
	Line      int    `json:"line,omitempty"`
	Message   string `json:"message"`
	Reraises  string `json:"reraises,omitempty"`  // the id of the rejected finding it raises again
	Falsifies string `json:"falsifies,omitempty"` // why the rejection's reason is false
}

// Blocking reports whether the finding must be fixed before it lands. A
// finding with a kind and no severity is judged by its kind.
func (f Finding) Blocking() bool {
	sev := f.Severity
	if sev == "" {
		sev = KindSeverity(f.Kind)
	}
	return sev == SeverityCritical || sev == SeverityImportant
}

// ReadFindings reads a findings file: a JSON array of findings, an object
// {"findings": [...]}, or one finding object per line. A missing or empty
// file means no findings.
func ReadFindings(path string) ([]Finding, error) {
	fs, _, err := ReadReview(path)
	return fs, err
}

// ReadReview reads a findings file and the reviewer's confidence score
// (0-100), which the object form may carry beside its findings:
// {"confidence": 85, "findings": [...]}; nil when it reports none.
func ReadReview(path string) ([]Finding, *int, error) {
	data, err := regfile.ReadNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read findings %s: %w", path, err)
	}
	fs, err := ParseFindings(data)
	if err != nil {
		return nil, nil, fmt.Errorf("read findings %s: %w", path, err)
	}
	var conf struct {
		Confidence json.RawMessage `json:"confidence"`
	}
	text := strings.TrimSpace(string(data))
	if !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &conf) != nil || conf.Confidence == nil || string(conf.Confidence) == "null" {
		return fs, nil, nil
	}
	// A number, fractions too (85.5 is 85: a score under the threshold
	// by any fraction is under it); anything else is the reviewer's
	// mistake, never read as 0.
	var c float64
	if err := json.Unmarshal(conf.Confidence, &c); err != nil || c < 0 || c > 100 {
		return nil, nil, fmt.Errorf("read findings %s: confidence %s is not a number between 0 and 100", path, conf.Confidence)
	}
	n := int(math.Floor(c))
	return fs, &n, nil
}

// ParseFindings reads findings: a JSON array, an object {"findings":
// [...]}, or one finding object per line; empty input means none.
func ParseFindings(data []byte) ([]Finding, error) {
	text := strings.TrimSpace(string(data))
	if text == "" {
		return nil, nil
	}
	var err error
	var fs []Finding
	switch text[0] {
	case '[':
		err = json.Unmarshal([]byte(text), &fs)
	case '{':
		var wrap struct {
			Findings *[]Finding `json:"findings"`
		}
		if err = json.Unmarshal([]byte(text), &wrap); err == nil && wrap.Findings != nil {
			fs = *wrap.Findings
			break
		}
		fs = nil
		for i, l := range strings.Split(text, "\n") {
			if strings.TrimSpace(l) == "" {
				continue
			}
			var f Finding
			if err = json.Unmarshal([]byte(l), &f); err != nil {
				return nil, fmt.Errorf("line %d: %w (write a JSON array of {severity, message, file, line, task})", i+1, err)
			}
			fs = append(fs, f)
		}
	default:
		err = errors.New("not JSON")
	}
	if err != nil {
		return nil, fmt.Errorf("%w (write a JSON array of {severity, message, file, line, task})", err)
	}
	for i, f := range fs {
		switch f.Severity {
		case SeverityCritical, SeverityImportant, SeveritySuggestion, SeverityCannotCheck:
		default:
			return nil, fmt.Errorf("finding %d: severity %q is not critical, important, suggestion or cannot-verify", i+1, f.Severity)
		}
	}
	return fs, nil
}

// WriteFindings stores findings as a JSON array.
func WriteFindings(path string, fs []Finding) error {
	if fs == nil {
		fs = []Finding{}
	}
	data, err := json.MarshalIndent(fs, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// Count tallies findings by weight.
func Count(fs []Finding) (critical, important, other int) {
	for _, f := range fs {
		switch f.Severity {
		case SeverityCritical:
			critical++
		case SeverityImportant:
			important++
		default:
			other++
		}
	}
	return
}
