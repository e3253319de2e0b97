package provider

import "os"

func writeFile(name, content string) error {
	return os.WriteFile(name, []byte(content), 0o600)
}
