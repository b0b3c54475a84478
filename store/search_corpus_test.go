package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/hermesstate/hermesstate/fts"
)

// srchCorpusMessage is one seeded message; key names it for the queries.
type srchCorpusMessage struct {
	key, session, role string
	content            *string // nil: no content
	tool               string
	calls              json.RawMessage
}

// srchCorpusSessions are the corpus's sessions: id, source.
var srchCorpusSessions = [][2]string{
	{"cli-dev", "cli"}, {"tg-ops", "telegram"}, {"dc-team", "discord"}, {"cron-nightly", "cron"},
	{"tool-sub", "tool"}, {"acp-ide", "acp"}, {"zh-chat", "telegram"}, {"ja-chat", "cli"}, {"ko-chat", "cli"},
}

func srchCorpusMessages() []srchCorpusMessage {
	say := func(key, session, role, text string) srchCorpusMessage {
		return srchCorpusMessage{key: key, session: session, role: role, content: new(text)}
	}
	call := func(key, session, text, name, args string) srchCorpusMessage {
		m := srchCorpusMessage{key: key, session: session, role: "assistant", calls: srchToolCalls(name, args)}
		if text != "" {
			m.content = new(text)
		}
		return m
	}
	result := func(key, session, tool, text string) srchCorpusMessage {
		return srchCorpusMessage{key: key, session: session, role: "tool", tool: tool, content: new(text)}
	}
	return []srchCorpusMessage{
		// Paths, files and code.
		say("path", "cli-dev", "user", "Please open src/store/search.go and fix the ranking bug in rankedSearchSQL"),
		call("readcall", "cli-dev", "", "read_file", `{"path": "internal/sqlite/open.go"}`),
		result("readres", "cli-dev", "read_file", "package sqlite\n\nfunc OpenWriter(ctx context.Context, path string, cfg Config) (*sql.DB, error) {"),
		say("flags", "cli-dev", "user", "run the migration with --dry-run first, then with -v for verbose output"),
		say("gitforce", "cli-dev", "assistant", "I'll run git push --force-with-lease origin main instead of a plain push"),
		say("rmrf", "tg-ops", "user", "never run rm -rf / on the build box"),
		say("email", "tg-ops", "user", "send the report to ops-team@example.com and cc jane.doe@corp.example.org"),
		say("url", "cli-dev", "assistant", "The docs are at https://docs.python.org/3/library/sqlite3.html#sqlite3.Connection"),
		say("cpp", "dc-team", "user", "Is C++ or C# better for game engines?"),
		say("node", "cli-dev", "assistant", "Upgrade node.js to v20.11.1 and run npm ci"),
		say("p22", "cli-dev", "user", "Working on P2.2: session_search edge cases"),
		say("spnew", "cli-dev", "assistant", "Rename sp_new to sp_new_v2 in the migration script"),
		say("phrase", "dc-team", "user", `He said "exact phrase matching" is required for the legal search`),
		say("deploy", "tg-ops", "assistant", "Deployment finished; the deployer retried twice"),
		say("podman", "dc-team", "user", "should we use docker or podman for CI runners?"),
		say("python", "dc-team", "user", "Python services talk to the Kotlin gateway"),
		say("java", "dc-team", "assistant", "Java services are legacy and will be retired"),
		say("its", "tg-ops", "user", "it's not a bug, it's a feature"),
		say("todo", "cli-dev", "assistant", "TODO: fix the flaky retry test in tx_test.go"),
		say("semver", "cli-dev", "assistant", "Released hermes-state 1.2.3 with the busy-timeout change"),
		say("issue", "tg-ops", "user", "see issue #438 about WAL checkpoints"),
		say("home", "cli-dev", "assistant", "Set $HOME/.config/hermes before running; the default is ~/.hermes/state.db"),
		say("foo", "cli-dev", "user", "call foo() before bar() in the init path"),
		say("map", "cli-dev", "assistant", "use map[string]int for the counters, not []int"),
		say("abc", "tg-ops", "user", "the key is stored under a/b/c in the bucket"),
		say("kv", "cli-dev", "assistant", "set LOG_LEVEL=debug and retries=15 in the env file (one key=value per line)"),
		say("camel", "acp-ide", "user", "rename getUserById to findUserByID in userService.ts"),
		say("snake", "acp-ide", "assistant", "the column is tool_call_count, updated by update_token_counts"),
		say("dotenv", "cli-dev", "user", "copy .env.example to .env and fill in OPENAI_API_KEY"),
		say("gateway", "cli-dev", "assistant", "edit gateway/run.py now and restart the gateway"),
		say("colon", "cli-dev", "user", "set foo:bar in the YAML header"),
		say("comma", "cli-dev", "user", "split the input on a,b pairs"),
		say("k8s", "tg-ops", "assistant", "Kubernetes v1.29.2 upgrade notes are in the wiki"),
		say("rocket", "dc-team", "user", "🚀 launch went fine, 🎉 party at 5pm"),
		say("status", "cron-nightly", "assistant", "Build status: ✅ passed, ❌ lint failed"),
		call("websearch", "cli-dev", "Let me search for that.", "web_search", `{"query": "sqlite fts5 trigram tokenizer"}`),
		result("webres", "cli-dev", "web_search", "FTS5 trigram tokenizer supports substring matching since SQLite 3.34"),
		call("terminal", "tool-sub", "", "terminal", `{"command": "go test -race ./store/..."}`),
		call("writefile", "tool-sub", "", "write_file", `{"path": "docs/README.md", "content": "# Hermes\n"}`),
		call("mailcall", "tool-sub", "", "send_email", `{"to": "alice@example.com", "subject": "Q3 report"}`),
		say("locked", "cli-dev", "assistant", `The error was "database is locked" after 15 attempts`),
		say("chatsend", "cli-dev", "user", "fix the chat-send command"),
		say("dotted", "cli-dev", "assistant", "See simulate.p2.test.ts for details"),
		say("pr", "acp-ide", "user", "review https://github.com/NousResearch/hermes-agent/pull/438 today"),
		say("winpath", "dc-team", "user", `the file is at C:\Users\dev\hermes\state.db on Windows`),
		say("port", "cli-dev", "assistant", "the server is listening on 127.0.0.1:8080"),
		say("caret", "acp-ide", "assistant", `pin "left-pad": "^1.4.0" in package.json`),
		say("commit", "cli-dev", "user", "bisect points at commit 289cc476315b"),
		say("sql", "cli-dev", "assistant", "SELECT * FROM sessions WHERE id = ? ORDER BY started_at"),
		say("regex", "cli-dev", "user", `use \b(\w+)\b to match whole words`),
		say("codeblock", "acp-ide", "assistant", "```go\nfunc main() { fmt.Println(\"hello\") }\n```"),
		say("dont", "tg-ops", "user", "don't restart the worker, it can't recover state"),
		say("cronat", "cron-nightly", "assistant", "run the backup at 03:00 UTC daily"),
		say("cpu", "cron-nightly", "assistant", "CPU at 95% for 10 minutes on worker-3"),
		say("gpp", "dc-team", "user", "compile with g++ -O2 -std=c++20"),
		say("hashtag", "tg-ops", "user", "posted in #hermes-dev by @alice"),
		say("pathvar", "cli-dev", "user", "prepend /usr/local/go/bin to $PATH"),
		say("dotnet", "dc-team", "user", "port the .NET service to Go"),
		say("cyrillic", "tg-ops", "user", "Привет мир, это тест поиска"),
		say("nested", "cli-dev", "assistant", "the response was {\"ok\": true, \"items\": [1, 2, 3]}"),
		say("quoteq", "cli-dev", "user", `what does "OR" mean in an FTS5 query?`),
		say("prefix", "cli-dev", "user", "prefix queries like deploy* match deployment"),

		// CJK.
		say("zh-memory", "zh-chat", "user", "昨天和其他Agent的聊天记录，记忆断裂问题复现了"),
		say("zh-a2a", "zh-chat", "assistant", "今天讨论A2A通信协议的实现"),
		say("zh-guangxi", "zh-chat", "user", "广西是个好地方，去过桂林"),
		say("zh-lijiang", "zh-chat", "user", "漓江风景很美，值得旅游"),
		say("zh-migrate", "zh-chat", "assistant", "数据库迁移脚本已经完成，请检查"),
		say("zh-cache", "zh-chat", "user", "这个函数的性能优化需要重新设计缓存层"),
		say("zh-system", "zh-chat", "user", "昨晚讨论了记忆系统"),
		say("zh-agent", "zh-chat", "user", "讨论Agent通信协议"),
		say("zh-docker", "zh-chat", "assistant", "使用Docker部署服务到Kubernetes集群"),
		say("zh-fts", "zh-chat", "user", "SQLite的FTS5索引不支持中文分词"),
		say("zh-percent", "zh-chat", "user", "达成100%完成率"),
		say("zh-goal", "zh-chat", "user", "达成100完成率是目标"),
		say("zh-underscore", "zh-chat", "assistant", "配置项max_连接数设为100"),
		say("zh-nounderscore", "zh-chat", "assistant", "配置项maxX连接数设为50"),
		say("zh-ok", "zh-chat", "assistant", "好的。下一步是写测试"),
		say("zh-spaced", "zh-chat", "user", "分词测试：记忆 断裂 分开写"),
		call("zh-toolcall", "zh-chat", "我来搜索一下", "web_search", `{"query": "广西旅游"}`),
		result("zh-toolres", "zh-chat", "web_search", "桂林山水甲天下，阳朔是热门目的地"),
		say("ja-hello", "ja-chat", "user", "こんにちは世界、今日はいい天気ですね"),
		say("ja-katakana", "ja-chat", "assistant", "カタカナのテストメッセージです"),
		say("ja-db", "ja-chat", "user", "データベースの移行が完了しました"),
		say("ja-tokyo", "ja-chat", "user", "東京タワーに行きました"),
		say("ja-thanks", "ja-chat", "assistant", "ありがとうございます！SQLiteのインデックスを再構築しました"),
		say("ko-hello", "ko-chat", "user", "안녕하세요 반갑습니다"),
		say("ko-migrate", "ko-chat", "assistant", "데이터베이스 마이그레이션이 완료되었습니다"),
		say("ko-memory", "ko-chat", "user", "기억이 안 나요, API 호출 로그를 보여주세요"),
		say("mixed-emoji", "zh-chat", "user", "部署成功 🎉 deploy done"),
	}
}

