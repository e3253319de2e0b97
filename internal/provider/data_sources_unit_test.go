package provider

import (
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestExportableClipFromAPI(t *testing.T) {
	c := apitypes.ExportableClip{
		ID: "p1.c1", ProjectID: "p1", CurationID: "c1", DurationMs: 12500, StorageUsed: 2048,
		TimeRanges: [][2]int64{{1000, 6000}, {9000, 16500}}, Keywords: []string{"a", "b"},
		URIForExport: "http://127.0.0.1/clip.mp4",
	}
	m := exportableClipFromAPI(c)
	if m.ID.ValueString() != "p1.c1" || m.CurationID.ValueString() != "c1" || m.DurationMs.ValueInt64() != 12500 {
		t.Fatalf("scalar fields: %+v", m)
	}
	if got := m.TimeRanges.String(); got != "[[1000,6000],[9000,16500]]" {
		t.Fatalf("time_ranges = %s", got)
	}
	if len(m.Keywords.Elements()) != 2 {
		t.Fatalf("keywords = %s", m.Keywords)
	}
	empty := exportableClipFromAPI(apitypes.ExportableClip{})
	if empty.TimeRanges.IsNull() || empty.Keywords.IsNull() {
		t.Fatal("absent arrays should be empty lists, not null")
	}
}
