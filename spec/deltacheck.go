package spec

// deltaCheck is what validate and archive's merge both check in one delta
// spec before it is applied: a name repeated within a section, a name in
// two sections, and renames that clash with the other sections. Each
// caller words the problems as OpenSpec does in its place (validate's
// issues, archive's "validation failed" error).
type deltaCheck struct {
	// dupAdded[i] is set when plan.Added[i] repeats an earlier ADDED name;
	// likewise dupModified and dupRemoved.
	dupAdded, dupModified, dupRemoved []bool
	// dupFrom[i] and dupTo[i] are set when plan.Renamed[i] repeats an
	// earlier rename's FROM or TO name.
	dupFrom, dupTo []bool
	// both are the normalised names in two sections, in OpenSpec's order:
	// MODIFIED and REMOVED, MODIFIED and ADDED (by MODIFIED's order), then
	// ADDED and REMOVED (by ADDED's).
	both []sectionClash
	// renames[i] is how plan.Renamed[i] clashes with the other sections.
	renames []renameClash
}

type sectionClash struct{ name, a, b string }

type renameClash struct {
	removed     bool   // its FROM name is REMOVED (compared without case)
	removedAs   string // REMOVED's spelling of it, when removed
	modified    bool   // MODIFIED names its FROM (old) name
	addedTarget bool   // its TO name is ADDED
}

func checkDelta(plan DeltaPlan) deltaCheck {
	c := deltaCheck{
		dupAdded: make([]bool, len(plan.Added)), dupModified: make([]bool, len(plan.Modified)),
		dupRemoved: make([]bool, len(plan.Removed)),
		dupFrom:    make([]bool, len(plan.Renamed)), dupTo: make([]bool, len(plan.Renamed)),
		renames: make([]renameClash, len(plan.Renamed)),
	}
	added, modified, removed := map[string]bool{}, map[string]bool{}, map[string]bool{}
	var addedOrder, modifiedOrder, removedOrder []string
	for i, b := range plan.Added {
		n := NormalizeRequirementName(b.Name)
		if c.dupAdded[i] = added[n]; !added[n] {
			added[n] = true
			addedOrder = append(addedOrder, n)
		}
	}
	for i, b := range plan.Modified {
		n := NormalizeRequirementName(b.Name)
		if c.dupModified[i] = modified[n]; !modified[n] {
			modified[n] = true
			modifiedOrder = append(modifiedOrder, n)
		}
	}
	for i, r := range plan.Removed {
		n := NormalizeRequirementName(r)
		if c.dupRemoved[i] = removed[n]; !removed[n] {
			removed[n] = true
			removedOrder = append(removedOrder, n)
		}
	}
	from, to := map[string]bool{}, map[string]bool{}
	for i, r := range plan.Renamed {
		f, t := NormalizeRequirementName(r.From), NormalizeRequirementName(r.To)
		c.dupFrom[i], c.dupTo[i] = from[f], to[t]
		from[f], to[t] = true, true
	}
	for _, n := range modifiedOrder {
		if removed[n] {
			c.both = append(c.both, sectionClash{n, "MODIFIED", "REMOVED"})
		}
		if added[n] {
			c.both = append(c.both, sectionClash{n, "MODIFIED", "ADDED"})
		}
	}
	for _, n := range addedOrder {
		if removed[n] {
			c.both = append(c.both, sectionClash{n, "ADDED", "REMOVED"})
		}
	}
	removedFolded := firstByFold(removedOrder)
	for i, r := range plan.Renamed {
		f, t := NormalizeRequirementName(r.From), NormalizeRequirementName(r.To)
		rc := &c.renames[i]
		if rm, ok := removedFolded[FoldRequirementName(f)]; ok {
			rc.removed = true
			if rm != f {
				rc.removedAs = rm
			}
		}
		rc.modified = modified[f]
		rc.addedTarget = added[t]
	}
	return c
}
