package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

func TestFilterMine(t *testing.T) {
	items := []apitypes.SocialAccount{{Platform: "YOUTUBE", ExtUserName: "a"}, {Platform: "LINKEDIN", ExtUserName: "b"}}
	key := func(a apitypes.SocialAccount) string { return a.Platform }
	id, all := filterMine(types.StringNull(), items, key, socialAccountFromAPI)
	if id.ValueString() != "mine" || len(all) != 2 {
		t.Fatalf("unfiltered: id %s, %d items", id, len(all))
	}
	id, yt := filterMine(types.StringValue("YOUTUBE"), items, key, socialAccountFromAPI)
	if id.ValueString() != "mine/YOUTUBE" || len(yt) != 1 || yt[0].ExtUserName.ValueString() != "a" {
		t.Fatalf("filtered: id %s, items %+v", id, yt)
	}
	_, none := filterMine(types.StringValue("TWITTER"), items, key, socialAccountFromAPI)
	if none == nil || len(none) != 0 {
		t.Fatalf("no match should be an empty list, got %#v", none)
	}
}
