package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/puzzled/puzzled/jobtype"
	"github.com/puzzled/puzzled/solver"
)

// batchDecoder reads the levels of a POST /v1/batches body one at a time,
// holding at most one level (and the reader's buffers) in memory. It
// accepts the three forms: a JSON array of levels, the object form
// {"levels": […], "priority": …, "budget": …, "difficulty": …, "labels": …} (its options
// may come before or after the levels), and NDJSON, one level per line.
type batchDecoder struct {
	opts     jobtype.Options // options of the object form
	maxLevel int64           // bytes of one level
	reg      *solver.Registry

	// array and object forms
	dec      *json.Decoder
	counted  *countingReader
	wrapper  bool
	inLevels bool // inside the object form's "levels" array
	done     bool

	// NDJSON
	lines   *bufio.Reader
	line    int
	pending []byte // the first line, read while telling the forms apart
}

// errLevelTooLarge reports one level over maxLevel bytes.
type errLevelTooLarge struct{ limit int64 }

func (e errLevelTooLarge) Error() string {
	return "one level is over the limit of " + formatBytes(e.limit)
}

// newBatchDecoder looks at the start of body to pick the form: NDJSON when
// the Content-Type says so; an array for '['; for '{' the object form
// unless the first line is a complete object that is a level (then it is
// the first NDJSON line); NDJSON otherwise.
func newBatchDecoder(reg *solver.Registry, body io.Reader, ndjson bool, maxLevel int64) (*batchDecoder, error) {
	d := &batchDecoder{maxLevel: maxLevel, reg: reg}
	br := bufio.NewReaderSize(body, 64<<10)
	first, err := skipSpace(br)
	if errors.Is(err, io.EOF) {
		return nil, &solver.FieldError{Field: "levels", Reason: "empty body"}
	}
	if err != nil {
		return nil, err
	}
	switch {
	case ndjson:
	case first == '[':
		d.startJSON(br)
		return d, d.expect('[')
	case first == '{':
		line, err := readLine(br, maxLevel)
		var tooLarge errLevelTooLarge
		if err != nil && !errors.Is(err, io.EOF) && !errors.As(err, &tooLarge) {
			return nil, err
		}
		if err == nil || errors.Is(err, io.EOF) {
			if d.isLevelLine(line) {
				d.lines, d.pending = br, line
				return d, nil
			}
		}
		d.startJSON(io.MultiReader(bytes.NewReader(line), br))
		d.wrapper = true
		return d, d.expect('{')
	}
	d.lines = br
	return d, nil
}

// isLevelLine reports whether an NDJSON-looking first line is a level
// rather than a one-line object form: a complete object that the registry
// takes for a level (solver.Registry.IsLevel) or that has no "levels" (the
// registry then names what it lacks).
func (d *batchDecoder) isLevelLine(line []byte) bool {
	var head map[string]json.RawMessage
	if json.Unmarshal(line, &head) != nil {
		return false
	}
	_, ok := head["levels"]
	return !ok || d.reg.IsLevel(head)
}

func (d *batchDecoder) startJSON(r io.Reader) {
	d.counted = &countingReader{r: r}
	d.dec = json.NewDecoder(d.counted)
	d.dec.DisallowUnknownFields()
	d.counted.dec, d.counted.max = d.dec, d.maxLevel
}

func (d *batchDecoder) expect(delim json.Delim) error {
	tok, err := d.dec.Token()
	if err != nil {
		return d.jsonError(err)
	}
	if tok != delim {
		return &solver.FieldError{Reason: fmt.Sprintf("invalid JSON: expected %q, got %v", delim, tok)}
	}
	return nil
}

// next returns the next level's JSON, or io.EOF after the last. Any other
// error ends the batch.
func (d *batchDecoder) next() (json.RawMessage, error) {
	if d.lines != nil {
		return d.nextLine()
	}
	if d.done {
		return nil, io.EOF
	}
	if d.wrapper && !d.inLevels {
		if err := d.wrapperFields(); err != nil || d.done {
			if err == nil {
				err = io.EOF
			}
			return nil, err
		}
	}
	if !d.dec.More() {
		if err := d.closeArray(); err != nil {
			return nil, err
		}
		return d.next()
	}
	var raw json.RawMessage
	if err := d.dec.Decode(&raw); err != nil {
		return nil, d.jsonError(err)
	}
	if int64(len(raw)) > d.maxLevel {
		return nil, errLevelTooLarge{d.maxLevel}
	}
	return raw, nil
}

