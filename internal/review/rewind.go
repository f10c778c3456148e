package review

// PlanRewind plans putting a file back as it was at an earlier step of a
// session: from (fromExists) is the text the session's tasks left, to
// (toExists) the text at the step, cur (curExists) the file as the user has
// it now. Like undo it is three-way: what the user changed since stays,
// and regions both changed are left alone and reported.
func PlanRewind(rel string, fromExists bool, from string, toExists bool, to string, cur string, curExists bool) Undo {
	switch {
	case !fromExists && !toExists:
		return Undo{Rel: rel, Cur: cur}
	case fromExists && toExists && !curExists:
		return Undo{Rel: rel, Cur: cur, Conflicts: []Conflict{{Line: 1, Reason: "the file was deleted since; not restored"}}}
	case !fromExists && toExists:
		// The session's tasks left the file deleted (a command's rm or
		// mv): it is made again as it was at the step, unless someone
		// made it meanwhile. (The caller gives the step's mode.)
		if curExists {
			return Undo{Rel: rel, Cur: cur, Conflicts: []Conflict{{Line: 1, Reason: "the file was created since; kept"}}}
		}
		return Undo{Rel: rel, Cur: cur, Restore: true, Next: to}
	}
	// Both cases left are undo's: back from the step's text to the
	// task's, or delete a file created after the step.
	return PlanUndo(File{Rel: rel, Base: to, Existed: toExists, After: from}, cur, curExists)
}
