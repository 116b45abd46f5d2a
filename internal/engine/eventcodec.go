package engine

// The event codec. In memory an event is a header and a typed payload
// (event.go); on disk it is one [[event]] table of flat keys, the record
// below, exactly as every release has written it. The invariants:
//   - a ledger any release wrote decodes, every known kind into its
//     payload type, and encodes back to the same bytes
//     (TestLedgerRoundTrip, over ledgers of real runs in testdata/ledgers);
//   - every payload field survives encode then decode
//     (TestEventCodecEveryField);
//   - no content panics a reader, and encoding what decoded is stable
//     (FuzzDecodeEvent).
// An archive name, a bookmark and a pull request's URL stay stored under
// reason, as before: the previous release reads them there.

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/specstack/specstack/internal/agent"
)

// record is an event as it is stored: one [[event]] table of flat keys,
// the same struct for every kind. Its keys, their types and their order
// are the ledger format every release has written and read, so a ledger
// written now reads in an older release and the other way round; only
// the codec below sees it.
type record struct {
	At        time.Time    `toml:"at"`
	Kind      string       `toml:"kind"`
	Task      int          `toml:"task,omitempty"`
	Wave      int          `toml:"wave,omitempty"`
	Role      string       `toml:"role,omitempty"`
	Workspace string       `toml:"workspace,omitempty"`
	Path      string       `toml:"path,omitempty"`
	Base      []string     `toml:"base,omitempty"`
	Change    string       `toml:"change,omitempty"`
	Changes   []string     `toml:"changes,omitempty"`
	Commit    string       `toml:"commit,omitempty"`
	Files     []string     `toml:"files,omitempty"`
	Lines     int          `toml:"lines,omitempty"`
	Status    string       `toml:"status,omitempty"`
	Reason    string       `toml:"reason,omitempty"`
	Op        string       `toml:"op,omitempty"`
	Attempt   int          `toml:"attempt,omitempty"`
	ExitCode  int          `toml:"exit_code,omitempty"`
	Critical  int          `toml:"critical,omitempty"`
	Important int          `toml:"important,omitempty"`
	Other     int          `toml:"other,omitempty"`
	Findings  string       `toml:"findings,omitempty"`
	Command   string       `toml:"command,omitempty"`
	Digest    string       `toml:"digest,omitempty"`
	Tree      string       `toml:"tree,omitempty"`
	PR        int          `toml:"pr,omitempty"`
	Agent     *agent.Usage `toml:"agent,omitempty"`
	Job       string       `toml:"job,omitempty"`
	RunID     int64        `toml:"run_id,omitzero"`
	URL       string       `toml:"url,omitempty"`
	Answer    string       `toml:"answer,omitempty"`
	LogEnd    string       `toml:"log_end,omitempty"`
}

// payloads is the conversion table: one value of each known kind's
// payload type. The flat tag of each of its fields names the key it is
// stored under; a field without one is stored by the payload's own
// storeExtra and restoreExtra.
var payloads = []Payload{
	Provisioned{}, Dispatched{}, Collected{}, Leaked{}, IntegrityFailed{}, Tested{}, NoTestSurface{},
	PassedReview{}, FailedReview{}, Fixing{}, Released{}, Squashing{}, Squashed{}, SquashedTogether{},
	Conflicted{}, Resolved{}, FannedIn{}, Baselined{}, Gated{}, Halted{}, Resumed{}, Completed{},
	Aborted{}, ReceiptRecorded{}, ConfidenceOverridden{},
	SpecsMerged{}, Verified{}, Ticked{}, Archiving{}, Archived{}, Bookmarked{}, Pushed{}, PROpened{},
	TrackerRan{}, Applied{},
	RemoteDispatching{}, RemoteDispatched{}, RemoteFinished{}, RemoteSettled{},
}

// extraStorer is implemented by a payload whose stored form is more than
// its tagged fields; storeExtra runs after they are stored.
type extraStorer interface{ storeExtra(r *record) }

// extraRestorer is the other direction: restoreExtra runs after the
// tagged fields are restored and returns the payload completed.
type extraRestorer interface{ restoreExtra(r *record) Payload }

// flatField maps a payload's field to the record's.
type flatField struct{ payload, record int }

type payloadCodec struct {
	typ    reflect.Type
	fields []flatField
}

// A vocabulary is one ledger's stored form: its record struct (whose
// at, kind, the task's key, wave and role are the event's header) and
// the payloads of the kinds it stores. Two ledgers have one each: the
// engine's (record, payloads), gh-specstack's run (runRecord,
// runPayloads, runevent.go) and jj-openspec's authoring runs
// (authorRecord, authorevent.go), whose events concern no task.
type vocabulary struct {
	rec                        reflect.Type
	at, kind, task, wave, role int // field indexes; -1 when the record has none
	codecs                     map[string]payloadCodec
}

// engineVocab is the engine's ledger's, built on first use rather than
// at start-up (every command of the three binaries would pay for it): a
// payload field naming no key, a key of the event's header, or a key of
// another type panics there, and TestEventCodecEveryField builds every
// vocabulary.
var engineVocab = sync.OnceValue(func() *vocabulary { return newVocabulary(reflect.TypeFor[record](), "task", payloads) })

