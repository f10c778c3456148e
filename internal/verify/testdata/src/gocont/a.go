package gocont

func f() {}

func g() int {
	return 1, 2
}

func h(a int, b string) {}

func use() {
	h(1)
	var s string = 3
	_ = s
}
