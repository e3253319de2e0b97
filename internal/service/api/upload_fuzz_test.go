package api_test

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/clipperhq/terraform-provider-clipper/internal/apitypes"
)

// uploadFields are what a refused upload PUT may name.
var uploadFields = map[string]bool{"Content-Range": true, "Content-Length": true, "body": true}

// heldRange is the Range of a 308: the bytes the storage holds.
var heldRange = regexp.MustCompile(`^bytes=0-(\d+)$`)

// FuzzUploadPut fuzzes the first PUT of a fresh resumable session, its
// Content-Range and body, through the handler: never a 5xx, a 4xx is a
// JSON error naming the header or the body, a 308 holds no more bytes than
// were sent, and a 200 completes the upload with every byte sent.
func FuzzUploadPut(f *testing.F) {
	srv := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, contentRange, body string) {
		rec := srv.serve(t, http.MethodPost, "/api/upload-links", `{"video": {"usecase": "LocalUpload"}}`)
		link := decodeAnswer[apitypes.Envelope[apitypes.UploadLink]](t, rec).Data
		session, err := srv.startUpload(t, link.URL)
		if err != nil {
			t.Fatal(err)
		}

		put := httptest.NewRequestWithContext(t.Context(), http.MethodPut, session, strings.NewReader(body))
		if contentRange != "" {
			put.Header.Set("Content-Range", contentRange)
		}
		got := httptest.NewRecorder()
		srv.h.ServeHTTP(got, put)
		what := "PUT Content-Range " + strconv.Quote(contentRange) + " with " + strconv.Itoa(len(body)) + " bytes"
		switch got.Code {
		case http.StatusPermanentRedirect:
			held := got.Header().Get("Range")
			m := heldRange.FindStringSubmatch(held)
			if held != "" && (m == nil || mustAtoi(t, m[1]) >= len(body)) {
				t.Fatalf("%s: 308 holding %q", what, held)
			}
		case http.StatusOK:
			st := decodeAnswer[struct {
				UploadID string `json:"uploadId"`
				Size     int64  `json:"size"`
				Complete bool   `json:"complete"`
			}](t, got)
			if !st.Complete || st.Size != int64(len(body)) || st.UploadID != link.UploadID {
				t.Fatalf("%s completed %+v", what, st)
			}
		default:
			checkAnswer(t, got, uploadFields, what)
		}
	})
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
