package transfer

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readAll reads every record of r: "line:id" for each, and the error that
// stopped the reading (nil at io.EOF).
func readAll(r io.Reader) ([]string, error) {
	rd := NewReader(r)
	got := []string{}
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return got, nil
		}
		if err != nil {
			return got, err
		}
		got = append(got, fmt.Sprintf("%d:%s", rec.Line, rec.Session.ID))
	}
}

// rec is a valid record of id, on one line.
func rec(id string) string {
	return `{"id": "` + id + `", "source": "cli", "started_at": 1, "messages": []}`
}

// TestReader reads JSON Lines and JSON arrays: the records with the line
// each starts on, and, where the input is broken, the *RecordError that
// stops the reading, with its line and exact text.
func TestReader(t *testing.T) {
	t.Parallel()
	indented := "[\n  {\n    \"id\": \"a\",\n    \"source\": \"cli\",\n    \"started_at\": 1\n  },\n  " + rec("b") + "\n]\n"
	for _, tc := range []struct {
		name, in string
		want     []string
		err      string // the error's text, "" for none
		line     int    // the *RecordError's line
	}{
		{"Empty", "", nil, "", 0},
		{"OnlyBlank", "\n \t\r\n\n", nil, "", 0},
		{"JSONLines", rec("a") + "\n" + rec("b") + "\n", []string{"1:a", "2:b"}, "", 0},
		{"NoFinalNewline", rec("a") + "\n" + rec("b"), []string{"1:a", "2:b"}, "", 0},
		{"BlankLinesCount", "\n\n" + rec("a") + "\n\n \t\n" + rec("b") + "\n\n", []string{"3:a", "6:b"}, "", 0},
		{"CRLF", rec("a") + "\r\n\r\n" + rec("b") + "\r\n", []string{"1:a", "3:b"}, "", 0},
		{"WhiteSpaceAround", "  \t" + rec("a") + " \t\r\n", []string{"1:a"}, "", 0},
		{"ByteOrderMark", "\uFEFF" + rec("a") + "\n", []string{"1:a"}, "", 0},
		{"ByteOrderMarkThenBlankLines", "\uFEFF\n\n" + rec("a") + "\n", []string{"3:a"}, "", 0},
		{"TwoByteOrderMarks", "\uFEFF\uFEFF" + rec("a"), []string{"1:a"}, "", 0},
		{"HalfAByteOrderMark", "\xEF\xBB" + rec("a"), nil, `not a session object: invalid character 'ï' looking for beginning of value`, 1},
		{"AStrayByte", "\xEF" + rec("a"), nil, `not a session object: invalid character 'ï' looking for beginning of value`, 1},
		{"LineNotJSON", rec("a") + "\n\n{\"id\": broken\n" + rec("c"), []string{"1:a"}, `not a session object: invalid character 'b' looking for beginning of value`, 3},
		{"TwoObjectsOnALine", rec("a") + " {}\n", nil, `not a session object: invalid character '{' after top-level value`, 1},
		{"LongLine", rec("a") + "\n" + strings.Replace(rec("b"), `"messages": []`, `"title": "`+strings.Repeat("t", 200_000)+`"`, 1) + "\n" + rec("c") + "\n",
			[]string{"1:a", "2:b", "3:c"}, "", 0},

		{"Array", "[" + rec("a") + ", " + rec("b") + "]", []string{"1:a", "1:b"}, "", 0},
		{"ArrayIndented", indented, []string{"2:a", "7:b"}, "", 0},
		{"ArrayAfterBOMAndBlankLines", "\uFEFF\n\n [\n" + rec("a") + ",\r\n" + rec("b") + "]\n\n", []string{"4:a", "5:b"}, "", 0},
		{"ArrayEmpty", "[\n]\n", nil, "", 0},
		{"ArrayCommaOnItsOwnLine", "[" + rec("a") + "\n\n,\n" + rec("b") + "]", []string{"1:a", "4:b"}, "", 0},
		{"ArrayElementInvalid", "[\n" + rec("a") + ",\n\n" + `{"id": "b", "source": "cli"}` + "\n]", []string{"2:a"}, `"started_at" is missing or zero`, 4},
		{"ArrayElementNotAnObject", "[\n" + rec("a") + ",\n  [1]\n]", []string{"2:a"}, `not a session object: json: cannot unmarshal array into Go value of type transfer.exportLine`, 3},
		// A syntax error names the line its element starts on, not the line
		// of the comma before it.
		{"ArraySyntaxError", "[\n" + rec("a") + ",\n\n  {\"id\": \"b\",,\n]", []string{"2:a"}, `not a JSON array of session objects: invalid character ',' looking for beginning of object key string`, 4},
		{"ArrayFirstElementSyntaxError", "[\n  {\"id\": \"a\",, \"source\": \"cli\"}\n]\n", nil, `not a JSON array of session objects: invalid character ',' looking for beginning of object key string`, 2},
		{"ArrayTrailingComma", "[" + rec("a") + ",]", []string{"1:a"}, `not a JSON array of session objects: invalid character ']' looking for beginning of value`, 1},
		{"ArrayMissingComma", "[" + rec("a") + " " + rec("b") + "]", []string{"1:a"}, `not a JSON array of session objects: expected comma after array element`, 1},
		{"ArrayNotClosed", "[\n" + rec("a") + "\n", []string{"2:a"}, `not a JSON array of session objects: unexpected EOF`, 3},
		{"ArrayEndsAfterComma", "[\n" + rec("a") + ",\n\n", []string{"2:a"}, `not a JSON array of session objects: unexpected EOF`, 4},
		{"DataAfterArray", "[\n" + rec("a") + "\n]\n\n{}\n", []string{"2:a"}, `data after the JSON array`, 5},
		{"SecondArray", "[]\n[]", nil, `data after the JSON array`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := readAll(strings.NewReader(tc.in))
			if diff := cmp.Diff(tc.want, got, cmpEmpty); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if tc.err == "" {
				if err != nil {
					t.Errorf("error %v, want none", err)
				}
				return
			}
			var re *RecordError
			if !errors.As(err, &re) || re.Line != tc.line || re.Err.Error() != tc.err {
				t.Fatalf("error %#v (%v), want a *RecordError on line %d: %s", err, err, tc.line, tc.err)
			}
			if want := fmt.Sprintf("line %d: %s", tc.line, tc.err); re.Error() != want {
				t.Errorf("Error() = %q, want %q", re.Error(), want)
			}
		})
	}
}

// cmpEmpty compares an empty list equal to nil.
var cmpEmpty = cmp.FilterValues(func(a, b []string) bool { return len(a) == 0 && len(b) == 0 }, cmp.Comparer(func(a, b []string) bool { return true }))

// TestReaderReadError: the reader's own error comes back as it is, never
// as a *RecordError, in JSON Lines and in an array, after the records read
// before it; reading one byte at a time changes nothing.
func TestReaderReadError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk unplugged")
	for name, text := range map[string]string{
		"JSONLines":      rec("a") + "\n" + rec("b") + "\n",
		"Array":          "[" + rec("a") + ",\n" + rec("b") + ",\n",
		"BeforeAnything": "",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := readAll(io.MultiReader(iotest.OneByteReader(strings.NewReader(text)), iotest.ErrReader(boom)))
			var re *RecordError
			if err != boom || errors.As(err, &re) {
				t.Errorf("error %v, want the reader's own", err)
			}
			want := map[string][]string{"JSONLines": {"1:a", "2:b"}, "Array": {"1:a", "2:b"}}[name]
			if diff := cmp.Diff(want, got, cmpEmpty); diff != "" {
				t.Errorf("records before the error (-want +got):\n%s", diff)
			}
		})
	}
}
