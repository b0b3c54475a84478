package fts_test

import (
	"fmt"

	"github.com/hermesstate/hermesstate/fts"
)

// Sanitize reproduces the original's sanitiser, including its outputs that
// FTS5 rejects.
func ExampleSanitize() {
	for _, q := range []string{"chat-send", "P2.2", "C++", "deploy*", `"exact phrase" OR  foo`, "sp_new and 血管瘤", "foo:bar"} {
		fmt.Printf("%s → %s\n", q, fts.Sanitize(q))
	}
	// Output:
	// chat-send → "chat-send"
	// P2.2 → "P2.2"
	// C++ → C
	// deploy* → deploy*
	// "exact phrase" OR  foo → "exact phrase" OR  foo
	// sp_new and 血管瘤 → "sp_new" and 血管瘤
	// foo:bar → foo bar
}

// Parse picks the index and builds a query SQLite always accepts; for the
// LIKE scan it gives each alternative's terms as escaped patterns.
func ExampleParse() {
	for _, q := range []string{"docker OR kubernetes", "foo:bar", "a AND OR b", "记忆系统 OR 断裂连接", "广西 OR 桂林", "100%完成 NOT 通信", "***"} {
		p := fts.Parse(q)
		switch p.Route {
		case fts.RouteUnicode61, fts.RouteTrigram:
			fmt.Printf("%s: %s MATCH %s\n", q, p.Route, p.Match)
		case fts.RouteLike:
			fmt.Printf("%s: %s", q, p.Route)
			for i, g := range p.Groups {
				if i > 0 {
					fmt.Print(" OR")
				}
				for _, t := range g.All {
					fmt.Printf(" LIKE %s", t.Pattern)
				}
				for _, t := range g.None {
					fmt.Printf(" NOT LIKE %s", t.Pattern)
				}
			}
			fmt.Printf(", anchor %s\n", p.Anchor)
		default:
			fmt.Printf("%s: %s\n", q, p.Route)
		}
	}
	// Output:
	// docker OR kubernetes: unicode61 MATCH docker OR kubernetes
	// foo:bar: unicode61 MATCH foo bar
	// a AND OR b: unicode61 MATCH a OR b
	// 记忆系统 OR 断裂连接: trigram MATCH "记忆系统" OR "断裂连接"
	// 广西 OR 桂林: like LIKE %广西% OR LIKE %桂林%, anchor 广西
	// 100%完成 NOT 通信: like LIKE %100\%完成% NOT LIKE %通信%, anchor 100%完成
	// ***: none
}
