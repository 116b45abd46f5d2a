// Package plural writes counts and lists in English: "1 task", "2 tasks",
// "tasks 1 and 2", "1, 2 and 3". Every message that counts something
// goes through it, so none says "1 tasks".
package plural

import (
	"fmt"
	"strings"
)

// Word is one when n is 1, else many.
func Word(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Count is n followed by the word for n: "1 file", "3 files".
func Count(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, Word(n, one, many))
}

// List joins items as a sentence does: "a", "a and b", "a, b and c".
func List(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// Ints is List of numbers.
func Ints(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return List(s)
}

// All is "both" for two things and "all" for more: "tasks 1 and 2 both
// create", "tasks 1, 2 and 3 all create".
func All(n int) string {
	if n == 2 {
		return "both"
	}
	return "all"
}
