package openspeccli

import (
	"os"
	"strings"
	"testing"
)

// TestOpenSpecVersionIsThePin: the release jj-openspec stands in for (-V,
// the documents it writes) is the one the tests install and compare with.
func TestOpenSpecVersionIsThePin(t *testing.T) {
	b, err := os.ReadFile("../../testdata/tools/openspec-version")
	if err != nil {
		t.Fatal(err)
	}
	if pin := strings.TrimSpace(string(b)); pin != openspecVersion {
		t.Errorf("testdata/tools/openspec-version pins OpenSpec %s; jj-openspec stands in for %s: change both together", pin, openspecVersion)
	}
}
