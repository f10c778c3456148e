package boom

type T struct{ m map[string]int }

func (t *T) Set(k string) { t.m[k] = 1 }
