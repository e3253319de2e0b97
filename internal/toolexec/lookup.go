package toolexec

import "os/exec"

// Missing returns those of tools that are not on PATH, in order: what a
// server that runs them is not ready without.
func Missing(tools ...string) []string {
	var missing []string
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	return missing
}
