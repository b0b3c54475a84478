package transfer

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// Writer writes export lines to an io.Writer, one session a line, its
// messages streamed into the line one at a time: Begin, Message for each
// message, End. Its output is buffered; Flush writes what is left.
type Writer struct {
	w        *bufio.Writer
	order    Order
	b        []byte       // the value being encoded
	scratch  bytes.Buffer // for tool_calls and structured content
	messages int          // messages written into the open line
}

// NewWriter returns a Writer writing to w, the columns in order.
func NewWriter(w io.Writer, order Order) *Writer {
	return &Writer{w: bufio.NewWriter(w), order: order}
}

// Begin writes s and lastActive, opening the line's "messages" array. It
// returns w's write error, or an error for a NaN.
func (w *Writer) Begin(s Session, lastActive sqlnum.Real) error {
	var err error
	if w.b, err = appendHead(w.b[:0], &s, lastActive, w.order, &w.scratch); err != nil {
		return err
	}
	w.messages = 0
	_, err = w.w.Write(w.b)
	return err
}

// Message writes m into the open line's "messages" array. It returns w's
// write error, or an error for a NaN.
func (w *Writer) Message(m Message) error {
	w.b = w.b[:0]
	if w.messages > 0 {
		w.b = append(w.b, ',')
	}
	var err error
	if w.b, err = appendMessage(w.b, &m, w.order, &w.scratch); err != nil {
		return err
	}
	w.messages++
	_, err = w.w.Write(w.b)
	return err
}

// End closes the line. It returns w's write error.
func (w *Writer) End() error {
	_, err := w.w.WriteString("]}\n")
	return err
}

// Flush writes the buffered output to w. It returns w's write error.
func (w *Writer) Flush() error { return w.w.Flush() }

// AppendEntry appends e's export line, without the newline, the columns in
// order: what a Writer writes for it. It returns an error for a NaN.
func AppendEntry(dst []byte, e Entry, order Order) ([]byte, error) {
	var scratch bytes.Buffer
	dst, err := appendHead(dst, &e.Session, e.LastActive, order, &scratch)
	if err != nil {
		return nil, err
	}
	for i := range e.Messages {
		if i > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendMessage(dst, &e.Messages[i], order, &scratch); err != nil {
			return nil, err
		}
	}
	return append(dst, ']', '}'), nil
}

// AppendMessage appends m's object as an export line carries it, the
// columns in order: upstream's get_messages row. It returns an error for a
// NaN.
func AppendMessage(dst []byte, m Message, order Order) ([]byte, error) {
	var scratch bytes.Buffer
	return appendMessage(dst, &m, order, &scratch)
}

// appendHead appends the session object's members, the columns in order,
// then last_active (left out when NULL or zero), up to and including the
// "[" that opens "messages".
func appendHead(b []byte, s *Session, lastActive sqlnum.Real, order Order, scratch *bytes.Buffer) ([]byte, error) {
	o := object{b: append(b, '{'), scratch: scratch}
	order.eachSession(func(m sessionMember) { m.write(&o, m.name, s) })
	if written(lastActive) {
		o.time("last_active", lastActive, false)
	}
	o.key("messages")
	o.b = append(o.b, '[')
	if o.err != nil {
		return nil, fmt.Errorf("session %q: %w", s.ID, o.err)
	}
	return o.b, nil
}

// written reports whether an export line carries last_active: not when
// it reads as 0 (NULL, or a BLOB whose CAST is 0), as encoding/json's
// omitzero left it out of the store's exports before.
func written(lastActive sqlnum.Real) bool {
	_, text := lastActive.Stored.(string)
	return text || lastActive.Float64 != 0
}

// appendMessage appends one message object, its columns in order.
func appendMessage(b []byte, m *Message, order Order, scratch *bytes.Buffer) ([]byte, error) {
	o := object{b: append(b, '{'), scratch: scratch}
	order.eachMessage(func(mm messageMember) { mm.write(&o, mm.name, m) })
	if o.err != nil {
		return nil, fmt.Errorf("message %d: %w", m.ID, o.err)
	}
	return append(o.b, '}'), nil
}

// object appends the members of one JSON object after its "{", keeping the
// first error.
type object struct {
	b       []byte
	members int
	err     error
	scratch *bytes.Buffer // for values re-encoded on the way (tool_calls, structured content)
}

// key appends the separator and the member name (plain ASCII).
func (o *object) key(name string) {
	if o.members > 0 {
		o.b = append(o.b, ',')
	}
	o.members++
	o.b = append(append(append(o.b, '"'), name...), '"', ':')
}

func (o *object) str(name, s string) {
	o.key(name)
	o.b = AppendString(o.b, s)
}

func (o *object) text(name string, s *string) {
	o.key(name)
	o.b = appendText(o.b, s)
}

func (o *object) int(name string, n sqlnum.Int, nullable bool) {
	o.key(name)
	b, err := appendInt(o.b, n, nullable)
	o.keep(name, b, err)
}

func (o *object) time(name string, r sqlnum.Real, nullable bool) {
	o.key(name)
	b, err := appendTime(o.b, r, nullable)
	o.keep(name, b, err)
}

func (o *object) cost(name string, r sqlnum.Real) {
	o.key(name)
	b, err := appendCost(o.b, r)
	o.keep(name, b, err)
}

// keep takes an appended value, or the first error, naming the member.
func (o *object) keep(name string, b []byte, err error) {
	o.b = b
	if err != nil && o.err == nil {
		o.err = fmt.Errorf("%s: %w", name, err)
	}
}
