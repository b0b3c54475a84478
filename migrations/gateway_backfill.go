package migrations

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"

	"github.com/hermesstate/hermesstate/internal/sqlite"
)

// backfillGatewayMetadata is upstream's v18 data step
// (_backfill_gateway_metadata_from_sessions_json): for each entry of the
// gateway's sessions.json at path, in file order, it fills the session's
// gateway columns that are still NULL (v21/backfill_v18.sql) and raises
// expiry_finalized when the entry says so. It returns how many sessions the
// entries matched.
//
// As upstream, every problem with the file itself is not an error: a missing
// file copies nothing; one that cannot be read, is not JSON Python reads, or
// is not an object copies nothing (logged); a key starting with "_", an
// entry that is not an object or has no true session_id is skipped; an
// entry holding a value Python's sqlite3 cannot bind (a list or a dict where
// a column value goes, an int outside 64 bits) ends the step there, keeping
// what the entries before it copied (upstream's exception, caught around
// the whole loop). Each entry binds exactly what upstream binds: session_key
// (or the key), origin.chat_id, chat_type, origin.thread_id, display_name,
// json.dumps(origin) (Python's text), 1 when expiry_finalized or
// memory_flushed is true (else 0), and str(session_id).
//
// Differences, for files no gateway writes: a file with a lone surrogate
// escape (\ud800) in a string is skipped whole, and an entry whose
// session_id is a list or a dict (str() of which is Python's repr) is
// skipped. An error from SQLite itself fails the step (the migration rolls
// back); upstream would log it and carry on.
func backfillGatewayMetadata(ctx context.Context, conn dbConn, path string, log *slog.Logger) (int64, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	skip := func(why string, err error) (int64, error) {
		log.InfoContext(ctx, "v18 gateway metadata backfill skipped",
			slog.String("file", path), slog.String("reason", why), slog.Any("error", err))
		return 0, nil
	}
	same, err := isDatabaseFile(ctx, conn, path)
	if err != nil {
		return 0, err
	}
	if same != "" {
		return skip("the file is the database's "+same, nil)
	}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, nil
	case err != nil:
		return skip("cannot read the file", err)
	}
	root, err := parsePy(string(b))
	if err != nil {
		return skip("not JSON", err)
	}
	data, ok := root.(*pyObject)
	if !ok {
		return skip("not a JSON object", nil)
	}
	matched := int64(0)
	for _, key := range data.keys {
		entry, ok := data.get(key).(*pyObject)
		if strings.HasPrefix(key, "_") || !ok {
			continue
		}
		args, err := gatewayBackfillArgs(key, entry)
		if errors.Is(err, errSkipEntry) {
			continue
		}
		if err != nil {
			log.InfoContext(ctx, "v18 gateway metadata backfill stopped",
				slog.String("file", path), slog.String("key", key), slog.Any("error", err))
			return matched, nil
		}
		res, err := conn.ExecContext(ctx, backfillV18SQL, args...)
		if err != nil {
			return matched, fmt.Errorf("v18 backfill of %s: %w", key, sqlite.Classify(err))
		}
		n, err := res.RowsAffected()
		if err != nil {
			return matched, err
		}
		matched += n
	}
	return matched, nil
}

// errSkipEntry is gatewayBackfillArgs' answer for an entry upstream passes
// over (no true session_id), or one this port does (a list or dict id).
var errSkipEntry = errors.New("entry skipped")

// gatewayBackfillArgs returns the eight parameters of backfill_v18.sql for
// one sessions.json entry.
func gatewayBackfillArgs(key string, entry *pyObject) ([]any, error) {
	sessionID := entry.get("session_id")
	if !pyTruthy(sessionID) {
		return nil, errSkipEntry
	}
	id, ok := pyStr(sessionID)
	if !ok {
		return nil, errSkipEntry
	}
	sessionKey := entry.get("session_key")
	if !pyTruthy(sessionKey) {
		sessionKey = key
	}
	var chatID, threadID, originJSON pyValue
	if origin, ok := entry.get("origin").(*pyObject); ok {
		chatID, threadID = origin.get("chat_id"), origin.get("thread_id")
		text, err := pyDumps(origin)
		if err != nil {
			return nil, err
		}
		originJSON = text
	}
	expiry := int64(0)
	if pyTruthy(entry.get("expiry_finalized")) || pyTruthy(entry.get("memory_flushed")) {
		expiry = 1
	}
	values := []pyValue{sessionKey, chatID, entry.get("chat_type"), threadID, entry.get("display_name"), originJSON}
	args := make([]any, 0, len(values)+2)
	for i, v := range values {
		a, err := pyBind(v)
		if err != nil {
			return nil, fmt.Errorf("parameter %d: %w", i+1, err)
		}
		args = append(args, a)
	}
	return append(args, expiry, id), nil
}

// mainFileSQL names the file of the database conn is on ("" in memory).
const mainFileSQL = "SELECT file FROM pragma_database_list WHERE name = 'main'"

// isDatabaseFile reports whether path is (by file identity: a link
// counts) the database conn is on or its -wal or -shm file: which of them,
// or "". Reading such a file would close a descriptor of ours on it, and
// closing any descriptor on a database file drops every POSIX lock the
// process holds on it, the migration's write lock included. A path that
// cannot be examined is not the database: os.ReadFile then fails as usual.
func isDatabaseFile(ctx context.Context, conn dbConn, path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", nil
	}
	rows, err := conn.QueryContext(ctx, mainFileSQL)
	if err != nil {
		return "", fmt.Errorf("v18: name the database file: %w", sqlite.Classify(err))
	}
	defer rows.Close()
	var file string
	for rows.Next() {
		if err := rows.Scan(&file); err != nil {
			return "", err
		}
	}
	if err := rows.Err(); err != nil {
		return "", sqlite.Classify(err)
	}
	if file == "" {
		return "", nil
	}
	for _, f := range []struct{ what, path string }{{"file", file}, {"-wal file", file + "-wal"}, {"-shm file", file + "-shm"}} {
		if di, err := os.Stat(f.path); err == nil && os.SameFile(fi, di) {
			return f.what, nil
		}
	}
	return "", nil
}
