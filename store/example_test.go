package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/hermesstate/hermesstate/store"
)

// Open creates the database (or upgrades one an older Hermes wrote) and
// leaves it at the latest schema version.
func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "hermes")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := store.Open(ctx, filepath.Join(dir, "state.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	v, err := s.SchemaVersion(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("schema version", v)
	// Output: schema version 21
}

// A session's life: create it, append the turns of a conversation, replay
// them for the model, search them, and export the session.
func Example_session() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "hermes")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := store.Open(ctx, filepath.Join(dir, "state.db"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	id, err := s.CreateSession(ctx, store.NewSession{ID: "s1", Source: "cli", Model: "anthropic/claude-sonnet-4.6"})
	if err != nil {
		log.Fatal(err)
	}
	turns := []store.NewMessage{
		{Role: "user", Content: new("How do I deploy with Docker?")},
		{Role: "assistant", Content: new(""), ToolCalls: json.RawMessage(`[{"id":"c1","type":"function","function":{"name":"web_search","arguments":"{\"q\":\"docker compose\"}"}}]`)},
		{Role: "tool", Content: new("compose docs"), ToolCallID: "c1", ToolName: "web_search"},
		{Role: "assistant", Content: new("Use docker compose up."), Reasoning: new("The docs say so.")},
	}
	for i, m := range turns {
		at := store.Timestamp(1750000000 + i) // the event's time; nil would stamp it now
		m.Timestamp = &at
		if _, err := s.AppendMessage(ctx, id, m); err != nil {
			log.Fatal(err)
		}
	}
	if err := s.EndSession(ctx, id, "user_exit"); err != nil {
		log.Fatal(err)
	}

	conv, err := s.Conversation(ctx, id, false)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range conv {
		b, _ := json.Marshal(m)
		fmt.Println(string(b))
	}

	hits, err := s.SearchMessages(ctx, "docker compose", store.SearchOptions{Roles: []string{"assistant"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Printf("hit %d (%s): %q\n", h.ID, h.Role, *h.Snippet)
	}

	e, err := s.ExportSession(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("export %s: %d messages, %d tool call, ended %s\n", e.ID, len(e.Messages), e.ToolCallCount, *e.EndReason)
	// Output:
	// {"role":"user","content":"How do I deploy with Docker?","timestamp":1750000000.0}
	// {"role":"assistant","content":"","timestamp":1750000001.0,"tool_calls":[{"id":"c1","type":"function","function":{"name":"web_search","arguments":"{\"q\":\"docker compose\"}"}}]}
	// {"role":"tool","content":"compose docs","timestamp":1750000002.0,"tool_call_id":"c1","tool_name":"web_search"}
	// {"role":"assistant","content":"Use docker compose up.","timestamp":1750000003.0,"reasoning":"The docs say so."}
	// hit 4 (assistant): "Use >>>docker<<< >>>compose<<< up.  "
	// hit 2 (assistant): "  [{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": \"web_search\", \"arguments\": \"{\\\"q\\\":\\\">>>docker<<< >>>compose<<<\\\"}\"}}]"
	// export s1: 4 messages, 1 tool call, ended user_exit
}
