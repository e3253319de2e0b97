package rules

import "testing"

func TestHTTPURL(t *testing.T) {
	checkStringRule(t, HTTPURL, []stringCase{
		{"https://hooks.example.com/clipper", ""},
		{"http://127.0.0.1:9000/hook", ""},
		{"ftp://example.com/x", HTTPURLRule + `: "ftp://example.com/x" has scheme "ftp", want http or https`},
		{"https:///path", `"https:///path" has no host`},
		{"example.com/hook", `has scheme ""`},
		{"mailto:ops@example.com", `has scheme "mailto"`},
		{"http://[::1", "does not parse"},
		{"", `has scheme ""`},
	})
}
