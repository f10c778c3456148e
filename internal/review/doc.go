// Package review is what a task changed and proposes, and the planning of
// accept, reject and undo, as data: the change log of a task's files, the
// hunks of a proposal placed in the text the user has now, and the plans
// (which changes, against which text, with which conflicts) that a front
// end carries out. It does no I/O and knows no protocol: the language
// server sends the plans as workspace/applyEdit and commits them with the
// generation they were planned at; it must never import lsp, acp or cli.
package review
