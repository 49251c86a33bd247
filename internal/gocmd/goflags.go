package gocmd

import "strings"

// goflagsLdflags returns the linker flags that the GOFLAGS value goflags
// gives (its last -ldflags=), without a package pattern, or "". A link
// concerns the main package alone, which the pattern is taken to name.
func goflagsLdflags(goflags string) string {
	ld := ""
	for _, f := range splitQuoted(goflags) {
		name, value, ok := strings.Cut(strings.TrimPrefix(f, "-"), "=")
		if !ok || (name != "ldflags" && name != "-ldflags") {
			continue
		}
		// "pattern=flags": a pattern does not start with '-'.
		if pat, rest, ok := strings.Cut(value, "="); ok && !strings.HasPrefix(value, "-") && !strings.ContainsAny(pat, " \t") {
			value = rest
		}
		ld = value
	}
	return ld
}

// splitQuoted splits s into fields at spaces, as the go command splits
// GOFLAGS: a field may be quoted whole with ' or ", the quotes removed.
func splitQuoted(s string) []string {
	var fields []string
	for {
		s = strings.TrimLeft(s, " \t\n\r")
		if s == "" {
			return fields
		}
		if q := s[0]; q == '\'' || q == '"' {
			if end := strings.IndexByte(s[1:], q); end >= 0 {
				fields = append(fields, s[1:1+end])
				s = s[2+end:]
				continue
			}
		}
		end := strings.IndexAny(s, " \t\n\r")
		if end < 0 {
			end = len(s)
		}
		fields = append(fields, s[:end])
		s = s[end:]
	}
}
