package pipeline

import (
	"reflect"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestCurationKeywords(t *testing.T) {
	cases := []struct {
		name string
		cp   apitypes.CurationPref
		want []string
	}{
		{"none", apitypes.CurationPref{}, nil},
		{"topicKeywords split into words", apitypes.CurationPref{TopicKeywords: []string{"Machine learning", "the rockets"}}, []string{"Machine", "learning", "rockets"}},
		{"customPrompt without stop words", apitypes.CurationPref{Model: apitypes.ModelClipAnything, CustomPrompt: "Find the parts about the moon, and rockets!"}, []string{"Find", "parts", "moon", "rockets"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := curationKeywords(c.cp); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
