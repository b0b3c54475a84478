package fts

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// like is the RouteLike plan of groups, anchored at its first term.
func like(groups ...LikeGroup) Plan {
	return Plan{Route: RouteLike, Groups: groups, Anchor: groups[0].All[0].Text}
}

// all is a group of terms without LIKE metacharacters, whose patterns are
// the terms between '%'s: a term needing an escape must be spelled out.
func all(terms ...string) LikeGroup {
	g := LikeGroup{}
	for _, t := range terms {
		g.All = append(g.All, plain(t))
	}
	return g
}

// plain is a term without LIKE metacharacters.
func plain(t string) LikeTerm { return LikeTerm{Text: t, Pattern: "%" + t + "%"} }

// TestParse pins the plan for the routing cases of reference-tests A.4 and
// §C and for the inputs whose sanitised form SQLite rejects.
func TestParse(t *testing.T) {
	t.Parallel()
	db := openFTS(t)
	u := func(m string) Plan { return Plan{Route: RouteUnicode61, Match: m} }
	g := func(m string) Plan { return Plan{Route: RouteTrigram, Match: m} }
	for _, c := range []struct {
		name string
		in   string
		want Plan
	}{
		// Nothing to search.
		{"Empty", "", Plan{}},
		{"Blank", " \t\u3000 ", Plan{}},
		{"StarsOnly", "***", Plan{}},
		{"AndOnly", "AND", Plan{}},
		{"EmptyPhrase", `"" `, Plan{}},
		{"LoneQuote", `"`, Plan{}},
		{"PunctuationOnly", "...", Plan{}},
		{"EmojiOnly", "🙂", Plan{}},
		{"InvalidUTF8", "\xff\xfe", Plan{}},

		// CJK routing (A.4, §C).
		{"ChineseFourChars", "记忆断裂", g(`"记忆断裂"`)},
		{"ChineseBigram", "通信", like(all("通信"))},
		{"KoreanShort", "안녕", like(all("안녕"))},
		{"Japanese", "こんにちは", g(`"こんにちは"`)},
		{"JapaneseShort", "世界", like(all("世界"))},
		{"MixedTwoCJK", "Agent通信", like(all("Agent通信"))},
		{"QuotedMixedTwoCJK", `"Agent通信"`, like(all("Agent通信"))},
		{"LiteralPercent", "100%完成", like(LikeGroup{All: []LikeTerm{{Text: "100%完成", Pattern: `%100\%完成%`}}})},
		{"LiteralUnderscoreAndBackslash", `通_信 OR 通\信`, like(
			LikeGroup{All: []LikeTerm{{Text: "通_信", Pattern: `%通\_信%`}}},
			LikeGroup{All: []LikeTerm{{Text: `通\信`, Pattern: `%通\\信%`}}})},
		{"TrigramOr", "记忆系统 OR 断裂连接", g(`"记忆系统" OR "断裂连接"`)},
		{"ShortTokensOred", "广西 OR 桂林 OR 漓江 OR 旅游", like(all("广西"), all("桂林"), all("漓江"), all("旅游"))},
		{"ShortTokensOredTwo", "广西 OR 旅游", like(all("广西"), all("旅游"))},
		{"HalfWidthKatakana", "ｶﾀｶﾅ", u("ｶﾀｶﾅ")},
		{"UnderscoredAndCJK", "sp_new and 血管瘤", g(`"sp_new" "and" "血管瘤"`)},
		{"DottedCJK", "日本.語", g(`"日本.語"`)},
		{"TrigramPrefixDropped", "记忆断裂*", g(`"记忆断裂"`)},
		{"TrigramQuotedPhrase", `"记忆 断裂"`, g(`"记忆 断裂"`)},
		{"TrigramDoubledOperator", "记忆断裂 AND OR 断裂连接", g(`"记忆断裂" OR "断裂连接"`)},
		{"LikeNot", "通信 AND NOT 记忆", like(LikeGroup{All: []LikeTerm{plain("通信")}, None: []LikeTerm{plain("记忆")}})},
		{"LikeOperatorsFolded", "NOT 通信 OR 广西 OR NOT 桂林", like(all("通信"), LikeGroup{All: []LikeTerm{plain("广西")}, None: []LikeTerm{plain("桂林")}})},
		{"LikeAnchorIsTheFirstTerm", "tokyo OR 通信 NOT b", like(all("tokyo"), LikeGroup{All: []LikeTerm{plain("通信")}, None: []LikeTerm{plain("b")}})},
		{"LikeMixed", "东京 tokyo OR 大阪", like(all("东京", "tokyo"), all("大阪"))},
		{"LikeOperatorsOnlyCJKSpace", "通信 OR", like(all("通信"))},

		// Sanitize's output is invalid FTS5: repaired word by word.
		{"DoubledOperator", "a AND OR b", u("a OR b")},
		{"AndNot", "a AND NOT b", u("a NOT b")},
		{"LoneOr", "OR OR", u(`"OR"`)},
		{"LoneAndTwice", "AND AND", u(`"AND"`)},
		{"NotNot", "NOT NOT x", u("x")},
		{"Colon", "foo:bar", u("foo bar")}, // ":" blanked since v21
		{"Apostrophe", "it's", u(`"it's"`)},
		{"TodoColon", "TODO: fix", u("TODO  fix")},
		{"DotFile", ".env", u(`".env"`)},
		{"Path", "gateway/run.py", u(`"gateway/run.py"`)},
		{"Comma", "a,b", u(`"a,b"`)},
		{"ShortFlag", "rm -rf", u(`rm "-rf"`)},
		{"LongFlag", "--force", u(`"--force"`)},
		{"Email", "user@example.com", u(`"user@example.com"`)},
		{"URL", "https://example.com/a?b=c", u(`https "//example.com/a?b=c"`)},
		{"SpacedHyphen", "x - y", u("x y")},
		{"Near", "NEAR(", u("NEAR")},
		{"NearGroup", "NEAR(a b, 5)", u(`NEAR a "b," 5`)},
		{"OneBadWordAmongGood", "C++ it's deploy*", u(`C "it's" deploy*`)},
		{"QuestionMark", "what's new?", u(`"what's" "new?"`)},
		{"VerticalTab", "a\vb", u("a b")},
		{"Nul", "a\x00b", u("a b")},
		{"ControlChar", "bell\x07", u("\"bell\x07\"")},
		{"UnknownColumn", "key: value", u("key  value")},

		// Sanitize's output is valid: passed on as it is.
		// Since v21 Sanitize blanks ':', so FTS5's column filter is gone.
		{"ColumnFilter", "content:docker", u("content docker")},
		{"Prefix", "deploy*", u("deploy*")},
		{"LowerCaseOperatorIsAWord", "cats or dogs", u("cats or dogs")},
		{"QuotedOperatorIsAWord", `rock AND "AND" roll`, u(`rock AND "AND" roll`)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := Parse(c.in)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", c.in, diff)
			}
			checkPlan(t, db, c.in, got)
		})
	}
}