// closeArray consumes the ']' ending the levels: in the array form that
// ends the body, in the object form its other fields may follow.
func (d *batchDecoder) closeArray() error {
	if err := d.expect(']'); err != nil {
		return err
	}
	if d.wrapper {
		d.inLevels = false
		return nil
	}
	d.done = true
	return d.trailing()
}

// wrapperFields reads the object form's fields up to the "levels" array
// (then inLevels is set) or the end of the object (then done is set).
func (d *batchDecoder) wrapperFields() error {
	for d.dec.More() {
		tok, err := d.dec.Token()
		if err != nil {
			return d.jsonError(err)
		}
		key, _ := tok.(string)
		switch key {
		case "levels":
			if err := d.expect('['); err != nil {
				return prefixField("levels", err)
			}
			d.inLevels = true
			return nil
		case "priority":
			err = d.dec.Decode(&d.opts.Priority)
		case "budget":
			err = d.dec.Decode(&d.opts.Budget)
		case "difficulty":
			var raw json.RawMessage
			if err = d.dec.Decode(&raw); err == nil {
				d.opts.Difficulty, err = decodeDifficulty(raw)
				if err != nil {
					return err // named "difficulty.…" already
				}
			}
		case "labels":
			err = d.dec.Decode(&d.opts.Labels)
		case "callbacks":
			err = d.dec.Decode(&d.opts.Callbacks)
		case "project":
			err = d.dec.Decode(&d.opts.Project)
		default:
			return &solver.FieldError{Field: key, Reason: "unknown field"}
		}
		if err != nil {
			return prefixField(key, d.jsonError(err))
		}
	}
	if err := d.expect('}'); err != nil {
		return err
	}
	d.done = true
	return d.trailing()
}

// trailing refuses anything but space after the body's one JSON value.
func (d *batchDecoder) trailing() error {
	if _, err := d.dec.Token(); !errors.Is(err, io.EOF) {
		return &solver.FieldError{Reason: "invalid JSON: data after the batch"}
	}
	return nil
}

// nextLine returns the next non-blank NDJSON line, checked to be JSON.
func (d *batchDecoder) nextLine() (json.RawMessage, error) {
	for {
		var text []byte
		var err error
		if d.pending != nil {
			text, d.pending = d.pending, nil
		} else {
			text, err = readLine(d.lines, d.maxLevel)
			if err != nil && (!errors.Is(err, io.EOF) || len(text) == 0) {
				return nil, err
			}
		}
		d.line++
		text = bytes.TrimSpace(text)
		if len(text) == 0 {
			continue
		}
		if !json.Valid(text) {
			var v any
			err := json.Unmarshal(text, &v)
			return nil, &solver.FieldError{Field: "line " + strconv.Itoa(d.line), Reason: solver.DecodeError(err).Error()}
		}
		return text, nil
	}
}

// jsonError turns the decoder's errors into 400s, passing on the reader's
// own (body too large, too slow, cut).
func (d *batchDecoder) jsonError(err error) error {
	if d.counted.err != nil {
		return d.counted.err
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &solver.FieldError{Reason: "invalid JSON: unexpected end of body"}
	}
	return solver.DecodeError(err)
}

func prefixField(prefix string, err error) error {
	var fe *solver.FieldError
	if errors.As(err, &fe) && fe.Field != "" && !strings.HasPrefix(fe.Field, prefix) {
		return &solver.FieldError{Field: prefix + "." + fe.Field, Reason: fe.Reason}
	}
	if errors.As(err, &fe) && fe.Field == "" {
		return &solver.FieldError{Field: prefix, Reason: fe.Reason}
	}
	return err
}

// skipSpace returns the first byte that is not JSON space, unread.
func skipSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if b != ' ' && b != '\t' && b != '\n' && b != '\r' {
			return b, br.UnreadByte()
		}
	}
}

// readLine reads one line (without its '\n'), refusing one longer than
// limit (returning what it read). At the end of the body it returns the
// last line with io.EOF.
func readLine(br *bufio.Reader, limit int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if int64(len(line)) > limit+1 {
			return line, errLevelTooLarge{limit} // the bytes read, for the object form
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return line, err
		}
	}
}

// countingReader feeds the JSON decoder and stops it from buffering more
// than max bytes past what it has consumed: that is one value over max.
// It keeps the first error it returned (the body's own, e.g. 413).
type countingReader struct {
	r    io.Reader
	dec  *json.Decoder
	max  int64
	read int64
	err  error
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.read-c.dec.InputOffset() > c.max+64<<10 {
		c.err = errLevelTooLarge{c.max}
		return 0, c.err
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		c.err = err
	}
	return n, err
}
