package sub

func Add(a, b int) int {
	return a + b + c
}
