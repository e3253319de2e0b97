package transcribe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clipperhq/terraform-provider-clipper/internal/toolexec/toolexectest"
)

// openAIRequest is what the stand-in server received.
type openAIRequest struct {
	method, path, auth string
	fields             map[string][]string
	fileName, fileType string
	file               []byte
}

// readOpenAIRequest parses a transcription request as a server would.
func readOpenAIRequest(t *testing.T, r *http.Request) openAIRequest {
	t.Helper()
	got := openAIRequest{method: r.Method, path: r.URL.Path, auth: r.Header.Get("Authorization"), fields: map[string][]string{}}
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		t.Errorf("Content-Type %q: want multipart/form-data", r.Header.Get("Content-Type"))
		return got
	}
	mr := multipart.NewReader(r.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Errorf("multipart: %v", err)
			return got
		}
		data, _ := io.ReadAll(p)
		if p.FormName() == "file" {
			got.fileName, got.fileType, got.file = p.FileName(), p.Header.Get("Content-Type"), data
			continue
		}
		got.fields[p.FormName()] = append(got.fields[p.FormName()], string(data))
	}
	return got
}

// testWAV writes seconds of a 16 kHz mono tone as clipperd's recognisers
// get it, and returns its path and PCM samples.
func testWAV(t *testing.T, seconds float64) (string, []byte) {
	t.Helper()
	toolexectest.RequireTools(t, "ffmpeg")
	wav := filepath.Join(t.TempDir(), "span.wav")
	if out, err := exec.CommandContext(t.Context(), "ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i",
		fmt.Sprintf("sine=frequency=300:sample_rate=16000:duration=%g", seconds),
		"-ac", "1", "-c:a", "pcm_s16le", wav).CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	data, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte("data"))
	return wav, data[i+8:]
}

// TestOpenAIContract pins the request clipperd sends an OpenAI-compatible
// server and its reading of the answer, a verbose_json in OpenAI's shape.
func TestOpenAIContract(t *testing.T) {
	sample, err := os.ReadFile(filepath.Join("testdata", "openai_verbose.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got openAIRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = readOpenAIRequest(t, r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(sample)
	}))
	defer srv.Close()
	asr, err := New(Options{Kind: KindOpenAI, URL: srv.URL, Model: "Systran/faster-whisper-small", APIKey: "sk-test"})
	if err != nil {
		t.Fatal(err)
	}
	wav, pcm := testWAV(t, 2.6)
	words, err := asr.Transcribe(t.Context(), wav, "de-DE")
	if err != nil {
		t.Fatal(err)
	}
	if got.method != http.MethodPost || got.path != "/v1/audio/transcriptions" || got.auth != "Bearer sk-test" {
		t.Errorf("request %s %s, Authorization %q; want POST /v1/audio/transcriptions, Bearer sk-test", got.method, got.path, got.auth)
	}
	wantFields := map[string][]string{
		"model": {"Systran/faster-whisper-small"}, "language": {"de"},
		"response_format": {"verbose_json"}, "timestamp_granularities[]": {"word"},
	}
	if !reflect.DeepEqual(got.fields, wantFields) {
		t.Errorf("fields %v; want %v", got.fields, wantFields)
	}
	if got.fileName != "audio.wav" || got.fileType != "audio/wav" || len(got.file) < 44 ||
		string(got.file[:4]) != "RIFF" || string(got.file[8:12]) != "WAVE" || !bytes.Equal(got.file[44:], pcm) ||
		binary.LittleEndian.Uint32(got.file[24:]) != 16000 {
		t.Errorf("file %q (%s, %d bytes); want audio.wav, audio/wav: the span's 16 kHz WAV (%d bytes of samples)", got.fileName, got.fileType, len(got.file), len(pcm))
	}
	want := []Word{{"Guten", 0.18, 0.52, 1}, {"Morgen,", 0.52, 0.98, 1}, {"liebe", 1.1, 1.42, 1}, {"Zuschauer.", 1.42, 2.2, 1}}
	if !reflect.DeepEqual(words, want) {
		t.Errorf("words %+v\nwant %+v", words, want)
	}

	// auto (and no sourceLang): no language field, the server detects it.
	if _, err := asr.Transcribe(t.Context(), wav, "auto"); err != nil {
		t.Fatal(err)
	}
	if _, sent := got.fields["language"]; sent {
		t.Errorf("sourceLang auto sent language %v; want none", got.fields["language"])
	}
}

