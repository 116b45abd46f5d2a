package ledger

import (
	"os"
	"path/filepath"
	"testing"
)

// typed is an event held in memory in another form than it is stored
// in: a typed value, stored as the flat event above.
type typed struct{ Seq int }

func (e typed) StoredForm() any { return event{Seq: e.Seq, Kind: "typed"} }

func (e *typed) Restore(decode func(v any) error) error {
	var s event
	if err := decode(&s); err != nil {
		return err
	}
	e.Seq = s.Seq
	return nil
}

// Events implementing Stored are written as their stored form, the
// same TOML a document of that form has, and read back through
// Restorer.
func TestStoredEvents(t *testing.T) {
	dir := t.TempDir()
	d := New[header, typed](header{Plan: "p"})
	if err := d.Append(filepath.Join(dir, "typed.toml"), typed{Seq: 1}, typed{Seq: 2}); err != nil {
		t.Fatal(err)
	}
	flat := New[header, event](header{Plan: "p"})
	if err := flat.Append(filepath.Join(dir, "flat.toml"), event{Seq: 1, Kind: "typed"}, event{Seq: 2, Kind: "typed"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "typed.toml"))
	want, _ := os.ReadFile(filepath.Join(dir, "flat.toml"))
	if string(got) != string(want) {
		t.Errorf("stored events written as\n%s\nwant\n%s", got, want)
	}
	back, err := Read[header, typed](filepath.Join(dir, "typed.toml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Events) != 2 || back.Events[1].Seq != 2 || back.Header.Plan != "p" {
		t.Errorf("read back %+v", back)
	}
}
