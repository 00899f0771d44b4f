package compare

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// ProcessThread is a thread of WriteProcessJSON: its trace, or (Trace nil)
// the error that kept it from being taken.
type ProcessThread struct {
	Tid   int
	Name  string
	Trace *Trace
	Err   error
}

// WriteProcessJSON writes the ProcessDocument d with the documents of
// threads as its "threads" (d.Threads is not read), byte for byte as
// WriteJSON writes the whole document, but building one FrameDocument at
// a time: the memory it takes is that of the traces, not of their
// documents (a FrameDocument with its steps' rules and sources is several
// times a Frame, and "bt --json --max-depth 1000000" has a million).
func WriteProcessJSON(w io.Writer, d ProcessDocument, threads []ProcessThread) error {
	s := &jsonStream{w: bufio.NewWriterSize(w, 64<<10), enc: map[string]*prefixEncoder{}}
	d.Threads = []ThreadDocument{}
	err := s.spliced(d, "", "threads", len(threads), func(i int, prefix string) error {
		th := threads[i]
		if th.Trace == nil {
			doc := ThreadDocument{Tid: th.Tid, Name: th.Name, Frames: []FrameDocument{}, Findings: []Finding{}, FPBrokenFrom: -1}
			if th.Err != nil {
				doc.Error = th.Err.Error()
			}
			return s.value(doc, prefix)
		}
		t := th.Trace
		return s.spliced(t.documentHead(th.Tid, th.Name), prefix, "frames", len(t.Frames), func(i int, prefix string) error {
			return s.value(t.frameDocument(i), prefix)
		})
	})
	if err != nil {
		return err
	}
	s.w.WriteByte('\n') // as json.Encoder ends a document
	return s.w.Flush()
}

// jsonStream writes a JSON document in the layout of WriteJSON a value at
// a time, each value indented for its depth in the document.
type jsonStream struct {
	w *bufio.Writer
	// enc holds an encoder by prefix, each with a buffer of its own: a
	// value's bytes stay valid while those nested in it are written, and
	// the buffers are reused from one value to the next.
	enc map[string]*prefixEncoder
}

// prefixEncoder encodes into buf with an indentation prefix.
type prefixEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// value writes v as WriteJSON does, its lines after the first indented by
// prefix (the depth it has in the enclosing document).
func (s *jsonStream) value(v any, prefix string) error {
	b, err := s.marshal(v, prefix)
	if err != nil {
		return err
	}
	_, err = s.w.Write(b)
	return err
}

// marshal returns v as value writes it, in a buffer reused by the next
// call with the same prefix.
func (s *jsonStream) marshal(v any, prefix string) ([]byte, error) {
	e := s.enc[prefix]
	if e == nil {
		e = &prefixEncoder{}
		e.enc = json.NewEncoder(&e.buf)
		e.enc.SetIndent(prefix, "  ")
		s.enc[prefix] = e
	}
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		return nil, err
	}
	b := e.buf.Bytes()
	return b[:len(b)-1], nil // without Encode's newline
}

// spliced writes v as value does, with the array of its member key, which
// must marshal as empty ("key": []), replaced by n elements that elem
// writes at the prefix it is given, as json.Encoder lays out an array: one
// element a line, separated by commas.
func (s *jsonStream) spliced(v any, prefix, key string, n int, elem func(i int, prefix string) error) error {
	b, err := s.marshal(v, prefix)
	if err != nil {
		return err
	}
	// A member is the only thing on its line: a string value cannot hold
	// a raw newline, so the mark is found nowhere else.
	mark := []byte("\n" + prefix + "  \"" + key + "\": []")
	at := bytes.Index(b, mark)
	if at < 0 {
		return fmt.Errorf("compare: no empty %q member in the JSON of %T", key, v)
	}
	end := at + len(mark) - 1 // the ']'
	s.w.Write(b[:end])
	inner := prefix + "    "
	for i := range n {
		if i > 0 {
			s.w.WriteByte(',')
		}
		s.w.WriteString("\n")
		s.w.WriteString(inner)
		if err := elem(i, inner); err != nil {
			return err
		}
	}
	if n > 0 {
		s.w.WriteString("\n" + prefix + "  ")
	}
	_, err = s.w.Write(b[end:])
	return err
}