// srchCorpusQueries: each query and the message seeded for it.
var srchCorpusQueries = []struct{ query, want string }{
	// Paths.
	{"src/store/search.go", "path"},
	{"search.go", "path"},
	{"rankedSearchSQL", "path"},
	{"internal/sqlite/open.go", "readcall"},
	{"read_file", "readcall"},
	{"read_file", "readres"},
	{"OpenWriter", "readres"},
	{"*sql.DB", "readres"},
	{"context.Context", "readres"},
	{"gateway/run.py", "gateway"},
	{"a/b/c", "abc"},
	{"docs/README.md", "writefile"},
	{"./store/...", "terminal"},
	{"go test -race", "terminal"},
	{`C:\Users\dev\hermes\state.db`, "winpath"},
	{"~/.hermes", "home"},
	{"$HOME", "home"},
	{"/usr/local/go/bin", "pathvar"},
	{"$PATH", "pathvar"},
	{".env", "dotenv"},
	{".env.example", "dotenv"},
	{"OPENAI_API_KEY", "dotenv"},
	{"tx_test.go", "todo"},
	// Flags and shell.
	{"--dry-run", "flags"},
	{"-v", "flags"},
	{"--force-with-lease", "gitforce"},
	{"git push", "gitforce"},
	{"rm -rf", "rmrf"},
	{"-rf", "rmrf"},
	{"npm ci", "node"},
	{"g++ -O2", "gpp"},
	{"-std=c++20", "gpp"},
	// Emails, URLs, handles.
	{"ops-team@example.com", "email"},
	{"jane.doe@corp.example.org", "email"},
	{"alice@example.com", "mailcall"},
	{"send_email", "mailcall"},
	{"https://docs.python.org/3/library/sqlite3.html", "url"},
	{"docs.python.org", "url"},
	{"sqlite3.Connection", "url"},
	{"https://github.com/NousResearch/hermes-agent/pull/438", "pr"},
	{"NousResearch/hermes-agent", "pr"},
	{"hermes-agent", "pr"},
	{"pull/438", "pr"},
	{"@alice", "hashtag"},
	{"#hermes-dev", "hashtag"},
	{"127.0.0.1:8080", "port"},
	{":8080", "port"},
	// Languages and versions.
	{"C++", "cpp"},
	{"C#", "cpp"},
	{"game engines", "cpp"},
	{"node.js", "node"},
	{"v20.11.1", "node"},
	{"P2.2", "p22"},
	{"session_search", "p22"},
	{"sp_new", "spnew"},
	{"sp_new_v2", "spnew"},
	{"1.2.3", "semver"},
	{"hermes-state 1.2.3", "semver"},
	{"busy-timeout", "semver"},
	{"v1.29.2", "k8s"},
	{"Kubernetes v1.29.2", "k8s"},
	{"^1.4.0", "caret"},
	{`"left-pad"`, "caret"},
	{"package.json", "caret"},
	{"289cc476*", "commit"},
	{"289cc476315b", "commit"},
	{".NET", "dotnet"},
	{"3.34", "webres"},
	{"simulate.p2.test.ts", "dotted"},
	{"chat-send", "chatsend"},
	// Phrases, prefixes and operators.
	{`"exact phrase"`, "phrase"},
	{`"exact phrase matching"`, "phrase"},
	{`"exact phrase`, "phrase"},
	{`"database is locked"`, "locked"},
	{"database is locked", "locked"},
	{"deploy*", "deploy"},
	{"deploy* NOT docker", "deploy"},
	{"Deploy*", "deploy"},
	{"retr*", "deploy"},
	{"docker OR podman", "podman"},
	{"kubernetes OR podman", "podman"},
	{"docker AND podman", "podman"},
	{"services NOT java", "python"},
	{"services NOT Kotlin", "java"},
	{"python OR java", "java"},
	{"(python OR java) services", "python"},
	{"sqlite AND fts5", "websearch"},
	{"trigram tokenizer", "webres"},
	{`"trigram tokenizer"`, "websearch"},
	{"web_search", "websearch"},
	{"web_search", "webres"},
	{"OR hello", "codeblock"},
	{"hello AND", "codeblock"},
	{`"OR"`, "quoteq"},
	{"FTS5 query", "quoteq"},
	{"prefix queries", "prefix"},
	{"a AND OR b", "comma"},
	// Apostrophes, colons and punctuation.
	{"it's", "its"},
	{"it's a feature", "its"},
	{"don't", "dont"},
	{"can't recover", "dont"},
	{"TODO: fix", "todo"},
	{"TODO:", "todo"},
	{"foo:bar", "colon"},
	{"a,b", "comma"},
	{"a,b pairs", "comma"},
	{"#438", "issue"},
	{"issue #438", "issue"},
	{"foo()", "foo"},
	{"foo() bar()", "foo"},
	{"map[string]int", "map"},
	{"[]int", "map"},
	{"key=value", "kv"},
	{"LOG_LEVEL=debug", "kv"},
	{"retries=15", "kv"},
	{"03:00", "cronat"},
	{"03:00 UTC", "cronat"},
	{"95%", "cpu"},
	{"worker-3", "cpu"},
	{`\b(\w+)\b`, "regex"},
	{"SELECT * FROM sessions", "sql"},
	{"WHERE id = ?", "sql"},
	{"started_at", "sql"},
	{`fmt.Println("hello")`, "codeblock"},
	{"```go", "codeblock"},
	{`{"ok": true}`, "nested"},
	{"[1, 2, 3]", "nested"},
	// Identifiers.
	{"getUserById", "camel"},
	{"findUserByID", "camel"},
	{"getUser*", "camel"},
	{"userService.ts", "camel"},
	{"tool_call_count", "snake"},
	{"update_token_counts", "snake"},
	{"update_token_counts tool_call_count", "snake"},
	// Emoji and other scripts.
	{"🚀 launch", "rocket"},
	{"launch 🎉", "rocket"},
	{"✅ passed", "status"},
	{"❌ lint", "status"},
	{"部署成功 🎉", "mixed-emoji"},
	{"Привет", "cyrillic"},
	{"привет мир", "cyrillic"},
	// CJK: 1–6 characters, trigram and LIKE.
	{"桂", "zh-guangxi"},
	{"漓", "zh-lijiang"},
	{"世", "ja-hello"},
	{"기", "ko-memory"},
	{"通信", "zh-a2a"},
	{"昨天", "zh-memory"},
	{"记忆", "zh-memory"},
	{"桂林", "zh-guangxi"},
	{"桂林", "zh-toolres"},
	{"旅游", "zh-lijiang"},
	{"断裂", "zh-spaced"},
	{"记忆断", "zh-memory"},
	{"聊天记", "zh-memory"},
	{"数据库", "zh-migrate"},
	{"缓存层", "zh-cache"},
	{"记忆断裂", "zh-memory"},
	{"通信协议", "zh-a2a"},
	{"迁移脚本", "zh-migrate"},
	{"性能优化", "zh-cache"},
	{"记忆断裂问题", "zh-memory"},
	{"重新设计缓存", "zh-cache"},
	{"我来搜索", "zh-toolcall"},
	{"阳朔", "zh-toolres"},
	{"甲天下", "zh-toolres"},
	{"好的", "zh-ok"},
	{"好的。", "zh-ok"},
	{"こんにちは", "ja-hello"},
	{"天気", "ja-hello"},
	{"カタカナ", "ja-katakana"},
	{"データベース", "ja-db"},
	{"移行", "ja-db"},
	{"東京", "ja-tokyo"},
	{"タワー", "ja-tokyo"},
	{"ありがとう", "ja-thanks"},
	{"インデックス", "ja-thanks"},
	{"안녕", "ko-hello"},
	{"안녕하세요", "ko-hello"},
	{"안녕하세요 반갑습니다", "ko-hello"},
	{"마이그레이션", "ko-migrate"},
	{"완료", "ko-migrate"},
	{"기억", "ko-memory"},
	// Mixed scripts, CJK operators and escapes.
	{"Agent通信", "zh-agent"},
	{"Agent通信协议", "zh-agent"},
	{"A2A通信", "zh-a2a"},
	{"使用Docker部署", "zh-docker"},
	{"Docker部署", "zh-docker"},
	{"FTS5索引", "zh-fts"},
	{"SQLite的FTS5", "zh-fts"},
	{"SQLiteのインデックス", "ja-thanks"},
	{"API 호출", "ko-memory"},
	{"100%完成", "zh-percent"},
	{"max_连接", "zh-underscore"},
	{"广西 OR 漓江", "zh-lijiang"},
	{"桂林 OR 旅游", "zh-guangxi"},
	{"记忆断裂 OR 通信协议", "zh-a2a"},
	{"记忆 NOT 系统", "zh-memory"},
	{"达成 NOT 目标", "zh-percent"},
	{`"记忆 断裂"`, "zh-spaced"},
	{"记忆 断裂", "zh-spaced"},
}