// TestParseVerboseJSONOfWhisperCpp: whisper.cpp's server puts the words in
// the segments, with a space before each, punctuation as tokens of their
// own and a probability.
func TestParseVerboseJSONOfWhisperCpp(t *testing.T) {
	sample, err := os.ReadFile(filepath.Join("testdata", "whispercpp_verbose.json"))
	if err != nil {
		t.Fatal(err)
	}
	words, err := ParseVerboseJSON(sample)
	if err != nil {
		t.Fatal(err)
	}
	want := []Word{{"Guten", 0.18, 0.52, 0.9812}, {"Morgen", 0.52, 0.96, 0.9603}, {"liebe", 1.1, 1.42, 0.8877}, {"Zuschauer.", 1.42, 2.2, 1}}
	if !reflect.DeepEqual(words, want) {
		t.Errorf("words %+v\nwant %+v", words, want)
	}
	// A server that gives segments only: their words spread over each.
	words, err = ParseVerboseJSON([]byte(`{"text":"ab cd","segments":[{"start":1,"end":2,"text":" ab cdef"}]}`))
	want = []Word{{"ab", 1, 1 + 1.0/3, 1}, {"cdef", 1 + 1.0/3, 2, 1}}
	if err != nil || !reflect.DeepEqual(words, want) {
		t.Errorf("segments without words: %+v, %v; want %+v", words, err, want)
	}
	for _, bad := range []string{`[1]`, `{"task":"transcribe"}`, `{"words":[{"word":"a","start":2,"end":1}]}`, `{"words":[{"word":"a"}]}`} {
		if _, err := ParseVerboseJSON([]byte(bad)); err == nil {
			t.Errorf("ParseVerboseJSON(%s): no error", bad)
		}
	}
}

// TestOpenAIErrors: failures name the flag and the server; 5xx and 429 are
// retried, a key refused and an unknown language are not.
func TestOpenAIErrors(t *testing.T) {
	wav, _ := testWAV(t, 1)
	var calls atomic.Int32
	status := http.StatusServiceUnavailable
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch {
		case status == http.StatusServiceUnavailable && n < 3:
			http.Error(w, "model loading", status)
		case status == http.StatusServiceUnavailable:
			_, _ = w.Write([]byte(`{"text":"hi","words":[{"word":"hi","start":0.1,"end":0.3}]}`))
		default:
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"error":{"message":"Language 'xx' is not supported","type":"invalid_request_error"}}`))
		}
	}))
	defer srv.Close()
	asr, err := NewOpenAI(srv.URL+"/v1/", "", "")
	if err != nil {
		t.Fatal(err)
	}
	asr.RetryBase = time.Millisecond
	words, err := asr.Transcribe(t.Context(), wav, "en")
	if err != nil || len(words) != 1 || calls.Load() != 3 {
		t.Errorf("two 503s then an answer: %v, %v after %d calls; want the word after 3", words, err, calls.Load())
	}

	status = http.StatusUnauthorized
	calls.Store(0)
	_, err = asr.Transcribe(t.Context(), wav, "en")
	if err == nil || !strings.Contains(err.Error(), "--asr-url") || !strings.Contains(err.Error(), srv.URL+"/v1/audio/transcriptions") ||
		!strings.Contains(err.Error(), ASRKeyEnv) || calls.Load() != 1 {
		t.Errorf("401: %v after %d calls; want one call, an error naming --asr-url, the address and %s", err, calls.Load(), ASRKeyEnv)
	}

	status = http.StatusBadRequest
	if _, err := asr.Transcribe(t.Context(), wav, "xx"); !errors.Is(err, ErrUnsupportedLanguage) {
		t.Errorf("400 about the language: %v; want ErrUnsupportedLanguage", err)
	}

	// Nothing listening: the error names the flag; retried, then given up.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	gone, err := NewOpenAI("http://"+addr, "whisper-1", "")
	if err != nil {
		t.Fatal(err)
	}
	gone.RetryBase = time.Millisecond
	if _, err := gone.Transcribe(t.Context(), wav, ""); err == nil || !strings.Contains(err.Error(), "--asr-url") || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("no server: %v; want an error naming --asr-url after 3 attempts", err)
	}
}

func TestOpenAIEndpointAndFlags(t *testing.T) {
	for base, want := range map[string]string{
		"http://127.0.0.1:8000":                             "http://127.0.0.1:8000/v1/audio/transcriptions",
		"https://api.openai.com/v1":                         "https://api.openai.com/v1/audio/transcriptions",
		"http://box:8080/inference/v1/":                     "http://box:8080/inference/v1/audio/transcriptions",
		"http://box:9000/v1/audio/transcriptions":           "http://box:9000/v1/audio/transcriptions",
		"http://localai.lan/openai/v1/audio/transcriptions": "http://localai.lan/openai/v1/audio/transcriptions",
	} {
		if got, err := OpenAIEndpoint(base); err != nil || got != want {
			t.Errorf("OpenAIEndpoint(%q) = %q, %v; want %q", base, got, err, want)
		}
	}
	for _, base := range []string{"", "127.0.0.1:8000", "ftp://box/", "http://"} {
		if _, err := New(Options{Kind: KindOpenAI, URL: base}); err == nil || !strings.Contains(err.Error(), "--asr-url") {
			t.Errorf("--asr-url %q: %v; want an error naming --asr-url", base, err)
		}
	}
	asr, err := New(Options{Kind: KindOpenAI, URL: "http://127.0.0.1:8000"})
	if err != nil || asr.Describe() != "openai: whisper-1 at http://127.0.0.1:8000/v1/audio/transcriptions" {
		t.Errorf("default model: %v, %v", asr, err)
	}
	for lang, want := range map[string]string{"": "", "auto": "", "de": "de", "pt-BR": "pt", "EN_us": "en", " ja ": "ja"} {
		if got := OpenAILanguage(lang); got != want {
			t.Errorf("OpenAILanguage(%q) = %q, want %q", lang, got, want)
		}
	}
}
