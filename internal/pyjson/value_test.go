package pyjson

import (
	"errors"
	"testing"
)

func TestTruthy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"Null", `null`, false},
		{"False", `false`, false},
		{"True", `true`, true},
		{"Zero", `0`, false},
		{"NegativeZero", `-0`, false},
		{"ZeroFloat", `0.0`, false},
		{"NegativeZeroFloat", `-0.0`, false},
		{"ZeroExponent", `0e10`, false},
		{"ZeroFloatExponent", `-0.000E-3`, false},
		{"Underflow", `1e-400`, false},
		{"SmallestDenormal", `5e-324`, true},
		{"Overflow", `1e400`, true},
		{"One", `1`, true},
		{"NegativeFloat", `-0.5`, true},
		{"EmptyString", `""`, false},
		{"EmptyStringPadded", " \"\" \n", false},
		{"NULString", `"\u0000"`, true},
		{"SpaceString", `" "`, true},
		{"EmptyArray", `[]`, false},
		{"EmptyArraySpaced", `[ ]`, false},
		{"EmptyObject", `{}`, false},
		{"ArrayOfEmpty", `[[]]`, true},
		{"ArrayOfNull", `[null]`, true},
		{"Object", `{"a":null}`, true},
		{"Invalid", `[1,]`, false},
		{"Empty", ``, false},
		{"TrailingGarbage", `[1] x`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Truthy([]byte(tt.in)); got != tt.want {
				t.Errorf("Truthy(%q) = %v; want %v", tt.in, got, tt.want)
			}
		})
	}
}

func TestCountCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"Absent", ``, 0},
		{"AbsentWhitespace", " \n", 0},
		{"Null", `null`, 0},
		{"EmptyArray", `[]`, 0},
		{"OneCall", `[{"id":"c1"}]`, 1},
		{"ThreeCalls", `[{"id":"c1"},{"id":"c2","args":[1,2,3]},{"id":"c3"}]`, 3},
		{"NestedArraysCountTopLevelOnly", `[[1,2,3],[4]]`, 2},
		{"ArrayOfNulls", `[null, null]`, 2},
		{"Object", `{"id":"c1","function":{"name":"x"}}`, 1},
		{"EmptyObject", `{}`, 1},
		{"String", `"call"`, 1},
		{"EmptyString", `""`, 1},
		{"Number", `42`, 1},
		{"Zero", `0`, 1},
		{"False", `false`, 1},
		{"True", `true`, 1},
		{"Invalid", `[{"id":}]`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := CountCalls([]byte(tt.in)); got != tt.want {
				t.Errorf("CountCalls(%q) = %d; want %d", tt.in, got, tt.want)
			}
		})
	}
}

// TestAnalyze: one pass gives exactly what Encode, Truthy and CountCalls
// give separately.
func TestAnalyze(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		raw  string
		want Value
	}{
		{`[{"id":"c1"},{"id":"c2"}]`, Value{Text: `[{"id": "c1"}, {"id": "c2"}]`, Truthy: true, Calls: 2}},
		{`[]`, Value{Text: `[]`, Truthy: false, Calls: 0}},
		{`{}`, Value{Text: `{}`, Truthy: false, Calls: 1}},
		{`{"a":"通"}`, Value{Text: `{"a": "\u901a"}`, Truthy: true, Calls: 1}},
		{`null`, Value{Text: `null`, Truthy: false, Calls: 0}},
		{`0.0`, Value{Text: `0.0`, Truthy: false, Calls: 1}},
		{`"x"`, Value{Text: `"x"`, Truthy: true, Calls: 1}},
	} {
		got, err := Analyze([]byte(tt.raw))
		if err != nil || got != tt.want {
			t.Errorf("Analyze(%s) = %+v, %v; want %+v", tt.raw, got, err, tt.want)
		}
		text, _ := Encode([]byte(tt.raw))
		if got.Text != text || got.Truthy != Truthy([]byte(tt.raw)) || got.Calls != CountCalls([]byte(tt.raw)) {
			t.Errorf("Analyze(%s) = %+v disagrees with Encode/Truthy/CountCalls", tt.raw, got)
		}
	}
	if _, err := Analyze([]byte(`[1,]`)); !errors.Is(err, ErrInvalid) {
		t.Errorf("Analyze([1,]) error = %v, want ErrInvalid", err)
	}
}
