package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/internal/backend"
)

// planCorpus shapes the populated file the plan tests and benchmarks read:
// a user's state.db as Hermes leaves it, with the rows that make plans and
// answers differ.
type planCorpus struct {
	// Sessions is the number of top-level sessions; children come on top.
	Sessions int
	// MeanMessages is the mean number of messages per session (each
	// session gets 0 to 2*MeanMessages, uniformly).
	MeanMessages int
	// Seed makes the file reproducible.
	Seed uint64
}

// planCorpusRows counts what buildPlanCorpus wrote.
type planCorpusRows struct {
	sessions, messages int
}

// buildPlanCorpus writes c into s in one transaction through the writer,
// with plain INSERTs (the FTS triggers run as for any write), and returns
// the row counts. Every shape the listing and lineage queries treat apart
// is there:
//
//   - sources cli, telegram, discord and tool; cwds; archived sessions;
//   - sessions without messages (MAX(timestamp) is NULL, the start counts);
//   - ties: every 50th session starts with its predecessor, both without
//     messages (a tie on start and last activity: the id decides); every
//     37th ends its messages at one shared timestamp, its start running
//     against its id (the start decides); one timestamp repeats inside a
//     session, and the sixth message of each is stamped before the first
//     (a clock that stepped back: id order is not time order);
//   - odd stored types in REAL columns: integer timestamps, a timestamp
//     stored as non-numeric text, one as a BLOB, a started_at stored as
//     text (REAL affinity keeps what it cannot convert);
//   - compression chains of one to three continuations (every tenth root),
//     some with a second, non-winning child, some continuations started
//     before the parent's end;
//   - /branch children by marker and by a parent ended 'branched',
//     delegate children, the v16 '__orphaned__' marker, a model_config that
//     is not JSON and one that is JSONB;
//   - rewound (active 0) and compacted messages;
//   - a system prompt of 4 to 12 KB on every session;
//   - titles on every fifth session, and "Title 5 #n" lineage variants.
func buildPlanCorpus(tb testing.TB, s *Store, c planCorpus) planCorpusRows {
	tb.Helper()
	rng := rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
	var n planCorpusRows
	err := s.write(context.Background(), func(ctx context.Context, tx backend.Tx) error {
		insSession, err := tx.PrepareContext(ctx, `INSERT INTO sessions
			(id, source, model, model_config, parent_session_id, started_at, ended_at, end_reason,
			 message_count, cwd, title, archived, system_prompt)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)`)
		if err != nil {
			return err
		}
		defer insSession.Close()
		insMessage, err := tx.PrepareContext(ctx, `INSERT INTO messages
			(session_id, role, content, tool_calls, tool_name, timestamp, active, compacted)
			VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`)
		if err != nil {
			return err
		}
		defer insMessage.Close()

		const sharedEnd = 1.75e9 // the tied last-message timestamp
		words := []string{"deploy", "docker", "kubernetes", "review", "patch", "schema", "index", "query", "plan", "cache", "通信", "记忆"}
		text := func(k int) string {
			out := ""
			for i := 0; i < k; i++ {
				out += words[rng.IntN(len(words))] + " "
			}
			return out
		}
		// Hermes stores the whole system prompt on every session: 4 to 12
		// KB here (overflow pages, as in users' files).
		prompt := strings.Repeat("You are Hermes, a helpful agent. Use the tools you are given. ", 200)
		session := func(id, source string, modelConfig, parent any, start, ended, endReason any, cwd, title any, archived int64) error {
			n.sessions++
			p := prompt[:4096+rng.IntN(8192)]
			_, err := insSession.ExecContext(ctx, id, source, "gpt-test", modelConfig, parent, start, ended, endReason, 0, cwd, title, archived, p)
			return err
		}
		// messages writes k messages from start on, returning the last
		// timestamp; lastAt, when set, replaces the last one.
		messages := func(id string, k int, start float64, lastAt any) error {
			for j := 0; j < k; j++ {
				role, toolCalls, toolName := "user", any(nil), any(nil)
				switch j % 4 {
				case 1:
					role = "assistant"
					if j%8 == 1 {
						toolCalls = `[{"id":"c","type":"function","function":{"name":"shell","arguments":"{}"}}]`
					}
				case 2:
					role, toolName = "tool", "shell"
				case 3:
					role = "assistant"
				}
				var ts any = start + float64(j)*1.5
				switch j {
				case 3:
					ts = start + 3 // repeats j == 2's timestamp
				case 5:
					ts = start - 10 // a clock stepped back: id order is not time order
				}
				if j == k-1 && lastAt != nil {
					ts = lastAt
				}
				active, compacted := 1, 0
				if rng.IntN(40) == 0 {
					active = 0
				} else if rng.IntN(60) == 0 {
					active, compacted = 0, 1
				}
				var content any = text(6 + rng.IntN(20))
				if role == "user" && rng.IntN(10) == 0 {
					content = nil
				}
				if _, err := insMessage.ExecContext(ctx, id, role, content, toolCalls, toolName, ts, active, compacted); err != nil {
					return err
				}
				n.messages++
			}
			return nil
		}
		sources := []string{"cli", "cli", "cli", "telegram", "discord", "cli", "telegram", "cli", "discord", "tool"}
		prevStart := 0.0
		for i := 0; i < c.Sessions; i++ {
			id := fmt.Sprintf("s%05d", i)
			start := 1.7e9 + float64(i)*60
			switch {
			case i%50 == 49:
				start = prevStart // tie on started_at (and, without messages, on last_active)
			case i%37 == 0:
				// These end at one shared time; their starts run against
				// their ids, so the tie order tells start from id.
				start = 1.6e9 - float64(i)
			}
			prevStart = start
			var startArg any = start
			if i == 7 {
				startArg = "yesterday" // text in a REAL column, and no messages
			}
			var cwd, title, modelConfig any
			if i%3 == 0 {
				cwd = fmt.Sprintf("/home/u/proj%d", i%7)
			}
			if i%5 == 0 {
				title = fmt.Sprintf("Title %d", i)
			}
			switch i % 41 {
			case 5:
				modelConfig = `{"_delegate_from":"__orphaned__"}`
			case 6:
				modelConfig = `{not json`
			case 8:
				modelConfig = `{"temperature":0.5}`
			}
			k := rng.IntN(2*c.MeanMessages + 1)
			switch {
			case i%13 == 0 || i == 7 || i%50 == 48 || i%50 == 49:
				k = 0
			case i == 11 || i == 12 || i%37 == 0:
				k = max(k, 3) // they carry the odd or shared last timestamps
			}
			compressed := i%10 == 0 && k > 0
			var ended, reason any
			if compressed {
				ended, reason = start+float64(k)*1.5+1, "compression"
			} else if i%4 == 0 {
				ended, reason = start+float64(k)*1.5+5, "user_exit"
			} else if i%97 == 3 {
				ended, reason = start+float64(k)*1.5+5, "branched"
			}
			if err := session(id, sources[i%len(sources)], modelConfig, nil, startArg, ended, reason, cwd, title, boolInt(i%29 == 0)); err != nil {
				return err
			}
			var lastAt any
			switch {
			case i%37 == 0:
				lastAt = sharedEnd
			case i == 11:
				lastAt = "not a time" // text sorts above every number
			case i == 12:
				lastAt = []byte{0x01, 0x02} // a BLOB sorts above text
			case i%17 == 0:
				lastAt = int64(start) + int64(k)*2 // an integer timestamp
			}
			if err := messages(id, k, start, lastAt); err != nil {
				return err
			}
			switch {
			case compressed:
				// A chain of one to three continuations, each but the last
				// ended by compression; every third link has a losing
				// sibling, every second starts before its parent's end.
				parent, t := id, start+float64(k)*1.5
				links := 1 + i%3
				for l := 1; l <= links; l++ {
					child := fmt.Sprintf("%s-c%d", id, l)
					childStart := t + 2
					if l%2 == 0 {
						childStart = t - 1
					}
					var cEnded, cReason any
					if l < links {
						cEnded, cReason = childStart+50, "compression"
					}
					if err := session(child, "cli", nil, parent, childStart, cEnded, cReason, cwd, nil, 0); err != nil {
						return err
					}
					ck := 1 + rng.IntN(c.MeanMessages+1)
					if err := messages(child, ck, childStart+1, nil); err != nil {
						return err
					}
					if l%3 == 1 {
						if err := session(child+"-side", "cli", nil, parent, childStart+1, childStart+3, "user_exit", nil, nil, 0); err != nil {
							return err
						}
						if err := messages(child+"-side", 2, childStart+1, nil); err != nil {
							return err
						}
					}
					parent, t = child, childStart+float64(ck)*1.5+1
				}
			case i%23 == 0:
				// A /branch child by marker, a delegate child and a tool child.
				kids := []struct {
					suffix, source string
					config         any
				}{{"-branch", "cli", `{"_branched_from":"` + id + `"}`}, {"-sub", "cli", `{"_delegate_from":"` + id + `"}`}, {"-tool", "tool", nil}}
				for j, kid := range kids {
					if err := session(id+kid.suffix, kid.source, kid.config, id, start+float64(j)+0.5, nil, nil, cwd, nil, 0); err != nil {
						return err
					}
					if err := messages(id+kid.suffix, 1+rng.IntN(6), start+float64(j)+0.5, nil); err != nil {
						return err
					}
				}
			case i%97 == 3:
				// A /branch child from before the marker: its parent ended
				// 'branched' before it started.
				if err := session(id+"-b", "cli", nil, id, start+float64(k)*1.5+10, nil, nil, nil, nil, 0); err != nil {
					return err
				}
				if err := messages(id+"-b", 3, start+float64(k)*1.5+11, nil); err != nil {
					return err
				}
			}
		}
		// Title variants of a lineage ("base #n"), in other cases too (LIKE
		// ignores ASCII case), and near misses.
		for id, title := range map[string]string{"s00001": "Title 5 #2", "s00003": "title 5 #3", "s00009": "TITLE 5 #10",
			"s00013": "Title 5 #", "s00017": "Title 5_#4", "s00019": "Title 5 #2 #3", "s00021": "Title 50 #2",
			"s00048": "Tie #1", "s00049": "Tie #2"} { // s00049 starts with s00048
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET title = ? WHERE id = ?`, title, id); err != nil {
				return err
			}
		}
		// A JSONB model_config, which json_valid(x, 10) accepts.
		if _, err := tx.ExecContext(ctx, `UPDATE sessions SET model_config = jsonb('{"_branched_from":"x"}') WHERE id = 's00002'`); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages m WHERE m.session_id = sessions.id)`)
		return err
	})
	if err != nil {
		tb.Fatalf("building the plan corpus: %v", err)
	}
	return n
}
