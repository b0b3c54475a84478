package store

// Tests of the error contract (the package doc's Errors section): each
// message reads "store: OPERATION[ SUBJECT]: what went wrong", naming the
// package and the operation once, and matches its sentinel.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hermesstate/hermesstate/internal/dbtest"
)

// errCase is one failure provoked through the API: call returns the error,
// want is its exact message and is the sentinel it must match.
type errCase struct {
	name string
	call func() error
	want string
	is   error
}

// checkErrCases runs cases: each error's message must be exactly want,
// with "store:" once, and match its sentinel.
func checkErrCases(t *testing.T, cases []errCase) {
	t.Helper()
	for _, c := range cases {
		err := c.call()
		switch {
		case err == nil:
			t.Errorf("%s: no error, want %q", c.name, c.want)
		case err.Error() != c.want:
			t.Errorf("%s:\n got %q\nwant %q", c.name, err.Error(), c.want)
		case !errors.Is(err, c.is):
			t.Errorf("%s: %v does not match %v", c.name, err, c.is)
		case strings.Count(err.Error(), "store:") != 1:
			t.Errorf("%s: %q names the package more than once", c.name, err)
		}
	}
}

// TestErrorMessages provokes real failures across the API, on real files,
// and checks each message exactly.
func TestErrorMessages(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, path := healthFixture(t, nil)
	if err := s.SetSessionTitle(ctx, "a", "taken"); err != nil {
		t.Fatal(err)
	}
	addSession(t, s, "2025_1", nil, 1)
	addSession(t, s, "2025_2", nil, 2)
	execSQL(t, s, "UPDATE sessions SET input_tokens = 9223372036854775807 WHERE id = 'b'")
	user := NewMessage{Role: "user", Content: new("hi")}
	tooLong := strings.Repeat("x", 101)
	words := strings.Repeat("word ", 300)
	existing := filepath.Join(t.TempDir(), "existing.db")
	if err := os.WriteFile(existing, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}

	checkErrCases(t, []errCase{
		{"AppendUnknown", func() error { _, err := s.AppendMessage(ctx, "nope", user); return err },
			`store: append message to "nope": no such session`, ErrSessionNotFound},
		{"EndUnknown", func() error { return s.EndSession(ctx, "nope", "done") },
			`store: end session "nope": no such session`, ErrSessionNotFound},
		{"TitleUnknown", func() error { return s.SetSessionTitle(ctx, "nope", "free") },
			`store: set title of "nope": no such session`, ErrSessionNotFound},
		{"ModelUnknown", func() error { return s.UpdateSessionModel(ctx, "nope", "m") },
			`store: update model of "nope": no such session`, ErrSessionNotFound},
		{"DeleteUnknown", func() error { return s.DeleteSession(ctx, "nope", "") },
			`store: delete session "nope": no such session`, ErrSessionNotFound},
		{"DeleteManyUnknown", func() error { return s.DeleteSessions(ctx, []string{"a", "nope"}, "") },
			`store: delete sessions: session "nope": no such session`, ErrSessionNotFound},
		{"GetUnknown", func() error { _, err := s.GetSession(ctx, "nope"); return err },
			`store: get session "nope": not found`, ErrNotFound},
		{"TitleOfUnknown", func() error { _, err := s.SessionTitle(ctx, "nope"); return err },
			`store: get title of "nope": no such session`, ErrSessionNotFound},
		{"ByTitleUnknown", func() error { _, err := s.SessionByTitle(ctx, "none"); return err },
			`store: get session titled "none": not found`, ErrNotFound},
		{"ResolveUnknown", func() error { _, err := s.ResolveSessionID(ctx, "zzz"); return err },
			`store: resolve session id "zzz": not found`, ErrNotFound},
		{"ResolveAmbiguous", func() error { _, err := s.ResolveSessionID(ctx, "2025"); return err },
			`store: resolve session id "2025": ambiguous session id prefix: matches 2 sessions`, ErrAmbiguous},
		{"ExportUnknown", func() error { _, err := s.ExportSession(ctx, "nope"); return err },
			`store: export session "nope": not found`, ErrNotFound},
		{"ExportUnknownID", func() error {
			_, err := s.ExportJSONL(ctx, &strings.Builder{}, ExportOptions{IDs: []string{"a", "nope"}})
			return err
		}, `store: export: session "nope": no such session`, ErrSessionNotFound},
		{"MissingParent", func() error {
			_, err := s.CreateSession(ctx, NewSession{ID: "c", Source: "cli", ParentSessionID: "ghost"})
			return err
		}, `store: create session "c": no such parent session`, ErrParentNotFound},
		{"SessionExists", func() error { _, err := s.CreateSession(ctx, NewSession{ID: "a", Source: "cli"}); return err },
			`store: create session "a": session already exists`, ErrSessionExists},
		{"TitleTaken", func() error { return s.SetSessionTitle(ctx, "b", "taken") },
			`store: set title of "b": Title 'taken' is already in use by session a`, ErrTitleInUse},
		{"TitleTooLong", func() error { return s.SetSessionTitle(ctx, "a", tooLong) },
			`store: set title of "a": Title too long (101 chars, max 100)`, ErrTitleTooLong},
		{"ToolCallsNotJSON", func() error {
			_, err := s.AppendMessage(ctx, "a", NewMessage{Role: "assistant", ToolCalls: json.RawMessage(`[1,`)})
			return err
		}, `store: append message to "a": tool calls: invalid JSON: unexpected end of input, expecting a value at offset 3`, ErrInvalidJSON},
		{"ModelConfigNotJSON", func() error {
			_, err := s.CreateSession(ctx, NewSession{ID: "c", Source: "cli", ModelConfig: json.RawMessage(`{temperature`)})
			return err
		}, `store: create session "c": model config: invalid JSON: expecting a string object key at offset 1`, ErrInvalidJSON},
		{"IDNotUTF8", func() error { _, err := s.CreateSession(ctx, NewSession{ID: "c\xff", Source: "cli"}); return err },
			`store: create session "c\xff": id: text is not valid UTF-8`, ErrInvalidText},
		{"ReplacedMessageNotUTF8", func() error {
			return s.ReplaceMessages(ctx, "a", []NewMessage{user, {Role: "user", Content: new("bad \xfe")}})
		}, `store: replace messages of "a": message 2: content: text is not valid UTF-8`, ErrInvalidText},
		{"MetaNotUTF8", func() error { return s.SetMeta(ctx, "k", "\xff") },
			`store: set meta "k": value: text is not valid UTF-8`, ErrInvalidText},
		{"QueryTooLong", func() error { _, err := s.SearchMessages(ctx, words, SearchOptions{}); return err },
			`store: search "` + strings.Repeat("word ", 12) + `word"…: query too long: 300 words, at most 256`, ErrQueryTooLong},
		{"CounterOverflow", func() error { return s.UpdateTokenCounts(ctx, "b", TokenUpdate{InputTokens: 1}) },
			`store: update token counts of "b": counter would overflow int64: input_tokens is 9223372036854775807, adding 1`, ErrCounterOverflow},
		{"BackupExists", func() error { return s.Backup(ctx, existing, BackupOptions{}) },
			"store: backup: " + existing + " already exists", ErrExists},
		{"BackupOwnFile", func() error { return s.Backup(ctx, path, BackupOptions{Force: true}) },
			"store: backup: " + path + " already exists: it is the database's own file", ErrExists},
		{"BackupNoDirectory", func() error { return s.Backup(ctx, filepath.Join(path, "x", "b.db"), BackupOptions{}) },
			"store: backup: no such directory: " + filepath.Join(path, "x"), ErrNoDirectory},
		{"ImportLine", func() error {
			_, err := s.ImportJSONL(ctx, strings.NewReader("{\"id\": \"i1\", \"source\": \"cli\", \"started_at\": 1}\n{\"id\": \"i\xff\"}\n"), ImportOptions{})
			return err
		}, `store: import: line 2: id: text is not valid UTF-8: byte 0xff`, ErrInvalidText},
		{"CheckpointMode", func() error { _, err := s.Checkpoint(ctx, CheckpointMode(9)); return err },
			`store: checkpoint CheckpointMode(9): unknown checkpoint mode`, errUnknownMode},
		{"CanceledRead", func() error {
			canceled, cancel := context.WithCancel(ctx)
			cancel()
			_, err := s.ListSessionsRich(canceled, ListOptions{})
			return err
		}, `store: list sessions: begin: context canceled`, context.Canceled},
		{"CanceledWrite", func() error {
			canceled, cancel := context.WithCancel(ctx)
			cancel()
			return s.EndSession(canceled, "a", "done")
		}, `store: end session "a": begin: context canceled`, context.Canceled},
	})
}

