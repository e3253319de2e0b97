package rules

import "testing"

func TestBareClipID(t *testing.T) {
	checkStringRule(t, BareClipID, []stringCase{
		{"c01", ""},
		{"c123", ""},
		{"curation_9f", ""},
		{"", "is required: the bare clip id: the curationId"},
		{"prj_1.c01", BareClipIDRule + `, not the composite id "prj_1.c01"`},
		{".c01", "not the composite id"},
		{"c01.", "not the composite id"},
		{" c01", BareClipIDRule + `, not " c01"`},
		{"c 01", BareClipIDRule},
		{"p/c01", BareClipIDRule},
	})
}
