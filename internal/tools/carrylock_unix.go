//go:build unix

package tools

import (
	"os"
	"syscall"
)

// lockJournal holds f's journal for this process: another agentls
// starting meanwhile leaves a carry in progress alone (tryLockJournal
// fails), and a killed process's lock goes with it.
func lockJournal(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

// tryLockJournal takes a journal's lock if no live process holds it.
func tryLockJournal(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}