// TestErrorMessagesOfFiles checks the messages of failures that need a
// file of their own: refusals at Open, a read-only, closed, locked or full
// store, a damaged or empty search index.
func TestErrorMessagesOfFiles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	missing := filepath.Join(dir, "no", "such")
	notDB := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(notDB, []byte("these are notes, not a database\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	newer := newerFixture(t, "state-v21.db", 22)
	older := dbtest.CopyFile(t, dbtest.Testdata("state-v9.db"), filepath.Join(t.TempDir(), "state.db"))

	closed, _ := openStore(t, quick(nil))
	if err := closed.Close(); err != nil {
		t.Fatal(err)
	}
	_, path := healthFixture(t, nil)
	readOnly := openAt(t, path, &Options{ReadOnly: true})

	locked, lockedPath := openStore(t, quick(lockTestOptions()))
	dbtest.HoldWriteLock(t, lockedPath)

	full, _ := openStore(t, quick(nil))
	mustCreate(t, full, NewSession{ID: "s", Source: "cli"})
	pages := dbtest.Value[int64](t, full.w, "PRAGMA page_count")
	execSQL(t, full, "PRAGMA max_page_count = "+strconv.FormatInt(pages, 10))
	big := strings.Repeat("a long message that needs new pages ", 4000)

	damaged, damagedPath := healthFixture(t, nil)
	for range 12 {
		mustAppend(t, damaged, "a", NewMessage{Role: "user", Content: new("filler hello")})
	}
	damageSearchIndex(t, damagedPath)
	emptyIndex := openAt(t, emptyIndexFile(t, "messages_fts"), &Options{ReadOnly: true})

	checkErrCases(t, []errCase{
		{"NewerSchema", func() error { _, err := Open(ctx, newer, nil); return err },
			"store: open " + newer + ": database schema is newer than this build: the file is at schema version 22, this build's latest is 21 " +
				"(a newer Hermes wrote it); nothing was changed. Read it with Options.ReadOnly or the sessions reading commands (list, show, search, lineage, export, stats, doctor)", ErrNewerSchema},
		{"OlderSchema", func() error { _, err := Open(ctx, older, &Options{ReadOnly: true}); return err },
			"store: open " + older + ": database schema is older than this build: the file is at schema version 9, this build reads 21; upgrade it first: migrate -db " + older + " up", ErrOlderSchema},
		{"NoDirectory", func() error { _, err := Open(ctx, filepath.Join(missing, "state.db"), nil); return err },
			"store: open " + filepath.Join(missing, "state.db") + ": no such directory: " + missing, ErrNoDirectory},
		{"URL", func() error { _, err := Open(ctx, "mysql://host/db", nil); return err },
			"store: open mysql://host/db: is a URL with no backend: give a SQLite file path or a postgres:// URL", ErrURL},
		{"NotDatabase", func() error { _, err := Open(ctx, notDB, nil); return err },
			"store: open " + notDB + ": file is not a SQLite database: file is not a database", ErrNotDatabase},
		{"ClosedRead", func() error { _, err := closed.GetSession(ctx, "a"); return err },
			`store: get session "a": closed`, ErrClosed},
		{"ClosedWrite", func() error { _, err := closed.AppendMessage(ctx, "a", NewMessage{Role: "user"}); return err },
			`store: append message to "a": closed`, ErrClosed},
		{"ReadOnlyWrite", func() error { _, err := readOnly.CreateSession(ctx, NewSession{ID: "c", Source: "cli"}); return err },
			`store: create session "c": database is read-only (opened with Options.ReadOnly)`, ErrReadOnly},
		{"ReadOnlyVacuum", func() error { _, err := readOnly.Vacuum(ctx); return err },
			`store: vacuum: database is read-only (opened with Options.ReadOnly)`, ErrReadOnly},
		{"ReadOnlyOptimizeFTS", func() error { _, err := readOnly.OptimizeFTS(ctx); return err },
			`store: optimize fts: database is read-only (opened with Options.ReadOnly)`, ErrReadOnly},
		{"Busy", func() error { _, err := locked.CreateSession(ctx, NewSession{ID: "c", Source: "cli"}); return err },
			`store: create session "c": database is locked by another connection: gave up after 2 attempts: begin: database is locked`, ErrBusy},
		{"DiskFull", func() error {
			_, err := full.AppendMessage(ctx, "s", NewMessage{Role: "user", Content: &big})
			return err
		},
			`store: append message to "s": database or disk is full`, ErrDiskFull},
		{"DamagedIndex", func() error { _, err := damaged.SearchMessages(ctx, "hello", SearchOptions{}); return err },
			`store: search "hello": database is damaged: database disk image is malformed`, ErrCorrupt},
		{"EmptyIndex", func() error { _, err := emptyIndex.SearchMessages(ctx, "hello", SearchOptions{}); return err },
			`store: search "hello": messages_fts: the search index is empty while messages has rows (rebuild it: sessions doctor --fix-fts, or Store.RebuildSearchIndex)`, ErrSearchIndexEmpty},
	})
}

// TestEveryMethodAfterClose calls every exported method of *Store after
// Close: each error is "store: OPERATION: closed", the package named once.
// The list must hold every method (reflection finds them), so a method
// added without its boundary wrap, or without a row here, fails.
func TestEveryMethodAfterClose(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, _ := openStore(t, quick(nil))
	mustCreate(t, s, NewSession{ID: "a", Source: "cli"})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	backup := filepath.Join(t.TempDir(), "backup.db")
	calls := map[string]struct {
		call func() error
		op   string
	}{
		"Ancestors":                           {func() error { _, err := s.Ancestors(ctx, "a"); return err }, `ancestors of "a"`},
		"ArchiveSessions":                     {func() error { _, err := s.ArchiveSessions(ctx, PruneOptions{}); return err }, "archive sessions"},
		"BackfillRepoRoots":                   {func() error { _, err := s.BackfillRepoRoots(ctx, map[string]string{"/w": "/r"}); return err }, "backfill repo roots"},
		"CountEmptySessions":                  {func() error { _, err := s.CountEmptySessions(ctx); return err }, "count empty sessions"},
		"DeleteEmptySessions":                 {func() error { _, err := s.DeleteEmptySessions(ctx, ""); return err }, "delete empty sessions"},
		"DeleteExistingSessions":              {func() error { _, err := s.DeleteExistingSessions(ctx, []string{"a"}, ""); return err }, "delete sessions"},
		"DeleteSessionIfEmpty":                {func() error { _, err := s.DeleteSessionIfEmpty(ctx, "a", ""); return err }, `delete session if empty "a"`},
		"FinalizeOrphanedCompressionSessions": {func() error { _, err := s.FinalizeOrphanedCompressionSessions(ctx); return err }, "finalize orphaned compression sessions"},
		"ModelUsage":                          {func() error { _, err := s.ModelUsage(ctx, "a"); return err }, `model usage of "a"`},
		"PruneEmptyGhostSessions":             {func() error { _, err := s.PruneEmptyGhostSessions(ctx, ""); return err }, "prune empty ghost sessions"},
		"SetSessionArchived":                  {func() error { _, err := s.SetSessionArchived(ctx, "a", true); return err }, `set archived of "a"`},
		"UpdateSessionBillingRoute":           {func() error { return s.UpdateSessionBillingRoute(ctx, "a", BillingRoute{Provider: "p"}) }, `update billing route of "a"`},
		"UpdateSessionCwd":                    {func() error { return s.UpdateSessionCwd(ctx, "a", Workspace{Cwd: "/w"}) }, `update cwd of "a"`},
		"UpdateSessionMeta":                   {func() error { return s.UpdateSessionMeta(ctx, "a", nil, "m") }, `update meta of "a"`},
		"UpdateSessionModel":                  {func() error { return s.UpdateSessionModel(ctx, "a", "m") }, `update model of "a"`},
		"UpsertSession":                       {func() error { _, err := s.UpsertSession(ctx, NewSession{ID: "b", Source: "cli"}); return err }, `upsert session "b"`},
		"UsageByModel":                        {func() error { _, err := s.UsageByModel(ctx, UsageOptions{}); return err }, "usage by model"},

		"AnchoredView":          {func() error { _, err := s.AnchoredView(ctx, "a", 1, DefaultAnchoredView()); return err }, `read the anchored view of "a"`},
		"AppendMessage":         {func() error { _, err := s.AppendMessage(ctx, "a", NewMessage{Role: "user"}); return err }, `append message to "a"`},
		"ArchiveAndCompact":     {func() error { _, err := s.ArchiveAndCompact(ctx, "a", nil); return err }, `compact "a"`},
		"AutoMaintain":          {func() error { return s.AutoMaintain(ctx, AutoMaintainOptions{}).Err }, "auto maintain"},
		"Backup":                {func() error { return s.Backup(ctx, backup, BackupOptions{}) }, "backup"},
		"Check":                 {func() error { _, err := s.Check(ctx); return err }, "check"},
		"Checkpoint":            {func() error { _, err := s.Checkpoint(ctx, CheckpointPassive); return err }, "checkpoint PASSIVE"},
		"ClearMessages":         {func() error { return s.ClearMessages(ctx, "a") }, `clear messages of "a"`},
		"CompressionLineage":    {func() error { _, err := s.CompressionLineage(ctx, "a"); return err }, `compression lineage of "a"`},
		"CompressionTip":        {func() error { _, err := s.CompressionTip(ctx, "a"); return err }, `compression tip of "a"`},
		"Conversation":          {func() error { _, err := s.Conversation(ctx, "a", true); return err }, `conversation of "a"`},
		"CountSessions":         {func() error { _, err := s.CountSessions(ctx, CountOptions{}); return err }, "count sessions"},
		"ConversationWith":      {func() error { _, err := s.ConversationWith(ctx, "a", ConversationOptions{}); return err }, `conversation of "a"`},
		"CreateSession":         {func() error { _, err := s.CreateSession(ctx, NewSession{ID: "b", Source: "cli"}); return err }, `create session "b"`},
		"CreateSessionIfAbsent": {func() error { _, err := s.CreateSessionIfAbsent(ctx, NewSession{ID: "b", Source: "cli"}); return err }, `create session "b"`},
		"DeleteSession":         {func() error { return s.DeleteSession(ctx, "a", "") }, `delete session "a"`},
		"DeleteSessions":        {func() error { return s.DeleteSessions(ctx, []string{"a"}, "") }, "delete sessions"},
		"Descendants":           {func() error { _, err := s.Descendants(ctx, "a"); return err }, `descendants of "a"`},
		"DistinctSessionCwds":   {func() error { _, err := s.DistinctSessionCwds(ctx, false); return err }, "list session working directories"},
		"EachMessage":           {func() error { return s.EachMessage(ctx, "a", func(Message) error { return nil }) }, `read messages of "a"`},
		"EndSession":            {func() error { return s.EndSession(ctx, "a", "done") }, `end session "a"`},
		"EnsureSession":         {func() error { return s.EnsureSession(ctx, "a", "cli", "") }, `ensure session "a"`},
		"ExportAll":             {func() error { _, err := s.ExportAll(ctx, ""); return err }, "export all"},
		"ExportCount":           {func() error { _, err := s.ExportCount(ctx, ExportOptions{IDs: []string{"a"}}); return err }, "count the export"},
		"ExportJSONL":           {func() error { _, err := s.ExportJSONL(ctx, io.Discard, ExportOptions{}); return err }, "export"},
		"ExportSession":         {func() error { _, err := s.ExportSession(ctx, "a"); return err }, `export session "a"`},
		"GetMessages":           {func() error { _, err := s.GetMessages(ctx, "a"); return err }, `get messages of "a"`},
		"GetMessagesWith":       {func() error { _, err := s.GetMessagesWith(ctx, "a", MessageOptions{}); return err }, `get messages of "a"`},
		"GetMeta":               {func() error { _, _, err := s.GetMeta(ctx, "k"); return err }, `get meta "k"`},
		"GetSession":            {func() error { _, err := s.GetSession(ctx, "a"); return err }, `get session "a"`},
		"HasArchivedMessages":   {func() error { _, err := s.HasArchivedMessages(ctx, "a"); return err }, `look for archived messages of "a"`},
		"HasPlatformMessageID":  {func() error { _, err := s.HasPlatformMessageID(ctx, "a", "p"); return err }, `look up a platform message id in "a"`},
		"ImportJSONL": {func() error {
			_, err := s.ImportJSONL(ctx, strings.NewReader(`{"id": "b", "source": "cli", "started_at": 1}`), ImportOptions{})
			return err
		}, "import: batch of lines 1-1"},
		"Lineage":                {func() error { _, err := s.Lineage(ctx, "a"); return err }, `lineage of "a"`},
		"ListCronJobRuns":        {func() error { _, err := s.ListCronJobRuns(ctx, "j", 0, 0); return err }, `list runs of cron job "j"`},
		"ListRecentUserMessages": {func() error { _, err := s.ListRecentUserMessages(ctx, "a", RecentUserMessagesOptions{}); return err }, `list recent user messages of "a"`},
		"ListSessionsRich":       {func() error { _, err := s.ListSessionsRich(ctx, ListOptions{}); return err }, "list sessions"},
		"MessageCount":           {func() error { _, err := s.MessageCount(ctx, "a"); return err }, "count messages"},
		"MessagesAround":         {func() error { _, err := s.MessagesAround(ctx, "a", 1, 5); return err }, `read messages around a message of "a"`},
		"NextTitleInLineage":     {func() error { _, err := s.NextTitleInLineage(ctx, "t #2"); return err }, `next title in lineage of "t #2"`},
		"Pages":                  {func() error { _, err := s.Pages(ctx); return err }, "pages"},
		"PruneCandidates":        {func() error { _, err := s.PruneCandidates(ctx, PruneOptions{}); return err }, "list prune candidates"},
		"PruneSessions":          {func() error { _, err := s.PruneSessions(ctx, PruneOptions{}); return err }, "prune sessions"},
		"RebuildSearchIndex":     {func() error { return s.RebuildSearchIndex(ctx) }, "rebuild search index"},
		"ReopenSession":          {func() error { return s.ReopenSession(ctx, "a") }, `reopen session "a"`},
		"ReplaceActiveMessages":  {func() error { return s.ReplaceActiveMessages(ctx, "a", nil) }, `replace active messages of "a"`},
		"ReplaceMessages":        {func() error { return s.ReplaceMessages(ctx, "a", nil) }, `replace messages of "a"`},
		"RestoreRewound":         {func() error { _, err := s.RestoreRewound(ctx, "a", 1); return err }, `restore rewound messages of "a"`},
		"ResolveResumeSessionID": {func() error { _, err := s.ResolveResumeSessionID(ctx, "a"); return err }, `resolve resume of "a"`},
		"ResolveSessionByTitle":  {func() error { _, err := s.ResolveSessionByTitle(ctx, "t"); return err }, `resolve title "t"`},
		"ResolveSessionID":       {func() error { _, err := s.ResolveSessionID(ctx, "a"); return err }, `resolve session id "a"`},
		"RewindToMessage":        {func() error { _, err := s.RewindToMessage(ctx, "a", 1); return err }, `rewind "a"`},
		"SchemaVersion":          {func() error { _, err := s.SchemaVersion(ctx); return err }, "read schema version"},
		"SearchMessages":         {func() error { _, err := s.SearchMessages(ctx, "hello", SearchOptions{}); return err }, `search "hello"`},
		"SearchSessions":         {func() error { _, err := s.SearchSessions(ctx, "", 0, 0); return err }, "search sessions"},
		"SearchSessionsByID":     {func() error { _, err := s.SearchSessionsByID(ctx, "a", IDSearchOptions{}); return err }, `search sessions by id "a"`},
		"SessionByTitle":         {func() error { _, err := s.SessionByTitle(ctx, "t"); return err }, `get session titled "t"`},
		"SessionCount":           {func() error { _, err := s.SessionCount(ctx, ""); return err }, "count sessions"},
		"SessionTitle":           {func() error { _, err := s.SessionTitle(ctx, "a"); return err }, `get title of "a"`},
		"SetMeta":                {func() error { return s.SetMeta(ctx, "k", "v") }, `set meta "k"`},
		"SetSessionTitle":        {func() error { return s.SetSessionTitle(ctx, "a", "t") }, `set title of "a"`},
		"TokenStatsByModel":      {func() error { _, err := s.TokenStatsByModel(ctx); return err }, "token stats by model"},
		"TokenStatsBySource":     {func() error { _, err := s.TokenStatsBySource(ctx); return err }, "token stats by source"},
		"TopSessionsByTokens":    {func() error { _, err := s.TopSessionsByTokens(ctx, 3); return err }, "top sessions by tokens"},
		"UpdateSystemPrompt":     {func() error { return s.UpdateSystemPrompt(ctx, "a", "p") }, `update system prompt of "a"`},
		"UpdateTokenCounts":      {func() error { return s.UpdateTokenCounts(ctx, "a", TokenUpdate{InputTokens: 1}) }, `update token counts of "a"`},
		"Vacuum":                 {func() error { _, err := s.Vacuum(ctx); return err }, "vacuum"},
		"OptimizeFTS":            {func() error { _, err := s.OptimizeFTS(ctx); return err }, "optimize fts"},

		// The v21 tables (locks.go, compression_state.go, gateway*.go,
		// handoff.go, delegation*.go).
		"TryAcquireCompressionLock":        {func() error { _, err := s.TryAcquireCompressionLock(ctx, "a", "h", 0); return err }, `acquire compression lock "a"`},
		"RefreshCompressionLock":           {func() error { _, err := s.RefreshCompressionLock(ctx, "a", "h", 0); return err }, `refresh compression lock "a"`},
		"ReleaseCompressionLock":           {func() error { return s.ReleaseCompressionLock(ctx, "a", "h") }, `release compression lock "a"`},
		"CompressionLockHolder":            {func() error { _, _, err := s.CompressionLockHolder(ctx, "a"); return err }, `read compression lock "a"`},
		"RecordCompressionFailureCooldown": {func() error { return s.RecordCompressionFailureCooldown(ctx, "a", 1, "e") }, `record compression cooldown "a"`},
		"ClearCompressionFailureCooldown":  {func() error { return s.ClearCompressionFailureCooldown(ctx, "a") }, `clear compression cooldown "a"`},
		"CompressionFailureCooldown":       {func() error { _, err := s.CompressionFailureCooldown(ctx, "a"); return err }, `read compression cooldown "a"`},
		"CompressionFallbackStreak":        {func() error { _, err := s.CompressionFallbackStreak(ctx, "a"); return err }, `read compression fallback streak "a"`},
		"SetCompressionFallbackStreak":     {func() error { return s.SetCompressionFallbackStreak(ctx, "a", 1) }, `set compression fallback streak "a"`},
		"RecordGatewaySessionPeer": {func() error {
			return s.RecordGatewaySessionPeer(ctx, "a", GatewayPeer{Source: "telegram", SessionKey: "k"})
		}, `record gateway peer "a"`},
		"SetExpiryFinalized":  {func() error { return s.SetExpiryFinalized(ctx, "a", true) }, `set expiry finalized "a"`},
		"ListGatewaySessions": {func() error { _, err := s.ListGatewaySessions(ctx, GatewayListOptions{}); return err }, "list gateway sessions"},
		"FindSessionByOrigin": {func() error {
			_, err := s.FindSessionByOrigin(ctx, Origin{Platform: "telegram", ChatID: "c"})
			return err
		}, `find session by origin "telegram:c"`},
		"FindLatestGatewaySessionForPeer": {func() error {
			_, err := s.FindLatestGatewaySessionForPeer(ctx, GatewayPeer{Source: "telegram", SessionKey: "k"})
			return err
		}, `find gateway session "k"`},
		"SaveGatewayRoutingEntry":      {func() error { return s.SaveGatewayRoutingEntry(ctx, "", "k", []byte(`1`)) }, `save gateway routing entry "k"`},
		"ReplaceGatewayRoutingEntries": {func() error { return s.ReplaceGatewayRoutingEntries(ctx, "sc", nil) }, `replace gateway routing entries "sc"`},
		"LoadGatewayRoutingEntries":    {func() error { _, err := s.LoadGatewayRoutingEntries(ctx, "sc"); return err }, `load gateway routing entries "sc"`},
		"DeleteGatewayRoutingEntries":  {func() error { return s.DeleteGatewayRoutingEntries(ctx, "sc", []string{"k"}) }, `delete gateway routing entries "sc"`},
		"RequestHandoff":               {func() error { _, err := s.RequestHandoff(ctx, "a", "telegram"); return err }, `request handoff "a"`},
		"ClaimHandoff":                 {func() error { _, err := s.ClaimHandoff(ctx, "a"); return err }, `claim handoff "a"`},
		"CompleteHandoff":              {func() error { return s.CompleteHandoff(ctx, "a") }, `complete handoff "a"`},
		"FailHandoff":                  {func() error { return s.FailHandoff(ctx, "a", "e") }, `fail handoff "a"`},
		"HandoffState":                 {func() error { _, err := s.HandoffState(ctx, "a"); return err }, `read handoff "a"`},
		"ListPendingHandoffs":          {func() error { _, err := s.ListPendingHandoffs(ctx); return err }, "list pending handoffs"},
		"DispatchDelegation":           {func() error { return s.DispatchDelegation(ctx, DelegationDispatch{ID: "d"}) }, `dispatch delegation "d"`},
		"CompleteDelegation": {func() error {
			return s.CompleteDelegation(ctx, "d", DelegationCompletion{Event: []byte(`{}`)})
		}, `complete delegation "d"`},
		"DeleteDelegation":           {func() error { return s.DeleteDelegation(ctx, "d") }, `delete delegation "d"`},
		"PruneDelegations":           {func() error { _, err := s.PruneDelegations(ctx, DelegationRetention{}); return err }, "prune delegations"},
		"GetDelegation":              {func() error { _, err := s.GetDelegation(ctx, "d"); return err }, `get delegation "d"`},
		"ListDelegations":            {func() error { _, err := s.ListDelegations(ctx); return err }, "list delegations"},
		"UndeliveredDelegations":     {func() error { _, err := s.UndeliveredDelegations(ctx); return err }, "list undelivered delegations"},
		"ClaimDelegationDelivery":    {func() error { _, err := s.ClaimDelegationDelivery(ctx, "d", "c"); return err }, `claim delegation delivery "d"`},
		"ReleaseDelegationDelivery":  {func() error { _, err := s.ReleaseDelegationDelivery(ctx, "d", "c"); return err }, `release delegation delivery "d"`},
		"CompleteDelegationDelivery": {func() error { _, err := s.CompleteDelegationDelivery(ctx, "d", "c"); return err }, `complete delegation delivery "d"`},
		"MarkDelegationDelivered":    {func() error { _, err := s.MarkDelegationDelivered(ctx, "d"); return err }, `mark delegation delivered "d"`},
		"RecoverAbandonedDelegations": {func() error {
			_, err := s.RecoverAbandonedDelegations(ctx, func(int64, *int64) bool { return true })
			return err
		}, "recover abandoned delegations"},
		// Close again is nil (documented); Path and Stats cannot fail.
		"Close": {func() error { return s.Close() }, ""},
		"Path":  {func() error { s.Path(); return nil }, ""},
		"Stats": {func() error { s.Stats(); return nil }, ""},
	}
	var methods []string
	for m := range reflect.TypeFor[*Store]().Methods() {
		methods = append(methods, m.Name)
	}
	var listed []string
	for name := range calls {
		listed = append(listed, name)
	}
	slices.Sort(listed)
	if !slices.Equal(methods, listed) {
		t.Errorf("methods of *Store %v; the test lists %v", methods, listed)
	}
	var cases []errCase
	for name, c := range calls {
		if c.op == "" {
			if err := c.call(); err != nil {
				t.Errorf("%s after Close: %v, want nil", name, err)
			}
			continue
		}
		cases = append(cases, errCase{name, c.call, "store: " + c.op + ": " + ErrClosed.Error(), ErrClosed})
	}
	checkErrCases(t, cases)
}
