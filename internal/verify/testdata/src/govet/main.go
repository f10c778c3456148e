package main

import (
	"fmt"
	"sync"
)

type guarded struct {
	mu sync.Mutex
	n  int
}

func show(g guarded) int { return g.n }

func main() {
	name := "x"
	fmt.Printf("%d\n", name)
	var g guarded
	fmt.Println(show(g))
}
