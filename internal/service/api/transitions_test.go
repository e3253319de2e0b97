package api

import (
	"net/http"
	"testing"
)

// An unknown selectedTransitions name is a 400 naming the item, before anything is stored.
func TestCreateProjectRefusesAnUnknownTransition(t *testing.T) {
	t.Parallel()
	st, key := keyedStore(t)
	h := New(Config{Store: st, Media: testMedia(t, t.TempDir()), PublicURL: "http://clipperd.test"})
	body := `{"videoUrl":"https://www.youtube.com/watch?v=abc","renderPref":{"enableAutoTransition":true,"selectedTransitions":["fade","wipeleft","sparkle"]}}`
	rec := send(t, h, http.MethodPost, "/api/clip-projects", key, body)
	wantAnswer(t, rec, http.StatusBadRequest, errBadRequest,
		`renderPref.selectedTransitions[2]: must be a transition (one of fade, dissolve, fadeblack, fadewhite, fadegrays, distance, pixelize, wipeleft, wiperight, wipeup, wipedown, slideleft, slideright, slideup, slidedown, smoothleft, smoothright, smoothup, smoothdown, circleopen, circleclose, circlecrop, rectcrop, radial, vertopen, vertclose, horzopen, horzclose, diagtl, diagtr, diagbl, diagbr, hlslice, hrslice, vuslice, vdslice, hblur, squeezeh, squeezev, zoomin), not "sparkle"`)
}
