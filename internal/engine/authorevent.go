package engine

import (
	"reflect"
	"sync"
	"time"

	"github.com/specstack/specstack/spec"
)

// jj-openspec's authoring runs (propose, new, ff) keep one ledger per
// change (author/<change>.toml) of the engine's events, in the stored
// form they have had since their first release (authorRecord: kind
// first, no task), folded by FoldAuthor.

// AuthorEvent is an event of an authoring run's ledger.
type AuthorEvent struct{ Event }

// StoredForm is the event's stored form (ledger.Stored).
func (e AuthorEvent) StoredForm() any { return authorVocab().store(e.Event).Interface() }

// Restore decodes an event from its stored form (ledger.Restorer).
func (e *AuthorEvent) Restore(decode func(v any) error) error {
	var r authorRecord
	if err := decode(&r); err != nil {
		return err
	}
	e.Event = authorVocab().load(reflect.ValueOf(r))
	return nil
}

// authorRecord is an authoring event as stored.
type authorRecord struct {
	Kind         string       `toml:"kind"`
	At           time.Time    `toml:"at"`
	Status       string       `toml:"status,omitempty"`
	ExitCode     int          `toml:"exit_code,omitempty"`
	Commit       string       `toml:"commit,omitempty"`
	Revision     string       `toml:"revision,omitempty"`
	RevisionFrom string       `toml:"revision_from,omitempty"`
	ChangeID     string       `toml:"change_id,omitempty"`
	Files        []string     `toml:"files,omitempty"`
	Valid        bool         `toml:"valid,omitempty"`
	Ready        bool         `toml:"ready,omitempty"`
	Issues       []spec.Issue `toml:"issue,omitempty"`
	PRNumber     int          `toml:"pr_number,omitempty"`
	PRURL        string       `toml:"pr_url,omitempty"`
	PRAction     string       `toml:"pr_action,omitempty"`
	Reason       string       `toml:"reason,omitempty"`
}

// authorPayloads is the authoring ledger's conversion table.
var authorPayloads = []Payload{AuthorProvisioned{}, AuthorWorked{}, Drafted{}, AuthorBookmarked{},
	AuthorPublished{}, AuthorReleased{}, AuthorDone{}}

// authorVocab is built on first use, as engineVocab is.
var authorVocab = sync.OnceValue(func() *vocabulary { return newVocabulary(reflect.TypeFor[authorRecord](), "", authorPayloads) })

// The payloads of an authoring run, in the order it records them.
type (
	// AuthorProvisioned: the authoring workspace is at Path.
	AuthorProvisioned struct {
		Path string `flat:"reason"`
	}
	// AuthorWorked: the worker ended with Status (Reason "empty": it
	// left nothing).
	AuthorWorked struct {
		Status   string `flat:"status"`
		ExitCode int    `flat:"exit_code"`
		Reason   string `flat:"reason"`
	}
	// Drafted: the worker's draft, collected and validated.
	Drafted struct {
		Commit       string       `flat:"commit"`
		Revision     string       `flat:"revision"`
		RevisionFrom string       `flat:"revision_from"`
		ChangeID     string       `flat:"change_id"`
		Files        []string     `flat:"files"`
		Valid        bool         `flat:"valid"`
		Ready        bool         `flat:"ready"`
		Issues       []spec.Issue `flat:"issue"`
	}
	// AuthorBookmarked: the change's bookmark is at Commit.
	AuthorBookmarked struct {
		Commit string `flat:"commit"`
	}
	// AuthorPublished: the draft was pushed (Status pushed or
	// already-published) and, with a PR, its pull request.
	AuthorPublished struct {
		Status   string `flat:"status"`
		PRNumber int    `flat:"pr_number"`
		PRURL    string `flat:"pr_url"`
		PRAction string `flat:"pr_action"`
	}
	// AuthorReleased: the authoring workspace is gone.
	AuthorReleased struct{}
	// AuthorDone: the run ended (Status valid or invalid) at Commit.
	AuthorDone struct {
		Status string `flat:"status"`
		Commit string `flat:"commit"`
	}
)

// Kinds of an authoring run's events (its ledger's stored kinds).
const (
	EvAuthorProvisioned = "provisioned"
	EvAuthorWorker      = "worker"
	EvAuthorDrafted     = "drafted"
	EvAuthorBookmarked  = "bookmarked"
	EvAuthorPublished   = "published"
	EvAuthorReleased    = "released"
	EvAuthorDone        = "done"
)

func (AuthorProvisioned) Kind() string { return EvAuthorProvisioned }
func (AuthorWorked) Kind() string      { return EvAuthorWorker }
func (Drafted) Kind() string           { return EvAuthorDrafted }
func (AuthorBookmarked) Kind() string  { return EvAuthorBookmarked }
func (AuthorPublished) Kind() string   { return EvAuthorPublished }
func (AuthorReleased) Kind() string    { return EvAuthorReleased }
func (AuthorDone) Kind() string        { return EvAuthorDone }
func (AuthorProvisioned) payload()     {}
func (AuthorWorked) payload()          {}
func (Drafted) payload()               {}
func (AuthorBookmarked) payload()      {}
func (AuthorPublished) payload()       {}
func (AuthorReleased) payload()        {}
func (AuthorDone) payload()            {}

// AuthorState is what an authoring run's events say so far.
type AuthorState struct {
	Provisioned bool
	Worker      *AuthorWorked // the last worker's
	Drafted     *Drafted
	Bookmarked  bool
	Published   *AuthorPublished
	Released    bool
	Done        *AuthorDone
}

// FoldAuthor derives an authoring run's state from its events.
func FoldAuthor(events []AuthorEvent) AuthorState {
	var s AuthorState
	for _, e := range events {
		switch p := e.Payload.(type) {
		case AuthorProvisioned:
			s.Provisioned = true
		case AuthorWorked:
			// A worker run again supersedes what the last one left.
			s.Worker, s.Drafted, s.Bookmarked = &p, nil, false
		case Drafted:
			s.Drafted = &p
		case AuthorBookmarked:
			s.Bookmarked = true
		case AuthorPublished:
			s.Published = &p
		case AuthorReleased:
			s.Released = true
		case AuthorDone:
			s.Done = &p
		}
	}
	return s
}
