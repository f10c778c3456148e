package greet

import "testing"

func TestGreeting(t *testing.T) {
	if got := Greeting("Ada"); got != "Hello, Ada!" {
		t.Fatalf("Greeting(Ada) = %q, want %q", got, "Hello, Ada!")
	}
	if got := Greeting(""); got != "Hello, world!" {
		t.Fatalf("Greeting(\"\") = %q, want %q", got, "Hello, world!")
	}
}
