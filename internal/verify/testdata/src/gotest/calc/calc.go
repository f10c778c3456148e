package calc

func Add(a, b int) int { return a - b }

func Div(a, b int) int { return a / b }
