package record

import (
	"github.com/specstack/specstack/internal/lazyregexp"

	"fmt"
	"math/rand/v2"
)

// NewID returns 8 hex digits naming a run or a workspace: unique enough
// among one repository's runs and never a secret. math/rand/v2's
// generator is seeded by the runtime from the system's random source;
// crypto/rand would link math/big and a DRBG into every start-up.
func NewID() string { return fmt.Sprintf("%08x", rand.Uint32()) }

// ShortID shortens a commit or change id to 12 characters for messages.
func ShortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// ChangeName matches a change name that is one folder name: letters,
// digits, '.', '_' and '-', starting with a letter or digit.
var ChangeName = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
