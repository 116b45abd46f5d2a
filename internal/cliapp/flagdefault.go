package cliapp

import (
	"reflect"
	"strings"

	"github.com/urfave/cli/v2"
)

// defaultMark opens the default a flag's usage states at its end.
const defaultMark = " (default: "

// stateDefaultsOnce keeps urfave/cli from printing a second default after
// one a flag's usage states ("(default: [worker] max-cost, else no
// limit) (default: 0)"), in --help and in the man page alike: a usage
// ending in "(default: X)" has it moved to the flag's DefaultText, which
// both print where urfave's own default would go; a boolean flag whose
// usage speaks of a default ("list the changes (the default)"), or that
// is off unless given, prints no "(default: false)": a switch is off
// until named, which the line need not say; one on by default says so.
// A flag taking a value that mentions a default elsewhere in its usage
// would print both: write it as the usage's end.
// Flags shared by several commands are met again; a second pass changes
// nothing.
func stateDefaultsOnce(flags []cli.Flag) {
	for _, f := range flags {
		if b, ok := f.(*cli.BoolFlag); ok {
			if strings.Contains(b.Usage, "default") || !b.Value {
				b.DisableDefaultText = true
			}
			continue
		}
		if usage, defaultText, ok := usageFields(f); ok {
			*usage, *defaultText = statedDefault(*usage, *defaultText)
		}
	}
}

// usageFields are the Usage and DefaultText fields of f. Every flag type
// of urfave/cli v2 has both, generated alike, and no method sets them:
// reached through reflection, each type is handled, a new one too.
func usageFields(f cli.Flag) (usage, defaultText *string, ok bool) {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil, nil, false
	}
	u, d := v.Elem().FieldByName("Usage"), v.Elem().FieldByName("DefaultText")
	if !u.IsValid() || !d.IsValid() || u.Kind() != reflect.String || d.Kind() != reflect.String {
		return nil, nil, false
	}
	return u.Addr().Interface().(*string), d.Addr().Interface().(*string), true
}

// statedDefault splits a usage ending in "(default: X)" into the usage
// before it and X; any other usage, or a flag with a DefaultText of its
// own, stays as it is.
func statedDefault(usage, defaultText string) (string, string) {
	i := strings.LastIndex(usage, defaultMark)
	if defaultText != "" || i < 0 || !strings.HasSuffix(usage, ")") {
		return usage, defaultText
	}
	stated := usage[i+len(defaultMark) : len(usage)-1]
	if stated == "" || strings.ContainsAny(stated, "()") {
		return usage, defaultText
	}
	return usage[:i], stated
}

// stateCommandDefaultsOnce is stateDefaultsOnce for c and its
// subcommands.
func stateCommandDefaultsOnce(c *cli.Command) {
	stateDefaultsOnce(c.Flags)
	for _, sub := range c.Subcommands {
		stateCommandDefaultsOnce(sub)
	}
}

// RequiredInt is an int flag its command cannot do without (--wave N,
// --task N): its --help and man page state no default, where an
// IntFlag's would print "(default: 0)" of a value that means "not given".
// The command still refuses a missing one with its own usage error.
type RequiredInt struct{ *cli.IntFlag }

// GetDefaultText is "": no default to state.
func (RequiredInt) GetDefaultText() string { return "" }

// GetValue is "", which the man page would print in place of a default.
func (RequiredInt) GetValue() string { return "" }

// String is the flag's line in --help, printed from f itself: the
// IntFlag's own String would state its default.
func (f RequiredInt) String() string { return cli.FlagStringer(f) }
