//go:build !linux

package proc

import "errors"

const minABI = 3

// LandlockABI is 0: Landlock is Linux's.
func LandlockABI() (int, error) { return 0, errors.New("Landlock is a Linux feature") }

// PidsCgroup is "": cgroups are Linux's.
func PidsCgroup() string { return "" }
