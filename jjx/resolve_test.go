package jjx

import "testing"

func TestTOMLQuoting(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/usr/bin/jj-kaisen", `"/usr/bin/jj-kaisen"`},
		{`C:\tools\"x"`, `"C:\\tools\\\"x\""`},
		{"tab\there\nnl", `"tab\u0009here\u000anl"`},
		{"", `""`},
		{"é", `"é"`},
	}
	for _, tt := range tests {
		if got := tomlString(tt.in); got != tt.want {
			t.Errorf("tomlString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
	if got, want := tomlArray([]string{"merge-tool", "$output"}), `["merge-tool", "$output"]`; got != want {
		t.Errorf("tomlArray = %s, want %s", got, want)
	}
}