// TestParseNeverTooDeep: FTS5 rejects expressions nested deeper than 256,
// which only a long chain of NOTs builds; Parse then drops the operators.
func TestParseNeverTooDeep(t *testing.T) {
	t.Parallel()
	db := openFTS(t)
	for _, in := range []string{
		strings.Repeat("a NOT ", 256) + "a",
		strings.Repeat("a NOT ", 300) + "a",
		strings.Repeat("a b NOT ", 256) + "a",
		strings.Repeat("a: NOT ", 300) + "a",
		strings.Repeat("记忆断裂 NOT ", 300) + "记忆断裂",
	} {
		checkPlan(t, db, in, Parse(in))
	}
	if got, want := Parse(strings.Repeat("a NOT ", 256)+"a").Match, strings.Repeat("a NOT ", 256)+"a"; got != want {
		t.Errorf("256 NOTs are allowed: got %.40q…", got)
	}
	if got, want := Parse(strings.Repeat("a NOT ", 257)+"a").Match, strings.TrimSpace(strings.Repeat("a ", 258)); got != want {
		t.Errorf("257 NOTs: got %.40q…, want the terms ANDed", got)
	}
}

// TestParseFindsReferenceMessages runs the plans of the reference tests'
// search scenarios (A.3, A.4, §C) against their messages, the way the
// store does: MATCH on the FTS5 tables, the LIKE groups for the LIKE route.
func TestParseFindsReferenceMessages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		messages []string
		query    string
		want     []string
	}{
		{"Docker", []string{"How do I deploy with Docker?", "Use docker compose up."}, "docker",
			[]string{"How do I deploy with Docker?", "Use docker compose up."}},
		{"Hyphenated", []string{"Run the chat-send command"}, "chat-send", []string{"Run the chat-send command"}},
		{"Dotted", []string{"Working on P2.2 session_search edge cases"}, "P2.2",
			[]string{"Working on P2.2 session_search edge cases"}},
		{"ManyDots", []string{"See simulate.p2.test.ts for details"}, "simulate.p2.test.ts",
			[]string{"See simulate.p2.test.ts for details"}},
		{"Phrase", []string{"docker networking is complex", "networking docker tips"}, `"docker networking"`,
			[]string{"docker networking is complex"}},
		{"CPlusPlus", []string{"Learning C++ templates today"}, "C++", []string{"Learning C++ templates today"}},
		{"ChineseTrigram", []string{"昨天和其他Agent的聊天记录，记忆断裂问题复现了", "unrelated English content"}, "记忆断裂",
			[]string{"昨天和其他Agent的聊天记录，记忆断裂问题复现了"}},
		{"ChineseBigram", []string{"今天讨论A2A通信协议的实现"}, "通信", []string{"今天讨论A2A通信协议的实现"}},
		{"Korean", []string{"안녕하세요 반갑습니다"}, "안녕", []string{"안녕하세요 반갑습니다"}},
		{"Japanese", []string{"こんにちは世界"}, "こんにちは", []string{"こんにちは世界"}},
		{"JapaneseShort", []string{"こんにちは世界"}, "世界", []string{"こんにちは世界"}},
		{"NoMatch", []string{"unrelated English content"}, "记忆断裂", nil},
		{"Mixed", []string{"讨论Agent通信协议"}, "Agent通信", []string{"讨论Agent通信协议"}},
		{"Bigram", []string{"昨晚讨论了记忆系统", "昨晚的会议纪要已发送"}, "昨晚", []string{"昨晚讨论了记忆系统", "昨晚的会议纪要已发送"}},
		{"LikeWildcard", []string{"达成100%完成率", "达成100完成率是目标"}, "100%完成", []string{"达成100%完成率"}},
		{"TrigramOr", []string{"记忆系统很好用", "断裂连接需要修复"}, "记忆系统 OR 断裂连接", []string{"记忆系统很好用", "断裂连接需要修复"}},
		{"ShortTokensOred", []string{"广西是个好地方，去过桂林", "漓江风景很美，值得旅游", "unrelated English content"},
			"广西 OR 桂林 OR 漓江 OR 旅游", []string{"广西是个好地方，去过桂林", "漓江风景很美，值得旅游"}},
		{"ShortTokensOredTwo", []string{"广西旅游攻略telegram"}, "广西 OR 旅游", []string{"广西旅游攻略telegram"}},
		{"Path", []string{"edit gateway/run.py now", "run the gateway"}, "gateway/run.py", []string{"edit gateway/run.py now"}},
		{"Email", []string{"mail user@example.com", "user example"}, "user@example.com", []string{"mail user@example.com"}},
		{"DoubledOperator", []string{"a only", "b only", "neither"}, "a AND OR b", []string{"a only", "b only"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(c.want, search(t, c.messages, c.query)); diff != "" {
				t.Errorf("%q: Parse gives %+v (-want +got):\n%s", c.query, Parse(c.query), diff)
			}
		})
	}
}

