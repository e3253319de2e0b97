package transcribe

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/clipperhq/terraform-provider-clipper/internal/backoff"
)

// OpenAI sends the audio to a speech-to-text server with the
// OpenAI-compatible API (--asr openai): POST {URL}/v1/audio/transcriptions,
// as OpenAI, whisper.cpp's server, faster-whisper servers and LocalAI
// offer. It hears whatever languages the server's model does.
type OpenAI struct {
	// Endpoint is the transcriptions address (see OpenAIEndpoint).
	Endpoint string
	Model    string
	// APIKey, when set, is sent as "Authorization: Bearer APIKey".
	APIKey string
	// Client sends the requests; nil: a client with openAITimeout.
	Client *http.Client
	// Attempts per request (default openAIAttempts); RetryBase is the wait
	// after the first failure, doubling (default 2 s, the tests set less).
	Attempts  int
	RetryBase time.Duration
}

const (
	// DefaultOpenAIModel is --asr-model's default: OpenAI's name of whisper,
	// which many compatible servers accept or ignore.
	DefaultOpenAIModel = "whisper-1"
	// openAITimeout bounds one request: a chunk of openAIChunkMaxSec of
	// audio on a CPU-only whisper server takes minutes.
	openAITimeout = 15 * time.Minute
	// openAIAttempts: a server restarting or overloaded (connection refused,
	// 429, 5xx) gets two more tries within a minute; past them the project
	// stalls and is retried as after any recogniser failure.
	openAIAttempts = 3
	// Audio is sent in chunks cut at pauses: OpenAI takes at most 25 MB a
	// file, 13 minutes of 16 kHz 16-bit mono; 10 minutes is 19.2 MB.
	openAIChunkMinSec = 300
	openAIChunkMaxSec = 600
)

// OpenAIEndpoint is the transcriptions address of --asr-url base: base
// itself when it ends in /audio/transcriptions, base + /audio/transcriptions
// when it ends in /v1, else base + /v1/audio/transcriptions.
func OpenAIEndpoint(base string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(base))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--asr-url %q must be an http:// or https:// address of an OpenAI-compatible server, e.g. http://127.0.0.1:8000", base)
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/audio/transcriptions"):
	case strings.HasSuffix(p, "/v1"):
		p += "/audio/transcriptions"
	default:
		p += "/v1/audio/transcriptions"
	}
	u.Path = p
	return u.String(), nil
}

// NewOpenAI checks base (--asr-url) and model (--asr-model; "" takes
// DefaultOpenAIModel).
func NewOpenAI(base, model, apiKey string) (*OpenAI, error) {
	if strings.TrimSpace(base) == "" {
		return nil, errors.New("--asr openai needs --asr-url, the address of an OpenAI-compatible speech-to-text server (POST /v1/audio/transcriptions)")
	}
	endpoint, err := OpenAIEndpoint(base)
	if err != nil {
		return nil, err
	}
	if model = strings.TrimSpace(model); model == "" {
		model = DefaultOpenAIModel
	}
	return &OpenAI{Endpoint: endpoint, Model: model, APIKey: apiKey}, nil
}

// Describe names the recogniser and its server.
func (o *OpenAI) Describe() string { return KindOpenAI + ": " + o.Model + " at " + o.Endpoint }

// OpenAILanguage is the language field sent for sourceLang: none for "" and
// auto (the server detects it), else its primary subtag lower-cased
// ("pt-BR" is "pt"), the ISO-639-1 code whisper takes.
func OpenAILanguage(lang string) string {
	l := strings.ToLower(strings.TrimSpace(lang))
	if l == "" || l == "auto" {
		return ""
	}
	if i := strings.IndexAny(l, "-_"); i > 0 {
		l = l[:i]
	}
	return l
}

