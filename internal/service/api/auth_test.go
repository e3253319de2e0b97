package api

import "testing"

func TestBearerToken(t *testing.T) {
	cases := []struct {
		in, want string
		ok       bool
	}{
		{"Bearer ck_abc", "ck_abc", true},
		{"bearer   ck_abc ", "ck_abc", true},
		{"ck_abc", "ck_abc", true}, // bare token, as some of the spec's examples send
		{"Basic dXNlcjpwYXNz", "", false},
		{"Bearer ", "", false},
		{"Bearer a b", "", false},
		{"", "", false},
	}
	for _, c := range cases {
		got, ok := bearerToken(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("bearerToken(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