func newVocabulary(rt reflect.Type, taskKey string, payloads []Payload) *vocabulary {
	keys := map[string]int{}
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("toml"), ",")
		keys[name] = i
	}
	idx := func(key string) int {
		if i, ok := keys[key]; ok {
			return i
		}
		return -1
	}
	v := &vocabulary{rec: rt, at: idx("at"), kind: idx("kind"), task: idx(taskKey), wave: idx("wave"), role: idx("role"), codecs: map[string]payloadCodec{}}
	header := map[string]bool{"at": true, "kind": true, "wave": true, "role": true}
	if taskKey != "" {
		header[taskKey] = true
	}
	for _, p := range payloads {
		pt := reflect.TypeOf(p)
		c := payloadCodec{typ: pt}
		for i := range pt.NumField() {
			f := pt.Field(i)
			key, ok := f.Tag.Lookup("flat")
			if !ok {
				continue
			}
			j, known := keys[key]
			if !known || header[key] || rt.Field(j).Type != f.Type {
				panic(fmt.Sprintf("engine: payload %s.%s: flat key %q is not a payload key of type %s in %s", pt.Name(), f.Name, key, f.Type, rt.Name()))
			}
			c.fields = append(c.fields, flatField{payload: i, record: j})
		}
		if _, dup := v.codecs[p.Kind()]; dup {
			panic("engine: two payloads of kind " + p.Kind() + " in " + rt.Name())
		}
		v.codecs[p.Kind()] = c
	}
	return v
}

// StoredForm is the event's stored form (ledger.Stored).
func (e Event) StoredForm() any { return e.record() }

// record converts e to its stored form.
func (e Event) record() record { return engineVocab().store(e).Interface().(record) }

// store converts e to v's record (a value of v.rec).
func (v *vocabulary) store(e Event) reflect.Value {
	rv := reflect.New(v.rec).Elem()
	switch p := e.Payload.(type) {
	case nil:
	case Unknown:
		if r := reflect.ValueOf(p.rec); r.IsValid() && r.Type() == v.rec {
			rv.Set(r)
		}
	default:
		c, ok := v.codecs[p.Kind()]
		if !ok || c.typ != reflect.TypeOf(p) {
			panic(fmt.Sprintf("engine: payload %T is not in the conversion table of %s", p, v.rec.Name()))
		}
		pv := reflect.ValueOf(p)
		for _, f := range c.fields {
			rv.Field(f.record).Set(pv.Field(f.payload))
		}
		if x, ok := p.(extraStorer); ok {
			r := rv.Addr().Interface().(*record)
			x.storeExtra(r)
		}
	}
	rv.Field(v.at).Set(reflect.ValueOf(e.At))
	rv.Field(v.kind).SetString(e.Kind())
	if v.task >= 0 {
		rv.Field(v.task).SetInt(int64(e.Task))
	}
	if v.wave >= 0 {
		rv.Field(v.wave).SetInt(int64(e.Wave))
	}
	if v.role >= 0 {
		rv.Field(v.role).SetString(e.Role)
	}
	return rv
}

// Restore decodes an event from its stored form (ledger.Restorer).
func (e *Event) Restore(decode func(v any) error) error {
	var r record
	if err := decode(&r); err != nil {
		return err
	}
	*e = eventOf(r)
	return nil
}

// eventOf converts a stored event of the engine's ledger.
func eventOf(r record) Event { return engineVocab().load(reflect.ValueOf(r)) }

// load converts a stored event (a value of v.rec): a kind this build
// does not know becomes Unknown.
func (v *vocabulary) load(rv reflect.Value) Event {
	e := Event{At: rv.Field(v.at).Interface().(time.Time)}
	if v.task >= 0 {
		e.Task = int(rv.Field(v.task).Int())
	}
	if v.wave >= 0 {
		e.Wave = int(rv.Field(v.wave).Int())
	}
	if v.role >= 0 {
		e.Role = rv.Field(v.role).String()
	}
	kind := rv.Field(v.kind).String()
	c, ok := v.codecs[kind]
	if !ok {
		e.Payload = Unknown{Name: kind, rec: rv.Interface()}
		return e
	}
	pv := reflect.New(c.typ).Elem()
	for _, f := range c.fields {
		pv.Field(f.payload).Set(rv.Field(f.record))
	}
	p := pv.Interface().(Payload)
	if x, ok := p.(extraRestorer); ok {
		r := rv.Interface().(record)
		p = x.restoreExtra(&r)
	}
	e.Payload = p
	return e
}

// reusedReason is the reason stored for a reused receipt.
const reusedReason = "reused"

func (p ReceiptRecorded) storeExtra(r *record) {
	if p.Reused {
		r.Reason = reusedReason
	}
}

func (p ReceiptRecorded) restoreExtra(r *record) Payload {
	p.Reused = r.Reason == reusedReason
	return p
}

// Ledgers written before the pr key kept the number in exit_code.
func (p PROpened) restoreExtra(r *record) Payload {
	if p.Number == 0 {
		p.Number = r.ExitCode
	}
	return p
}
