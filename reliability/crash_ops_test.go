package reliability

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/hermesstate/hermesstate/store"
)

// crashOp is one write of a crash child. Each is a pure function of the
// scenario, the iteration and the step number, so the parent, which never
// sees the child's memory, knows exactly what every acknowledged step and
// the step in flight at the kill wrote.
type crashOp struct {
	Kind    string // create, append, replace, end, prune, delete or vacuum
	Session string
	// Source is a created session's source, or the source a prune prunes.
	Source string
	// Msgs is the appended message (one) or the replacing transcript.
	Msgs []genMsg
}

// pruneAge makes PruneSessions take every ended session of the source: each
// started at least one committed write (a few milliseconds) before the
// prune, far more than this.
const pruneAge = time.Microsecond

// run makes the write through the store. It returns the message id of an
// append, else 0.
func (op crashOp) run(ctx context.Context, s *store.Store) (int64, error) {
	var err error
	switch op.Kind {
	case "create":
		_, err = s.CreateSession(ctx, store.NewSession{ID: op.Session, Source: op.Source, Model: "test-model"})
	case "append":
		return s.AppendMessage(ctx, op.Session, op.Msgs[0].newMessage())
	case "replace":
		err = s.ReplaceMessages(ctx, op.Session, newMessages(op.Msgs))
	case "end":
		err = s.EndSession(ctx, op.Session, "user_exit")
	case "prune":
		_, err = s.PruneSessions(ctx, store.PruneOptions{Source: op.Source, OlderThan: pruneAge})
	case "delete":
		err = s.DeleteSession(ctx, op.Session, "")
	case "vacuum":
		_, err = s.Vacuum(ctx)
	default:
		err = fmt.Errorf("unknown op %q", op.Kind)
	}
	return 0, err
}

// modelSession is what the model knows of one session.
type modelSession struct {
	Source string
	Ended  bool
	Msgs   []genMsg
}

// model is the expected logical content of a file: its sessions by id.
type model map[string]modelSession

// apply changes m as op changes the file when it commits.
func (m model) apply(op crashOp) {
	s := m[op.Session]
	switch op.Kind {
	case "create":
		if _, ok := m[op.Session]; !ok { // INSERT OR IGNORE: the first row wins
			m[op.Session] = modelSession{Source: op.Source}
		}
	case "append":
		s.Msgs = append(append([]genMsg(nil), s.Msgs...), op.Msgs...)
		m[op.Session] = s
	case "replace":
		s.Msgs = op.Msgs
		m[op.Session] = s
	case "end":
		s.Ended = true
		m[op.Session] = s
	case "prune":
		maps.DeleteFunc(m, func(_ string, s modelSession) bool { return s.Source == op.Source && s.Ended })
	case "delete":
		delete(m, op.Session)
	}
}

// state returns what the file must hold when it matches m.
func (m model) state() map[string]fileSession {
	out := map[string]fileSession{}
	for id, s := range m {
		st := fileSession{Ended: s.Ended, MessageCount: int64(len(s.Msgs)), Contents: []string{}}
		for _, msg := range s.Msgs {
			st.ToolCallCount += int64(msg.Calls)
			st.Contents = append(st.Contents, msg.Content)
		}
		out[id] = st
	}
	return out
}

// crashScenario is a workload a child runs until it is killed.
type crashScenario struct {
	// op returns step number step of iteration iter.
	op func(iter, step int) crashOp
	// setup is written (by the parent, acknowledged) before the first child.
	setup []crashOp
	// target is the kind of step the kills aim at: each iteration waits
	// for a random one of the first upTo steps of that kind to begin, then
	// kills the child after a random delay of up to 1.25 times the last
	// such step's duration, so most kills land inside one.
	target string
	upTo   int
	// iterations is the number of kills: short form, long form.
	iterations [2]int
}

// crashScenarios are the workloads of TestKilledWriterLosesNothing, by name.
var crashScenarios = map[string]crashScenario{
	// One session per iteration, one message per step.
	"Append": {
		op: func(iter, step int) crashOp {
			sid := fmt.Sprintf("a%d", iter)
			if step == 0 {
				return crashOp{Kind: "create", Session: sid, Source: "cli"}
			}
			return crashOp{Kind: "append", Session: sid, Msgs: []genMsg{messageFor(sid, step)}}
		},
		target: "append", upTo: 100, iterations: [2]int{6, 30},
	},
	// One session per iteration whose whole transcript (1–29 messages) is
	// replaced at every step.
	"Replace": {
		op: func(iter, step int) crashOp {
			sid := fmt.Sprintf("b%d", iter)
			if step == 0 {
				return crashOp{Kind: "create", Session: sid, Source: "cli"}
			}
			return crashOp{Kind: "replace", Session: sid, Msgs: conversation(fmt.Sprintf("%s t%d", sid, step), 1+step*7%29)}
		},
		target: "replace", upTo: 30, iterations: [2]int{6, 30},
	},
	// Rounds of 31 steps: ten sessions of the iteration's own source are
	// created, given 40 messages and ended, then the source is pruned (400
	// messages deleted in one transaction).
	"Prune": {
		op: func(iter, step int) crashOp {
			round, k := step/31, step%31
			source := fmt.Sprintf("c%d", iter)
			if k == 30 {
				return crashOp{Kind: "prune", Source: source}
			}
			sid := fmt.Sprintf("c%dr%ds%d", iter, round, k/3)
			switch k % 3 {
			case 0:
				return crashOp{Kind: "create", Session: sid, Source: source}
			case 1:
				return crashOp{Kind: "replace", Session: sid, Msgs: conversation(sid, 40)}
			}
			return crashOp{Kind: "end", Session: sid}
		},
		target: "prune", upTo: 3, iterations: [2]int{4, 25},
	},
	// Rounds of 4 steps on a file holding 2,000 other messages: a session of
	// 100 messages is written, the previous round's is deleted, and the
	// file is vacuumed, which rewrites all of it.
	"Vacuum": {
		setup: vacuumBase(),
		op: func(iter, step int) crashOp {
			round, k := step/4, step%4
			sid := fmt.Sprintf("d%dr%d", iter, round)
			switch {
			case k == 0:
				return crashOp{Kind: "create", Session: sid, Source: "cli"}
			case k == 1:
				return crashOp{Kind: "replace", Session: sid, Msgs: conversation(sid, 100)}
			case k == 2 && round > 0:
				return crashOp{Kind: "delete", Session: fmt.Sprintf("d%dr%d", iter, round-1)}
			}
			return crashOp{Kind: "vacuum"}
		},
		target: "vacuum", upTo: 3, iterations: [2]int{5, 25},
	},
}

// vacuumBase is ten sessions of 200 messages: enough pages (about 4 MB)
// that VACUUM takes tens of milliseconds to rewrite them.
func vacuumBase() []crashOp {
	var ops []crashOp
	for i := range 10 {
		sid := fmt.Sprintf("base%d", i)
		ops = append(ops, crashOp{Kind: "create", Session: sid, Source: "cli"},
			crashOp{Kind: "replace", Session: sid, Msgs: conversation(sid, 200)})
	}
	return ops
}