// search returns the messages Parse(q)'s plan finds, in order.
func search(t *testing.T, messages []string, q string) []string {
	t.Helper()
	db := openFTS(t)
	for _, table := range []string{"u", "g"} {
		if _, err := db.db.Exec("DELETE FROM " + table); err != nil {
			t.Fatal(err)
		}
		for _, m := range messages {
			if _, err := db.db.Exec("INSERT INTO "+table+"(content) VALUES (?)", m); err != nil {
				t.Fatal(err)
			}
		}
	}
	p := Parse(q)
	switch p.Route {
	case RouteUnicode61, RouteTrigram:
		found, err := db.match(map[Route]string{RouteUnicode61: "u", RouteTrigram: "g"}[p.Route], p.Match)
		if err != nil {
			t.Fatal(err)
		}
		return found
	case RouteLike:
		var found []string
		for _, m := range messages {
			if likeFinds(t, db, m, p.Groups) {
				found = append(found, m)
			}
		}
		return found
	}
	return nil
}

func TestEscapeLike(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"100%完成": `100\%完成`, "sp_new": `sp\_new`, `a\b`: `a\\b`, `\%_`: `\\\%\_`, "plain": "plain", "": "",
	} {
		if got := EscapeLike(in); got != want {
			t.Errorf("EscapeLike(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRouteString(t *testing.T) {
	t.Parallel()
	got := []string{RouteNone.String(), RouteUnicode61.String(), RouteTrigram.String(), RouteLike.String(), Route(9).String()}
	if diff := cmp.Diff([]string{"none", "unicode61", "trigram", "like", "Route(9)"}, got); diff != "" {
		t.Error(diff)
	}
}