// srchTerm is one term of a query as a reader of the query language
// understands it, independently of the fts package.
type srchTerm struct {
	parts  []string // its runs of letters and digits, lower case
	neg    bool     // after NOT
	prefix bool     // ends in '*'
}

// srchAlnumParts returns the runs of letters and digits of s.
func srchAlnumParts(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
}

// srchGroups reads q as alternatives (split at OR) of terms: words
// separated by whitespace, balanced "phrases" as one term, AND ignored,
// NOT negating the next term.
func srchGroups(q string) [][]srchTerm {
	var words []string
	var cur strings.Builder
	rs := []rune(q)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '"' && slices.Contains(rs[i+1:], '"'):
			j := i + 1 + slices.Index(rs[i+1:], '"')
			cur.WriteString(string(rs[i : j+1]))
			i = j
		case unicode.IsSpace(r):
			if cur.Len() > 0 {
				words = append(words, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		words = append(words, cur.String())
	}
	groups := [][]srchTerm{nil}
	neg := false
	for _, w := range words {
		switch strings.TrimLeft(w, "(") {
		case "OR":
			groups = append(groups, nil)
			neg = false
			continue
		case "AND":
			continue
		case "NOT":
			neg = true
			continue
		}
		parts := srchAlnumParts(strings.ToLower(w))
		if len(parts) == 0 {
			continue
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], srchTerm{parts: parts, neg: neg, prefix: strings.HasSuffix(w, "*")})
		neg = false
	}
	return groups
}

