package api

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/clipperhq/terraform-provider-clipper/internal/rules"
)

// checkClipDurationsJSON checks curationPref.clipDurations in the raw request
// body. apitypes decodes each pair into a [2]float64, which drops a third
// number and fills a missing one with 0, so the shape has to be checked
// before that decode: every item an array of numbers, which rules.ClipDuration
// then checks. A body that is not an object with a curationPref
// object passes here; the typed decode reports that mistake.
func checkClipDurationsJSON(body []byte) error {
	var probe struct {
		CurationPref *struct {
			ClipDurations json.RawMessage `json:"clipDurations"`
		} `json:"curationPref"`
	}
	parsed := json.Unmarshal(body, &probe) == nil
	if !parsed || probe.CurationPref == nil {
		return nil // malformed or shaped otherwise: the typed decode says how
	}
	raw := bytes.TrimSpace(probe.CurationPref.ClipDurations)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return badField("curationPref.clipDurations", "must be an array of [min, max] pairs of seconds, not %s", shortJSON(raw))
	}
	for i, item := range items {
		field := fmt.Sprintf("curationPref.clipDurations[%d]", i)
		nums, ok := jsonNumbers(item)
		if !ok {
			return ruleError(field, rules.ClipDurationShape(shortJSON(item)))
		}
		if err := rules.ClipDuration(nums); err != nil {
			return ruleError(field, err)
		}
	}
	return nil
}

// jsonNumbers decodes raw as an array of numbers; ok is false when it is
// something else (an object, a string, an array holding a null).
func jsonNumbers(raw json.RawMessage) (nums []float64, ok bool) {
	var items []any
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return nil, false
	}
	nums = make([]float64, 0, len(items))
	for _, it := range items {
		f, isNum := it.(float64)
		if !isNum {
			return nil, false
		}
		nums = append(nums, f)
	}
	return nums, true
}

// shortJSON is raw JSON compacted and cut to a length fit for an error message.
func shortJSON(raw []byte) string {
	const limit = 60
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		b.Reset()
		b.Write(raw)
	}
	if b.Len() > limit {
		return string(b.Bytes()[:limit]) + "..."
	}
	return b.String()
}
