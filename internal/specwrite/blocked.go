package specwrite

// Blocked is a refusal of an OpenSpec verb in OpenSpec 1.13.2's own terms:
// the diagnostic code, message and pasteable fix its CLI prints ("Error:
// MESSAGE" and "Fix: FIX" on stderr, or a status entry of its JSON
// document). It exits 1, as OpenSpec does.
type Blocked struct {
	Code    string // OpenSpec's diagnostic code, e.g. archive_confirmation_required
	Message string
	Fix     string // empty when OpenSpec gives none
	Target  string // what the diagnostic is about (openspec.root), or empty
	// Stdout is what OpenSpec has printed on stdout when it refuses (a
	// question it could not have answered), for its text output only.
	Stdout string
}

func (b *Blocked) Error() string {
	if b.Fix == "" {
		return b.Message
	}
	return b.Message + " (fix: " + b.Fix + ")"
}
