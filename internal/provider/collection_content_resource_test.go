package provider

import (
	"regexp"
	"testing"
)

func TestParseCollectionContentID(t *testing.T) {
	cases := []struct {
		id, collection, content, err string
	}{
		{id: "col_1/p1.c01", collection: "col_1", content: "p1.c01"},
		{id: "col_1/p1.c.01", collection: "col_1", content: "p1.c.01"},
		{id: "col_1", err: `must be {collection_id}/{content_id}, such as col_123/3f2a9c0d.c01, not "col_1"`},
		{id: "/p1.c01", err: `not "/p1.c01"`},
		{id: "col_1/", err: `in "col_1/", content_id is required: the clip id {projectId}.{curationId}`},
		{id: "col_1/c01", err: `in "col_1/c01", content_id must be a clip id of the form {projectId}.{curationId}, not "c01"`},
		{id: "col_1/p1.c01/x", err: ""}, // a content id may hold slashes after its dot
	}
	for _, tc := range cases {
		t.Run(tc.id, func(t *testing.T) {
			collection, content, err := parseCollectionContentID(tc.id)
			if tc.err != "" {
				if err == nil || !regexp.MustCompile(regexp.QuoteMeta(tc.err)).MatchString(err.Error()) {
					t.Fatalf("error %v, want one holding %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.collection != "" && (collection != tc.collection || content != tc.content) {
				t.Errorf("got %q, %q; want %q, %q", collection, content, tc.collection, tc.content)
			}
		})
	}
}
