package wordwrap

func Wrap(text string, width int) []string {
	panic("Please implement the Wrap function")
}
