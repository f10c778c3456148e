package config

import "strconv"

// ParsePort parses a TCP port from a configuration value.
func ParsePort(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	return strconv.Atoi(v)
}
