package assemble

import (
	"github.com/agentls/agentls/internal/driver"
	"github.com/agentls/agentls/internal/verify/gate"
)

// The types of assemble's own API that a front end names, so that wiring
// a task needs assemble alone: the gate a TaskConfig.Gate hook is given
// (NewGate's too), and the model a Hooks.Backend returns.
type (
	Gate  = gate.Gate
	Actor = driver.Actor
)
