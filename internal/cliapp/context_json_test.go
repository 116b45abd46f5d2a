package cliapp

import (
	"bytes"
	"testing"
)

// TestWriteJSONAsJavaScript: WriteJSON writes what JSON.stringify(v,
// null, 2) writes: <, >, & and the line and paragraph separators as they
// are, an escaped backslash before "u2028" left alone.
func TestWriteJSONAsJavaScript(t *testing.T) {
	var b bytes.Buffer
	v := map[string]string{"a": "x\u2028y\u2029z <b> & c", "b": `\u2028 is text`, "c": "\\\u2028"}
	if err := WriteJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": \"x\u2028y\u2029z <b> & c\",\n  \"b\": \"\\\\u2028 is text\",\n  \"c\": \"\\\\\u2028\"\n}\n"
	if b.String() != want {
		t.Errorf("WriteJSON:\n%q\nwant\n%q", b.String(), want)
	}
}
