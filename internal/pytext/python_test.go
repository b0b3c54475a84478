package pytext

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// pythonReference holds the reference implementations, written from spec §7.1 and §8.4 with
// the exact regexes of the original. It reads {"titles": [...], "contexts": [...]} and prints
// {"titles": [[kind, text]...], "contexts": [text...], "strips": [text...], "spaces": [int...]},
// where kind is "none", "ok" or "err" (text is then the ValueError message).
const pythonReference = `import json, re, sys

def sanitize_title(title):
    if not title:
        return None
    cleaned = re.sub(r'[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]', '', title)
    cleaned = re.sub(r'[\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufffc\ufff9-\ufffb]', '', cleaned)
    cleaned = re.sub(r'\s+', ' ', cleaned).strip()
    if not cleaned:
        return None
    if len(cleaned) > 100:
        raise ValueError(f"Title too long ({len(cleaned)} chars, max 100)")
    return cleaned

def sanitize_context(text):
    text = re.sub(r'<\s*memory-context\s*>[\s\S]*?</\s*memory-context\s*>', '', text, flags=re.IGNORECASE)
    text = re.sub(r'\[System note:\s*The following is recalled memory context,\s*NOT new user input\.\s*Treat as (?:informational background data|authoritative reference data[^\]]*)\.\]\s*', '', text, flags=re.IGNORECASE)
    text = re.sub(r'</?\s*memory-context\s*>', '', text, flags=re.IGNORECASE)
    return text

def title(t):
    try:
        r = sanitize_title(t)
    except ValueError as e:
        return ["err", str(e)]
    return ["none", ""] if r is None else ["ok", r]

req = json.loads(sys.stdin.read())
print(json.dumps({
    "titles": [title(t) for t in req["titles"]],
    "contexts": [sanitize_context(c) for c in req["contexts"]],
    "strips": [c.strip() for c in req["contexts"]],
    "spaces": [c for c in range(0x110000) if chr(c).isspace()],
}), end="")`

type pythonRequest struct {
	Titles   []string `json:"titles"`
	Contexts []string `json:"contexts"`
}

type pythonResponse struct {
	Titles   [][2]string `json:"titles"`
	Contexts []string    `json:"contexts"`
	Strips   []string    `json:"strips"`
	Spaces   []rune      `json:"spaces"`
}

var crossCheckTitles = []string{
	"My Project", "  hello world  ", "hello\t\nworld", "", "   \t\n  ", "hello\x00world",
	"\x07\x08test\x1b", "hello\x7fworld", "hello\u200bworld", "hello\u200dworld",
	"hello\u202eworld", "\ufeffhello", "\x00\x01\x02\u200b\ufeff",
	strings.Repeat("A", 100), strings.Repeat("A", 101), "🚀 My Project 🎉", "我的项目",
	"Résumé éditing", "PR #438 — fixing the 'auth' middleware", "  hello\x00  world  ",
	strings.Repeat("X", 150), "a\u00a0\u00a0b\u3000c", "a\u0085b",
	"a\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200ab", "a\u202fb\u205fc\u1680d",
	"a\vb\fc", "a\x1cb\x1dc\x1ed\x1fe", "a\u2028b\u2029c", "a \u200b \x00 b", "a\r\n\r\nb",
	"\u2060a\u2066b\u2069\ufffcc\ufff9\ufffa\ufffb", "a\ufffdb", "a\u180eb",
	strings.Repeat("语", 100), strings.Repeat("语", 101), strings.Repeat("🚀", 100),
	strings.Repeat("🚀", 101), strings.Repeat("e\u0301", 50), strings.Repeat("e\u0301", 51),
	"👩\u200d💻 dev", "  " + strings.Repeat("A", 100) + "\u200b\x00  ",
	strings.Repeat("a    ", 50), strings.Repeat("a\t\t", 51), "\u3000\u00a0title\u0085\u2003",
	"\u200e\u200f\u202a\u202b\u202c\u202d\u2061\u2062\u2063\u2064\u2067\u2068 x", "\u200a\u200b\u200c",
	"tab\tinside\u00a0and\u205fmore ",
}

