package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/hermesstate/hermesstate/store"
)

// lineageCommand is "sessions lineage": a session's ancestors and
// descendants as a tree.
var lineageCommand = command{
	name:    "lineage",
	args:    "ID|PREFIX|TITLE",
	summary: "Show a session's ancestors (root first) and descendants as a tree",
	setup: func(fs *flag.FlagSet) action {
		return func(ctx context.Context, e *env, args []string) error {
			return withSession(ctx, e, args, func(s *store.Store, id string) error {
				nodes, err := lineageTree(ctx, s, id)
				if err != nil {
					return err
				}
				if e.json {
					return writeJSON(e.stdout, nodes)
				}
				printLineage(e, nodes)
				return nil
			})
		}
	},
}

// lineageNode is one line of the tree, and one element of the --json
// array.
type lineageNode struct {
	ID              string          `json:"id"`
	Title           *string         `json:"title"`
	StartedAt       store.Timestamp `json:"started_at"`
	ParentSessionID *string         `json:"parent_session_id"`
	// Depth is the distance from the root of the tree (0).
	Depth int `json:"depth"`
	// Selected marks the session asked about.
	Selected bool `json:"selected"`
	// last is true for the last child of its parent (└── rather than ├──).
	last bool
}

// lineageTree returns the chain from id's root ancestor down to id, then
// id's descendants depth first (siblings oldest first): the tree in the
// order it prints.
func lineageTree(ctx context.Context, s *store.Store, id string) ([]lineageNode, error) {
	up, err := s.Ancestors(ctx, id)
	if err != nil {
		return nil, err
	}
	down, err := s.Descendants(ctx, id)
	if err != nil {
		return nil, err
	}
	slices.Reverse(up) // root first
	var out []lineageNode
	seen := map[string]bool{}
	add := func(n store.LineageNode, depth int, last bool) {
		seen[n.ID] = true
		out = append(out, lineageNode{ID: n.ID, Title: n.Title, StartedAt: n.StartedAt,
			ParentSessionID: n.ParentSessionID, Depth: depth, Selected: n.ID == id, last: last})
	}
	for i, n := range up[:len(up)-1] {
		add(n, i, true)
	}
	children := map[string][]store.LineageNode{}
	for _, n := range down[1:] {
		if n.ParentSessionID != nil {
			children[*n.ParentSessionID] = append(children[*n.ParentSessionID], n)
		}
	}
	var walk func(n store.LineageNode, depth int, last bool)
	walk = func(n store.LineageNode, depth int, last bool) {
		if seen[n.ID] {
			return
		}
		add(n, depth, last)
		kids := children[n.ID]
		for i, k := range kids {
			walk(k, depth+1, i == len(kids)-1)
		}
	}
	walk(up[len(up)-1], len(up)-1, true)
	return out, nil
}

// printLineage draws the tree: one session a line, "id  title  started",
// the selected one marked.
func printLineage(e *env, nodes []lineageNode) {
	// open[d] is true while the node at depth d has later siblings to come,
	// so its column keeps a │.
	var open []bool
	for _, n := range nodes {
		open = append(open[:min(n.Depth, len(open))], !n.last)
		var b strings.Builder
		for d := 1; d < n.Depth; d++ {
			if open[d] {
				b.WriteString("│   ")
			} else {
				b.WriteString("    ")
			}
		}
		if n.Depth > 0 {
			if n.last {
				b.WriteString("└── ")
			} else {
				b.WriteString("├── ")
			}
		}
		fmt.Fprintf(&b, "%s  %s  %s", n.ID, cell(deref(n.Title)), localTime(n.StartedAt, minuteLayout))
		if n.Selected {
			b.WriteString("  ◀")
		}
		fmt.Fprintln(e.stdout, b.String())
	}
}
