package spec

// requirementIndex holds a spec's requirement blocks by normalized name
// in insertion order, as the JavaScript Map OpenSpec merges with keeps
// them (deleting a key and setting it again moves it to the end), with
// their folded names indexed once. Every operation costs O(1) (amortized)
// but nearMiss, which costs O(names that fold alike): a merge is linear in
// the number of requirements.
type requirementIndex struct {
	byName map[string]Block
	order  []string       // insertion order, deleted keys included
	slot   map[string]int // key → its live index in order (absent: deleted)
	folded map[string][]int
}

func newRequirementIndex() *requirementIndex {
	return &requirementIndex{byName: map[string]Block{}, slot: map[string]int{}, folded: map[string][]int{}}
}

// set stores b under k, appending k to the order when it is new.
func (x *requirementIndex) set(k string, b Block) {
	if _, ok := x.byName[k]; !ok {
		x.slot[k] = len(x.order)
		f := FoldRequirementName(k)
		x.folded[f] = append(x.folded[f], len(x.order))
		x.order = append(x.order, k)
	}
	x.byName[k] = b
}

// del removes k.
func (x *requirementIndex) del(k string) {
	delete(x.slot, k)
	delete(x.byName, k)
}

// nearMiss returns the first key in order, other than those skip rejects,
// whose folded form (case and interior spacing) equals name's.
func (x *requirementIndex) nearMiss(name string, skip func(string) bool) (string, bool) {
	for _, i := range x.folded[FoldRequirementName(name)] {
		k := x.order[i]
		if !x.live(i) {
			continue
		}
		if skip == nil || !skip(k) {
			return k, true
		}
	}
	return "", false
}

// keys returns the live keys in insertion order.
func (x *requirementIndex) keys() []string {
	out := make([]string, 0, len(x.slot))
	for i, k := range x.order {
		if x.live(i) {
			out = append(out, k)
		}
	}
	return out
}

// live reports whether order[i] is its key's current place: not deleted,
// nor set again later.
func (x *requirementIndex) live(i int) bool {
	j, ok := x.slot[x.order[i]]
	return ok && j == i
}

// firstByFold maps the folded form of each name to the first name that
// folds to it, so a near-miss lookup costs one fold instead of one per name.
func firstByFold(names []string) map[string]string {
	out := make(map[string]string, len(names))
	for _, n := range names {
		f := FoldRequirementName(n)
		if _, ok := out[f]; !ok {
			out[f] = n
		}
	}
	return out
}
