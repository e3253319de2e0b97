package api

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// checkClipDurationsJSON checks curationPref.clipDurations in the raw request
// body. apitypes decodes each pair into a [2]float64, which drops a third
// number and fills a missing one with 0, so the shape has to be checked
// before that decode: every item an array of exactly two numbers [min, max]
// with 0 <= min < max. A body that is not an object with a curationPref
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
		var pair []any
		if json.Unmarshal(item, &pair) != nil || len(pair) != 2 {
			return badField(field, "must be an array of exactly two numbers [min, max] of seconds, not %s", shortJSON(item))
		}
		lo, okLo := pair[0].(float64)
		hi, okHi := pair[1].(float64)
		if !okLo || !okHi {
			return badField(field, "must be an array of exactly two numbers [min, max] of seconds, not %s", shortJSON(item))
		}
		if !(lo >= 0 && lo < hi) {
			return badField(field, "must be a pair [min, max] of seconds with 0 <= min < max, not [%v, %v]", lo, hi)
		}
	}
	return nil
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
