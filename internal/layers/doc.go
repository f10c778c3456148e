// Package layers holds no code: its test checks that the module's packages
// import each other in the one direction docs/architecture.md draws.
package layers
