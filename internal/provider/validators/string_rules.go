package validators

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// stringRule applies a rule of one string (a format) to a known value.
type stringRule struct {
	described
	summary string
	check   func(string) error
}

func (v stringRule) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if !known(req.ConfigValue) {
		return
	}
	if err := v.check(req.ConfigValue.ValueString()); err != nil {
		addRuleError(&resp.Diagnostics, req.Path, v.summary, err)
	}
}

// HTTPURL accepts absolute http:// and https:// addresses with a host.
func HTTPURL() validator.String {
	return stringRule{described("value " + rules.HTTPURLRule), "Invalid URL", rules.HTTPURL}
}

// Timeout accepts an operation timeout of a timeouts argument: a positive
// duration string.
func Timeout() validator.String {
	return stringRule{described("value " + rules.TimeoutRule), "Invalid timeout", rules.Timeout}
}

// VideoURL accepts what the service takes as videoUrl: a public http(s)
// address or an upload id from an earlier upload.
func VideoURL() validator.String {
	return stringRule{described("value " + rules.VideoURLRule), "Invalid video_url", rules.VideoURL}
}

// HexColor accepts the hex colors of the render preferences.
func HexColor() validator.String {
	return stringRule{described("value " + rules.HexColorRule), "Invalid color", rules.HexColor}
}

// Ratio accepts a ratio w:h of two positive numbers, such as 9:16 or 1.5:1.
func Ratio() validator.String {
	return stringRule{described("value " + rules.RatioRule), "Invalid ratio", rules.Ratio}
}

// CollectionName accepts a collection name that is not blank and has at most
// rules.MaxCollectionName characters.
func CollectionName() validator.String {
	return stringRule{described(fmt.Sprintf("value must not be blank and has at most %d characters", rules.MaxCollectionName)),
		"Invalid collection name", rules.CollectionName}
}

// ContentID accepts the composite id of an exportable clip,
// {projectId}.{curationId}, the content id of collections.
func ContentID() validator.String {
	return stringRule{described("value " + rules.ContentIDRule), "Invalid content_id", rules.ContentID}
}

// PostContentID accepts the composite id of a clip whose curationId is a bare
// clip id, so that it splits into the projectId and clipId of a post or a
// social copy job.
func PostContentID() validator.String {
	return stringRule{described("value " + rules.ContentIDRule + " with one dot"), "Invalid content_id",
		func(s string) error { _, _, err := rules.SplitContentID(s); return err }}
}

// Privacy accepts the privacy of a post: public, private or unlisted.
func Privacy() validator.String {
	return stringRule{described("value " + rules.PrivacyRule), "Invalid privacy", rules.Privacy}
}

// PublishTime accepts the shape of a publish time: an RFC 3339 timestamp
// with any offset. Whether it is in the future depends on when the schedule
// is made, which a resource checks in its plan.
func PublishTime() validator.String {
	return stringRule{described("value " + rules.PublishTimeRule), "Invalid publish_at",
		func(s string) error { _, err := rules.PublishTime(s); return err }}
}

// PostTitle accepts the title of a post: not blank.
func PostTitle() validator.String {
	return stringRule{described("value " + rules.PostTitleRule), "Invalid title", rules.PostTitle}
}