// srchSatisfies reports whether text (a message's indexed text) holds a
// query's terms: for some alternative, every positive term's letters and
// digits appear in it (case-insensitively) and no negative term does (as a
// whole token, or a substring for CJK).
func srchSatisfies(groups [][]srchTerm, text string) bool {
	text = strings.ToLower(text)
	tokens := srchAlnumParts(text)
	positives := false
	for _, g := range groups {
		ok, pos := true, false
		for _, term := range g {
			if !term.neg {
				pos = true
				for _, p := range term.parts {
					ok = ok && strings.Contains(text, p)
				}
				continue
			}
			whole := strings.Join(term.parts, " ")
			if fts.ContainsCJK(whole) {
				ok = ok && !strings.Contains(text, whole)
				continue
			}
			if len(term.parts) == 1 {
				ok = ok && !slices.ContainsFunc(tokens, func(tok string) bool {
					return tok == term.parts[0] || term.prefix && strings.HasPrefix(tok, term.parts[0])
				})
			}
		}
		if pos {
			positives = true
			if ok {
				return true
			}
		}
	}
	return !positives // a query with no positive term constrains nothing
}

// TestSearchCorpus runs 200 realistic agent queries against a seeded
// database of agent messages: none fails, every hit holds the query's
// terms, and each finds the message seeded for it.
func TestSearchCorpus(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := openStore(t, nil)
	for _, c := range srchCorpusSessions {
		srchCreate(t, s, c[0], c[1], "model-"+c[1])
	}
	ids := map[string]int64{}
	for _, m := range srchCorpusMessages() {
		if _, dup := ids[m.key]; dup {
			t.Fatalf("duplicate key %q", m.key)
		}
		ids[m.key] = srchAppend(t, s, m.session, NewMessage{Role: m.role, Content: m.content, ToolName: m.tool, ToolCalls: m.calls})
	}
	// Filler: a realistic background of routine messages in every session.
	for i := range 120 {
		sess := srchCorpusSessions[i%len(srchCorpusSessions)][0]
		text := []string{
			fmt.Sprintf("status update %d: build %d passed on runner-%d", i, 4000+i, i%7),
			fmt.Sprintf("第%d次例行检查完成，没有发现问题", i),
			fmt.Sprintf("ok, retrying step %d of the deploy pipeline", i),
			fmt.Sprintf("定期チェック%d回目：異常なし", i),
		}[i%4]
		srchSay(t, s, sess, []string{"user", "assistant"}[i%2], text)
	}
	texts := map[int64]string{}
	rows, err := s.r.QueryContext(ctx, `SELECT id, COALESCE(content, '') || ' ' || COALESCE(tool_name, '') || ' ' || COALESCE(tool_calls, '') FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var text string
		if err := rows.Scan(&id, &text); err != nil {
			t.Fatal(err)
		}
		texts[id] = text
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}

	// The checker itself must be able to fail.
	for _, c := range []struct {
		query, text string
		want        bool
	}{
		{"docker OR podman", "hello world", false},
		{"docker OR podman", "use podman", true},
		{"services NOT java", "java services", false},
		{"services NOT java", "python services", true},
		{"deploy* NOT docker", "deployment with docker", false},
		{"deploy* NOT docker", "deployment with podman", true},
		{"记忆 NOT 系统", "记忆系统", false},
		{"src/store/search.go", "src/store only", false},
		{"src/store/search.go", `{"path": "src/store/search.go"}`, true},
		{`"exact phrase"`, "exact", false},
		{"Agent通信", "讨论agent通信协议", true},
		{"Agent通信", "讨论Agent协议", false},
	} {
		if got := srchSatisfies(srchGroups(c.query), c.text); got != c.want {
			t.Errorf("checker: srchSatisfies(%q, %q) = %v, want %v", c.query, c.text, got, c.want)
		}
	}

	if n := len(srchCorpusQueries); n != 200 {
		t.Errorf("%d queries, want 200", n)
	}
	for i, tc := range srchCorpusQueries {
		want, ok := ids[tc.want]
		if !ok {
			t.Fatalf("query %q: no message %q", tc.query, tc.want)
		}
		t.Run(fmt.Sprintf("Q%03d", i), func(t *testing.T) {
			t.Parallel()
			res, err := s.SearchMessages(ctx, tc.query, SearchOptions{Limit: 1000})
			if err != nil {
				t.Fatalf("SearchMessages(%q): %v", tc.query, err)
			}
			route := fts.Parse(tc.query).Route
			if !slices.Contains(srchIDs(res), want) {
				t.Errorf("SearchMessages(%q) [%v, match %q]: message %s (%d) %q not among %d hits", tc.query, route, fts.Parse(tc.query).Match, tc.want, want, texts[want], len(res))
			}
			groups := srchGroups(tc.query)
			for _, r := range res {
				if !srchSatisfies(groups, texts[r.ID]) {
					t.Errorf("SearchMessages(%q) [%v]: hit %d %q does not hold the query's terms", tc.query, route, r.ID, texts[r.ID])
				}
			}
		})
	}
}
