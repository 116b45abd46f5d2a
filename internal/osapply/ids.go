package osapply

import (
	"fmt"
	"math/rand/v2"
)

// newID returns 8 hex digits naming a run or a workspace: unique enough
// among one repository's runs and never a secret. math/rand/v2's
// generator is seeded by the runtime from the system's random source;
// crypto/rand would link math/big and a DRBG into every start-up.
func newID() string { return fmt.Sprintf("%08x", rand.Uint32()) }