// Transcribe cuts wavPath at pauses into chunks of at most 10 minutes and
// sends each in turn, joining their words.
func (o *OpenAI) Transcribe(ctx context.Context, wavPath, lang string) ([]Word, error) {
	dir, err := os.MkdirTemp(filepath.Dir(wavPath), "clipperd-asr-")
	if err != nil {
		return nil, fmt.Errorf("asr openai: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	raw, chunks, err := splitAtPauses(ctx, wavPath, dir, openAIChunkMinSec, openAIChunkMaxSec)
	if err != nil {
		return nil, err
	}
	var words []Word
	for i, c := range chunks {
		wav := filepath.Join(dir, fmt.Sprintf("chunk%04d.wav", i))
		if err := writeWAVChunk(raw, wav, c); err != nil {
			return nil, fmt.Errorf("asr openai: chunk %.1f–%.1f s: %w", c.Start, c.End, err)
		}
		got, err := o.TranscribeFile(ctx, wav, lang)
		_ = os.Remove(wav)
		if err != nil {
			return nil, err
		}
		for _, w := range got {
			w.Start += c.Start
			w.End += c.Start
			words = append(words, w)
		}
	}
	return words, nil
}

// TranscribeFile sends one WAV file and parses the words of the answer.
func (o *OpenAI) TranscribeFile(ctx context.Context, wavPath, lang string) ([]Word, error) {
	audio, err := os.ReadFile(wavPath)
	if err != nil {
		return nil, fmt.Errorf("asr openai: %w", err)
	}
	body, contentType, err := openAIRequestBody(audio, o.Model, OpenAILanguage(lang))
	if err != nil {
		return nil, err
	}
	client := o.Client
	if client == nil {
		client = &http.Client{Timeout: openAITimeout}
	}
	attempts := o.Attempts
	if attempts <= 0 {
		attempts = openAIAttempts
	}
	base := o.RetryBase
	if base <= 0 {
		base = 2 * time.Second
	}
	for attempt := 1; ; attempt++ {
		words, retry, err := o.post(ctx, client, body, contentType, lang)
		if err == nil || !retry || attempt >= attempts || ctx.Err() != nil {
			if err != nil && retry && ctx.Err() == nil {
				err = fmt.Errorf("%w (after %d attempts)", err, attempt)
			}
			return words, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("asr openai: %w", ctx.Err())
		case <-time.After(backoff.Jittered(attempt, base, 8*base)):
		}
	}
}

// openAIRequestBody is the multipart form of a transcription request.
func openAIRequestBody(audio []byte, model, language string) ([]byte, string, error) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="audio.wav"`)
	h.Set("Content-Type", "audio/wav")
	part, err := mw.CreatePart(h)
	if err == nil {
		_, err = part.Write(audio)
	}
	fields := [][2]string{{"model", model}, {"response_format", "verbose_json"}, {"timestamp_granularities[]", "word"}}
	if language != "" {
		fields = append(fields, [2]string{"language", language})
	}
	for _, f := range fields {
		if err == nil {
			err = mw.WriteField(f[0], f[1])
		}
	}
	if err == nil {
		err = mw.Close()
	}
	if err != nil {
		return nil, "", fmt.Errorf("asr openai: request: %w", err)
	}
	return b.Bytes(), mw.FormDataContentType(), nil
}

// post sends one request; retry says whether the failure may pass (the
// server unreachable, 408, 429, 5xx).
func (o *OpenAI) post(ctx context.Context, client *http.Client, body []byte, contentType, lang string) ([]Word, bool, error) {
	where := "POST " + o.Endpoint + " (--asr-url)"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.Endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, false, fmt.Errorf("asr openai: %s: %w", where, err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Accept", "application/json")
	if o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.APIKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, ctx.Err() == nil, fmt.Errorf("asr openai: %s: %w", where, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, true, fmt.Errorf("asr openai: %s: reading the answer: %w", where, err)
	}
	if resp.StatusCode/100 != 2 {
		msg := openAIErrorMessage(data)
		err := fmt.Errorf("asr openai: %s answered %s: %s", where, resp.Status, msg)
		switch {
		case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
			err = fmt.Errorf("%w (check the key in %s)", err, ASRKeyEnv)
		case resp.StatusCode == http.StatusBadRequest && lang != "" && strings.Contains(strings.ToLower(msg), "language"):
			// The model does not know sourceLang: no transcript, as with
			// pocketsphinx and a language other than English.
			return nil, false, fmt.Errorf("%w %q: %s", ErrUnsupportedLanguage, lang, err.Error())
		}
		retry := resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		return nil, retry, err
	}
	words, err := ParseVerboseJSON(data)
	if err != nil {
		return nil, false, fmt.Errorf("asr openai: %s: %w", where, err)
	}
	return words, false, nil
}

// ASRKeyEnv is the environment variable holding --asr openai's API key.
const ASRKeyEnv = "CLIPPERD_ASR_API_KEY"

// openAIErrorMessage is the message of an OpenAI error body
// ({"error": {"message": ...}}), else the body's start.
func openAIErrorMessage(data []byte) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && len(e.Error) > 0 {
		var obj struct {
			Message string `json:"message"`
		}
		var s string
		if json.Unmarshal(e.Error, &obj) == nil && obj.Message != "" {
			return obj.Message
		}
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return s
		}
	}
	msg := strings.TrimSpace(string(data))
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	if msg == "" {
		msg = "(no body)"
	}
	return msg
}

// verboseWord is a word of a verbose_json answer: OpenAI's "word", "start",
// "end"; whisper.cpp and faster-whisper add "probability".
type verboseWord struct {
	Word        string   `json:"word"`
	Start       *float64 `json:"start"`
	End         *float64 `json:"end"`
	Probability *float64 `json:"probability"`
}

// ParseVerboseJSON reads the words of a verbose_json transcription: the
// top-level "words" (OpenAI, faster-whisper servers), else the words of each
// segment (whisper.cpp's server). A segment without words has its text's
// words spread over its time, in proportion to their length. Words are
// trimmed of spaces; a word without times, or ending before it starts, is
// an error naming it.
func ParseVerboseJSON(data []byte) ([]Word, error) {
	var doc struct {
		Text     *string       `json:"text"`
		Words    []verboseWord `json:"words"`
		Segments []struct {
			Start float64       `json:"start"`
			End   float64       `json:"end"`
			Text  string        `json:"text"`
			Words []verboseWord `json:"words"`
		} `json:"segments"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("the answer is not verbose_json: %w", err)
	}
	if doc.Text == nil && doc.Words == nil && doc.Segments == nil {
		return nil, errors.New(`the answer has no "text", "words" or "segments": not verbose_json (does the server take response_format=verbose_json?)`)
	}
	src := doc.Words
	if len(src) == 0 {
		for _, s := range doc.Segments {
			if len(s.Words) > 0 {
				src = append(src, s.Words...)
				continue
			}
			src = append(src, spreadWords(s.Text, s.Start, s.End)...)
		}
	}
	words := make([]Word, 0, len(src))
	for i, w := range src {
		text := strings.TrimSpace(w.Word)
		if text == "" {
			continue
		}
		if w.Start == nil || w.End == nil || *w.Start < 0 || *w.End < *w.Start {
			return nil, fmt.Errorf("words[%d] (%q) needs \"start\" and \"end\" with 0 <= start <= end", i, text)
		}
		if strings.IndexFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }) < 0 {
			continue // punctuation whisper.cpp reports as a token of its own
		}
		conf := 1.0
		if w.Probability != nil {
			conf = min(1, max(0, *w.Probability))
		}
		words = append(words, Word{Text: text, Start: *w.Start, End: *w.End, Confidence: conf})
	}
	return words, nil
}

// spreadWords times the words of text over start..end in proportion to
// their length in characters.
func spreadWords(text string, start, end float64) []verboseWord {
	f := strings.Fields(text)
	total := 0
	for _, w := range f {
		total += len([]rune(w))
	}
	if total == 0 || end <= start {
		return nil
	}
	out := make([]verboseWord, 0, len(f))
	at, per := start, (end-start)/float64(total)
	for _, w := range f {
		s, e := at, at+per*float64(len([]rune(w)))
		out = append(out, verboseWord{Word: w, Start: &s, End: &e})
		at = e
	}
	return out
}
