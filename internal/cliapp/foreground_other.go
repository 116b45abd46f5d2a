//go:build !linux

package cliapp

// takeForeground is Linux's only (see foreground_linux.go).
func takeForeground() (restore func()) { return func() {} }
