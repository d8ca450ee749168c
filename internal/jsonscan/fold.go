package jsonscan

// FoldEqual reports whether key equals name, a lower-case ASCII field
// name, with ASCII letters in either case: how encoding/json matches an
// ASCII key to a field. (A key with other bytes it may fold otherwise:
// 'ſ' to s, the Kelvin sign to k.)
func FoldEqual(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i, c := range key {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != name[i] {
			return false
		}
	}
	return true
}
