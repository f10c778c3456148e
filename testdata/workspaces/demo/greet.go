// Package greet says hello.
package greet

import "fmt"

// Greeting returns the greeting for name.
func Greeting(name string) string {
	return fmt.Sprintf("Hello %s", name)
}
