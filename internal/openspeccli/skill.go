package openspeccli

import _ "embed"

// skill is the agent-facing guide `skill` prints (cliapp.Spec.Skill); a test
// runs every command it quotes (internal/e2e/skill_test.go).
//
//go:embed skill.md
var skill string
