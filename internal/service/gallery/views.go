package gallery

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/url"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
	"github.com/clipperhq/terraform-provider-clipper/internal/service/store"
)

// funcs are the template functions of the pages.
var funcs = template.FuncMap{
	"webURL": webURL,
}

// projectTitle is what names a project: the title given at upload, else
// the file name of its source, else its id.
func projectTitle(p *store.Project) string {
	if p.UploadedVideoAttr != nil && strings.TrimSpace(p.UploadedVideoAttr.Title) != "" {
		return p.UploadedVideoAttr.Title
	}
	if u, err := url.Parse(p.VideoURL); err == nil && u.Scheme != "" {
		if name := path.Base(u.Path); name != "/" && name != "." {
			return name
		}
	}
	return p.ID
}

// projectSource is where a project's video came from: its URL, or the
// upload it was made from.
func projectSource(p *store.Project) string {
	if p.SourcePlatform == "UPLOADED" {
		return "uploaded file " + p.SourceID
	}
	return shownLocation(p.VideoURL) // presigned sources carry tokens in the query
}

// localMedia is a clip's signed media address made path-only (the
// signed query kept), so a visitor who reached the server by another name
// than its public URL (a phone on the LAN) loads it from the same server.
// Addresses elsewhere than /media/ are left as they are.
func localMedia(addr string) string {
	u, err := url.Parse(addr)
	if err != nil || !strings.HasPrefix(u.Path, "/media/") {
		return addr
	}
	return (&url.URL{Path: u.Path, RawQuery: u.RawQuery}).String()
}

// stagesToComplete are the stages a project passes on its way to COMPLETE.
var stagesToComplete = apitypes.StagesWhere(func(s apitypes.Stage) bool { return s != apitypes.StageStalled })

// stagePercent is how far a project is along the stages to COMPLETE; a
// stalled project shows none.
func stagePercent(s apitypes.Stage) int {
	i := slices.Index(stagesToComplete, s)
	if i < 0 {
		return 0
	}
	return i * 100 / (len(stagesToComplete) - 1)
}

// timeRange is the span of a clip in its source, "m:ss–m:ss" (with hours
// past an hour): from the start of its first range to the end of its last
// (a clip with filler words cut has several).
func timeRange(ranges [][2]int64) string {
	if len(ranges) == 0 {
		return ""
	}
	return clock(ranges[0][0]) + "–" + clock(ranges[len(ranges)-1][1])
}

func clock(ms int64) string {
	s := max(ms, 0) / 1000
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// shownTime is a stored timestamp as people read it, to the minute.
func shownTime(ts string) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return ts
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// webURL is u when it is an http(s) address, for a link; "" otherwise
// (a directory, where a post went to disk).
func webURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	return u
}

// prefSection is one preferences document as a definition list.
type prefSection struct {
	Title string
	Rows  []prefRow
}

type prefRow struct {
	Label, Value string
}

// projectPrefs are the project's curation, render and import preferences,
// readable: each set field a row, nested ones labelled by their path.
func projectPrefs(p *store.Project) []prefSection {
	var out []prefSection
	// An unset preference (a nil pointer) gives no rows.
	for _, doc := range []struct {
		title string
		v     any
	}{
		{"Curation", p.CurationPref},
		{"Render", p.RenderPref},
		{"Import", p.ImportPref},
	} {
		if rows := prefRows(doc.v); len(rows) > 0 {
			out = append(out, prefSection{Title: doc.title, Rows: rows})
		}
	}
	return out
}

// prefRows flattens a preferences document through its JSON form, so every
// field the API accepts is shown without listing them here.
func prefRows(v any) []prefRow {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var doc any
	if json.Unmarshal(raw, &doc) != nil {
		return nil
	}
	var rows []prefRow
	flatten(&rows, "", doc)
	return rows
}

func flatten(rows *[]prefRow, label string, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			flatten(rows, joinLabel(label, humanize(k)), v[k])
		}
	case []any:
		if scalars, ok := scalarList(v); ok {
			*rows = append(*rows, prefRow{label, scalars})
			return
		}
		for i, item := range v {
			flatten(rows, joinLabel(label, strconv.Itoa(i+1)), item)
		}
	case nil:
	default:
		*rows = append(*rows, prefRow{label, scalar(v)})
	}
}

func joinLabel(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + " › " + child
}

// scalarList writes a list of scalars, or of pairs of them (clip
// durations, "5–30"), on one line.
func scalarList(items []any) (string, bool) {
	parts := make([]string, 0, len(items))
	for _, item := range items {
		switch item := item.(type) {
		case map[string]any:
			return "", false
		case []any:
			inner := make([]string, 0, len(item))
			for _, x := range item {
				if _, nested := x.(map[string]any); nested {
					return "", false
				}
				if _, nested := x.([]any); nested {
					return "", false
				}
				inner = append(inner, scalar(x))
			}
			parts = append(parts, strings.Join(inner, "–"))
		default:
			parts = append(parts, scalar(item))
		}
	}
	return strings.Join(parts, ", "), true
}

func scalar(v any) string {
	switch v := v.(type) {
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		return v
	default:
		return fmt.Sprint(v)
	}
}

// humanize turns a JSON field name into words: "enableRemoveFillerWords"
// becomes "Enable remove filler words".
func humanize(name string) string {
	var b strings.Builder
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		if i == 0 {
			b.WriteRune(unicode.ToUpper(r))
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
