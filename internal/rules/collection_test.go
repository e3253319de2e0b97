package rules

import (
	"strings"
	"testing"
)

func TestCollectionName(t *testing.T) {
	checkStringRule(t, CollectionName, []stringCase{
		{"highlights", ""},
		{"Best of 2024 — Q&A", ""},
		{strings.Repeat("é", MaxCollectionName), ""},
		{strings.Repeat("é", MaxCollectionName+1), "must be at most 200 characters, not 201"},
		{"", CollectionNameRule},
		{" \t ", CollectionNameRule},
	})
}

func TestContentID(t *testing.T) {
	checkStringRule(t, ContentID, []stringCase{
		{"p1.c01", ""},
		{"3f2a9c0d41b7.c02", ""},
		// The curation id is everything after the first dot.
		{"p1.c.01", ""},
		{"", "is required: the clip id {projectId}.{curationId}"},
		{"nodot", ContentIDRule + `, not "nodot"`},
		{".c01", ContentIDRule + `, not ".c01"`},
		{"p1.", ContentIDRule + `, not "p1."`},
		{".", ContentIDRule},
	})
}