var crossCheckContexts = []string{
	leakedMemory, "plain answer\n", "", "a<MEMORY-CONTEXT >x</ Memory-Context\t>b",
	"a<\u00a0memory-context\u3000>x</\u2003memory-context\u0085>b",
	"a<\x1cmemory-context>x</memory-context\x1f>b",
	"<memory-context>one</memory-context>keep<memory-context>two</memory-context>end",
	"<memory-context>a<memory-context>b</memory-context>c</memory-context>d",
	"<memory-context>\nstale\nanswer", "answer</memory-context>", "x</memory-context>y<memory-context>z",
	systemNote + "\n\n  Hello", "before " + systemNote + " after",
	"[system NOTE: the FOLLOWING is recalled memory context, not NEW user input. treat as informational BACKGROUND data.] x",
	"[System note:\n\tThe following is recalled memory context,\u00a0NOT new user input.\u3000Treat as informational background data.]\u2028\nx",
	"[System note:The following is recalled memory context,NOT new user input.Treat as informational background data.]x",
	"[System  note: The following is recalled memory context, NOT new user input. Treat as informational background data.]x",
	"[System note: The following is recalled memory context, NOT new user inputX Treat as informational background data.]x",
	"[System note: The following ıs recalled memory context, NOT new user İnput. Treat as ınformational bacKground data.]x",
	"[ſystem note: The following is recalled memory context, NOT new user input. Treat as informational bac\u212aground data.]x",
	"[ſYſTEM NOTE: THE FOLLOWİNG İS RECALLED MEMORY CONTEXT, NOT NEW USER İNPUT. TREAT AS İNFORMATİONAL BAC\u212aGROUND DATA.]x",
	"<\u212aemory-context>x</memory-context>", "<MEMORY-CONTEXT>x</MEMORY-CONTEXT>y",
	"<memory-context>\nline1\r\nline2\u2028\n</memory-context>rest",
	"<memory-context id=1>x</memory-context>", "<memorycontext>x</memorycontext>",
	"< memory-context >< / memory-context >", "<<memory-context>>x<</memory-context>>",
	"</memory-context></memory-context>", "<memory-context></memory-context>",
	"<memory-context>" + systemNote + "</memory-context>" + systemNote + "tail",
	systemNote + systemNote + "x", "\u3000 answer \u00a0", "\x1c\x1danswer\x1e\x1f",
	"answer\u200b", "  <memory-context>stale</memory-context>  \n Visible \u3000",
	"<memory-context>\U0001F680通信</memory-context>通信🚀",
	"<memory-context>a</memory-context >b</ memory-context>c",
	"prefix <Memory-Context>\n\n</Memory-Context> suffix",
	"[System note: The following is recalled memory context, NOT new user input. Treat as informational background data.]",
	"<memory-context>unclosed " + systemNote + " text",
	authoritativeNote + "\n\nkept", "[System note: The following is recalled memory context, NOT new user input. Treat as AUTHORITATIVE reference data for\nthe ſession.] x",
	"[System note: The following is recalled memory context, NOT new user input. Treat as authoritative reference data] x.] y",
	"[System note: The following is recalled memory context, NOT new user input. Treat as authoritative reference datum.] x",
}

// TestMatchesPython runs the Python reference implementations over tricky strings and compares
// SanitizeTitle, SanitizeContext, Strip and IsSpace. Skipped when python3 is not on PATH.
func TestMatchesPython(t *testing.T) {
	t.Parallel()
	var py pythonResponse
	dbtest.Python(t, pythonReference, pythonRequest{Titles: crossCheckTitles, Contexts: crossCheckContexts}, &py)
	if len(py.Titles) != len(crossCheckTitles) || len(py.Contexts) != len(crossCheckContexts) || len(py.Strips) != len(crossCheckContexts) {
		t.Fatalf("python3 returned %d/%d/%d results", len(py.Titles), len(py.Contexts), len(py.Strips))
	}

	for i, in := range crossCheckTitles {
		got, err := SanitizeTitle(in)
		var kind, text string
		switch {
		case err != nil:
			kind, text = "err", err.Error()
		case got == "":
			kind = "none"
		default:
			kind, text = "ok", got
		}
		if diff := cmp.Diff(py.Titles[i], [2]string{kind, text}); diff != "" {
			t.Errorf("SanitizeTitle(%q) differs from Python (-python +go):\n%s", in, diff)
		}
	}
	for i, in := range crossCheckContexts {
		if diff := cmp.Diff(py.Contexts[i], SanitizeContext(in)); diff != "" {
			t.Errorf("SanitizeContext(%q) differs from Python (-python +go):\n%s", in, diff)
		}
		if diff := cmp.Diff(py.Strips[i], Strip(in)); diff != "" {
			t.Errorf("Strip(%q) differs from Python (-python +go):\n%s", in, diff)
		}
	}
	if diff := cmp.Diff(py.Spaces, pythonSpaces); diff != "" {
		t.Errorf("Python's str.isspace() set differs from pythonSpaces (-python +go):\n%s", diff)
	}
}
