// Package ledger keeps specstack's durable state: TOML documents under the
// repository's metadata directory (never the working copy), written
// atomically, versioned, with an append-only event list from which the
// current state is derived, and a lock held for the life of a run.
package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"
	"github.com/google/renameio/v2"

	"github.com/specstack/specstack/internal/regfile"
)

// SchemaVersion is the ledger format this build writes and reads.
const SchemaVersion = 1

// Doc is a ledger document: a header describing the run and the events
// that happened in it, oldest first. Events are only ever appended.
type Doc[H, E any] struct {
	Schema int `toml:"schema"`
	Header H   `toml:"header"`
	Events []E `toml:"event"`
}

// ErrNewerSchema reports a ledger written by a newer specstack.
var ErrNewerSchema = errors.New("ledger written by a newer specstack")

// Stored is implemented by an event type held in memory in another form
// than the one it is stored in (engine.Event: a typed payload in memory,
// flat keys on disk). Doc's Write encodes the value StoredForm returns
// as the event's [[event]] table; its pointer type must implement
// Restorer, through which Read decodes it.
type Stored interface {
	StoredForm() any
}

// Restorer fills an event from its stored [[event]] table, which decode
// decodes into a value of the stored form.
type Restorer interface {
	Restore(decode func(v any) error) error
}

// Read loads the document at path. A missing file is an error wrapping
// fs.ErrNotExist.
func Read[H, E any](path string) (*Doc[H, E], error) {
	data, err := readLedger(path)
	if err != nil {
		return nil, fmt.Errorf("read ledger %s: %w", path, err)
	}
	return Decode[H, E](path, data)
}

// readLedger reads a file of the ledger: a regular file, never through a
// symbolic link (a ledger file is the program's own; a link in its place
// leads elsewhere and is refused, as a FIFO is).
func readLedger(path string) ([]byte, error) {
	data, err := regfile.ReadNoFollow(path)
	if errors.Is(err, regfile.ErrNotRegular) {
		return nil, fmt.Errorf("%w: the ledger's files are its own; replace it with the file itself, or move it aside to start over", err)
	}
	return data, err
}

// Decode parses data, the document read from path.
func Decode[H, E any](path string, data []byte) (*Doc[H, E], error) {
	damaged := func(err error) error {
		return fmt.Errorf("read ledger %s: %w (the file is damaged; move it aside to start over)", path, err)
	}
	if _, ok := any(new(E)).(Restorer); !ok {
		d := &Doc[H, E]{}
		if err := toml.Unmarshal(data, d); err != nil {
			return nil, damaged(err)
		}
		if err := checkSchema(path, d.Schema); err != nil {
			return nil, err
		}
		if err := checkHeader(&d.Header); err != nil {
			return nil, damaged(err)
		}
		return d, nil
	}
	var raw storedDoc[H, toml.Primitive]
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		return nil, damaged(err)
	}
	if err := checkSchema(path, raw.Schema); err != nil {
		return nil, err
	}
	d := &Doc[H, E]{Schema: raw.Schema, Header: raw.Header, Events: make([]E, len(raw.Events))}
	for i, p := range raw.Events {
		decode := func(v any) error { return md.PrimitiveDecode(p, v) }
		if err := any(&d.Events[i]).(Restorer).Restore(decode); err != nil {
			return nil, damaged(fmt.Errorf("event %d: %w", i+1, err))
		}
	}
	if err := checkHeader(&d.Header); err != nil {
		return nil, damaged(err)
	}
	return d, nil
}

func checkSchema(path string, schema int) error {
	if schema > SchemaVersion {
		return fmt.Errorf("read ledger %s: schema %d: %w (this build reads %d; upgrade specstack)", path, schema, ErrNewerSchema, SchemaVersion)
	}
	if schema < 1 {
		return fmt.Errorf("read ledger %s: schema %d: not a specstack ledger (empty, or cut short; every ledger this build writes says schema = %d); move it aside to start over", path, schema, SchemaVersion)
	}
	return nil
}

// Checker is implemented by a header that can tell whether what was read
// holds together (the numbers its fields refer to exist, what every run
// has is there): a ledger whose header fails it is damaged, refused
// before any reader relies on it.
type Checker interface {
	Check() error
}

func checkHeader(h any) error {
	if c, ok := h.(Checker); ok {
		if err := c.Check(); err != nil {
			return fmt.Errorf("header: %w", err)
		}
	}
	return nil
}

// storedDoc is a document whose events are decoded one by one through
// Restorer, or encoded from their StoredForm: the same TOML as Doc.
type storedDoc[H, V any] struct {
	Schema int `toml:"schema"`
	Header H   `toml:"header"`
	Events []V `toml:"event"`
}

// stored returns what Write encodes: d itself, or, when its events
// implement Stored, d with every event in its stored form.
func (d *Doc[H, E]) stored() any {
	if _, ok := any(*new(E)).(Stored); !ok {
		return d
	}
	raw := storedDoc[H, any]{Schema: d.Schema, Header: d.Header}
	if len(d.Events) > 0 {
		raw.Events = make([]any, len(d.Events))
		for i, e := range d.Events {
			raw.Events[i] = any(e).(Stored).StoredForm()
		}
	}
	return &raw
}

// New returns an empty document with header h.
func New[H, E any](h H) *Doc[H, E] {
	return &Doc[H, E]{Schema: SchemaVersion, Header: h}
}

// Write stores the whole document atomically.
func (d *Doc[H, E]) Write(path string) error {
	d.Schema = SchemaVersion
	return WriteFile(path, d.stored())
}

// Encode returns the document as Write stores it.
func (d *Doc[H, E]) Encode() ([]byte, error) {
	return encode(d.stored())
}

// Append adds events and stores the document atomically; on error the
// document in memory is left as it was.
func (d *Doc[H, E]) Append(path string, events ...E) error {
	n := len(d.Events)
	d.Events = append(d.Events, events...)
	if err := d.Write(path); err != nil {
		d.Events = d.Events[:n]
		return err
	}
	return nil
}

// ReadFile decodes the TOML file at path into v.
func ReadFile(path string, v any) error {
	data, err := readLedger(path)
	if err != nil {
		return fmt.Errorf("read ledger %s: %w", path, err)
	}
	if err := toml.Unmarshal(data, v); err != nil {
		return fmt.Errorf("read ledger %s: %w (the file is damaged; move it aside to start over)", path, err)
	}
	return nil
}

// ReadOptional reads the TOML record at path into a new T; ok is false,
// with no error, when there is no such file.
func ReadOptional[T any](path string) (v *T, ok bool, err error) {
	v = new(T)
	err = ReadFile(path, v)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return v, true, nil
}

// WriteFile encodes v as TOML and replaces path atomically: readers and
// a crash at any instant see either the old file or the new one, whole.
func WriteFile(path string, v any) error {
	data, err := encode(v)
	if err != nil {
		return fmt.Errorf("encode ledger %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("write ledger %s: %w", path, err)
	}
	if err := renameio.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write ledger %s: %w", path, err)
	}
	return nil
}

func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
