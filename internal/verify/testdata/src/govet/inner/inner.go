package inner

import "fmt"

func Say(s string) string {
	return fmt.Sprintf("%s %s", s)
}
