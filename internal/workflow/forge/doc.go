// Package forge is how the workflows reach GitHub: through the
// gh-specstack program (found beside the executable, else on PATH), to
// push a bookmark, open or update a pull request and link a stack, each
// call under a deadline with gh-specstack's own error message.
package forge
