package spec

import (
	"fmt"

	"github.com/specstack/specstack/internal/journal"
)

// Sync writes the plan's merged specs, exactly as Apply does (the same
// merge, the same intent journal in journalDir), but leaves the change
// where it is: OpenSpec's sync, the change's delta specs merged into
// openspec/specs/ without archiving. A later archive of the change finds
// its operations already applied (no-ops) and only moves it.
func (p *ArchivePlan) Sync(journalDir string) error {
	ws, err := p.specWrites()
	if err != nil {
		return err
	}
	if len(ws) == 0 {
		return nil
	}
	return journal.Run(journalDir, journal.Intent{What: fmt.Sprintf("sync of %q", p.Change), Writes: ws})
}
