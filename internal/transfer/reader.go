package transfer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Reader reads the records of an import: JSON Lines, one record a line
// (blank and white-space lines skipped), or one JSON array of records, as
// the original's export_all output saved with json.dump. White space, blank
// lines and UTF-8 byte-order marks before the first record are skipped;
// CRLF line ends are read as LF. Memory is bounded by one record.
type Reader struct {
	br   *bufio.Reader
	line int // the line being read

	started bool
	// In an array: the decoder over the rest of the input, and the
	// newlines it has read.
	dec *json.Decoder
	lr  *lineReader
}

// NewReader returns a Reader of r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), line: 1}
}

// bom is the UTF-8 byte-order mark.
const bom = "\xEF\xBB\xBF"

// Next returns the next record, parsed and checked (Parse), with the line
// it starts on. It returns io.EOF after the last one, a *RecordError for a
// record that cannot be imported or a broken JSON array (naming the line the
// record, or the array element, starts on), and r's own read error as it
// is.
func (r *Reader) Next() (Record, error) {
	if !r.started {
		r.started = true
		if err := r.start(); err != nil {
			return Record{}, err
		}
	}
	var (
		line int
		raw  []byte
		err  error
	)
	if r.dec != nil {
		line, raw, err = r.element()
	} else {
		line, raw, err = r.nextLine()
	}
	if err != nil {
		return Record{}, err
	}
	rec, err := Parse(raw)
	if err != nil {
		return Record{}, &RecordError{Line: line, Err: err}
	}
	rec.Line = line
	rec.Size = PythonCompactSize(raw)
	return rec, nil
}

// start skips what comes before the first record and tells JSON Lines from
// an array.
func (r *Reader) start() error {
	for {
		peek, err := r.br.Peek(len(bom))
		if len(peek) == 0 {
			if err == io.EOF {
				err = nil
			}
			return err
		}
		switch {
		case bytes.HasPrefix(peek, []byte(bom)):
			r.br.Discard(len(bom))
		case peek[0] == '\n':
			r.line++
			r.br.Discard(1)
		case peek[0] == ' ' || peek[0] == '\t' || peek[0] == '\r':
			r.br.Discard(1)
		case peek[0] == '[':
			r.lr = &lineReader{r: r.br, first: r.line}
			r.dec = json.NewDecoder(r.lr)
			_, err := r.dec.Token() // the '['
			return r.arrayError(r.line, err)
		default:
			return nil
		}
	}
}

// nextLine returns the next line that is not blank, trimmed, and its
// number; io.EOF after the last.
func (r *Reader) nextLine() (int, []byte, error) {
	for {
		b, err := r.br.ReadBytes('\n')
		if err != nil && err != io.EOF {
			return 0, nil, err
		}
		line := r.line
		r.line++
		if t := bytes.TrimSpace(b); len(t) > 0 {
			return line, t, nil
		}
		if err == io.EOF {
			return 0, nil, io.EOF
		}
	}
}

// element returns the array's next element and the line it starts on;
// io.EOF after the closing "]", when nothing but white space follows it.
func (r *Reader) element() (int, []byte, error) {
	dec, lr := r.dec, r.lr
	if !dec.More() {
		if _, err := dec.Token(); err != nil { // the ']'
			return 0, nil, r.arrayError(lr.lineAt(elementStart(dec)), err)
		}
		if _, err := dec.Token(); err != io.EOF {
			if lr.err != nil {
				return 0, nil, lr.err
			}
			return 0, nil, &RecordError{Line: lr.lineAt(dec.InputOffset()), Err: errors.New("data after the JSON array")}
		}
		return 0, nil, io.EOF
	}
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return 0, nil, r.arrayError(lr.lineAt(elementStart(dec)), err)
	}
	start := dec.InputOffset() - int64(len(raw))
	line := lr.lineAt(start)
	lr.forget(start)
	return line, raw, nil
}

// arrayError is the error for a broken array at line: r's read error as it
// is, else a *RecordError (an array that ends early: io.ErrUnexpectedEOF).
func (r *Reader) arrayError(line int, err error) error {
	switch {
	case err == nil:
		return nil
	case r.lr.err != nil:
		return r.lr.err
	case err == io.EOF:
		err = io.ErrUnexpectedEOF
	}
	return &RecordError{Line: line, Err: fmt.Errorf("not a JSON array of session objects: %w", err)}
}

// elementStart is the offset of the array element (or the "]") a failed
// Decode or Token was reading: InputOffset stays before the white space
// after the comma, so the decoder's buffered bytes are skipped up to the
// first one that is not white space.
func elementStart(dec *json.Decoder) int64 {
	off := dec.InputOffset()
	rest, _ := io.ReadAll(dec.Buffered())
	for _, c := range rest {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			break
		}
		off++
	}
	return off
}

// lineReader passes bytes through and remembers where the newlines are, so
// an offset the JSON decoder reports can be turned into a line number. The
// offsets before the current record are forgotten as reading goes on, so
// memory stays bounded by one record's lines. It keeps the reader's error
// other than io.EOF, which is the importer's to return, not a broken array.
type lineReader struct {
	r      io.Reader
	first  int     // the line the reading starts on
	read   int64   // bytes read so far
	passed int     // newlines forgotten (all before the current record)
	nl     []int64 // offsets of the newlines remembered
	err    error   // the reader's error, io.EOF excepted
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.nl = append(l.nl, l.read+int64(i))
		}
	}
	l.read += int64(n)
	if err != nil && err != io.EOF {
		l.err = err
	}
	return n, err
}

// lineAt returns the line the byte at offset is on.
func (l *lineReader) lineAt(offset int64) int {
	n := 0
	for n < len(l.nl) && l.nl[n] < offset {
		n++
	}
	return l.first + l.passed + n
}

// forget drops the newlines before offset.
func (l *lineReader) forget(offset int64) {
	n := 0
	for n < len(l.nl) && l.nl[n] < offset {
		n++
	}
	l.passed += n
	l.nl = append(l.nl[:0], l.nl[n:]...)
}
