package gocont

func f() {}
