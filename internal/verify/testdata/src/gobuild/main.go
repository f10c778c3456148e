package main

import (
	"fmt"
	"os"
)

func main() {
	var n int = "hello"
	fmt.Println(n, undefinedThing)
}
