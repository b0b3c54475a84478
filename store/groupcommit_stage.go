package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
)

// Staged message inserts: FTS5 writes the terms a transaction added to
// its index as a new segment whenever a savepoint opens over it, and every
// statement that may abort halfway opens one (a statement journal) — an
// INSERT into messages, whose triggers write both full-text indexes, is
// one. So the appends of a group, each its own INSERT, write one segment
// per message to each index, as if each had its own transaction: measured
// at 40 µs a message in one transaction against 8 µs when one statement
// inserts them all.
//
// In a group of two or more, an append therefore stages its message
// instead of inserting it (stageMessage), after its other statements, and
// the group inserts the staged messages with one multi-row INSERT: before
// the first member that is not an append (so that it sees them, as in
// serial order) and before COMMIT. The rows, their order and their ids are
// what the single INSERTs would have written: each row's values are the
// generated MessageInsert's own arguments, VALUES inserts in order, and
// AUTOINCREMENT gives the rows of one statement consecutive ids. When that
// INSERT fails (a message whose session is gone, say) the transaction is
// rolled back and the group runs again without staging, so each append
// gets its own outcome.

// stager collects the messages the appends of one group's transaction
// staged.
type stager struct {
	rows []stagedRow
}

// stagedRow is one staged message: the generated INSERT's arguments, and
// where its id goes once inserted.
type stagedRow struct {
	args []any
	id   *int64
}

// stagerKey is the context key of the group's stager.
type stagerKey struct{}

// stageMessage inserts message p, or stages it when ctx carries a group's
// stager, setting *id to its id either way (a staged message's once the
// group inserted it, before its caller returns). It is the last statement
// of an append: nothing after it in the write may read the message.
func (s *Store) stageMessage(ctx context.Context, tx backend.Tx, p db.MessageInsertParams, id *int64) error {
	st, _ := ctx.Value(stagerKey{}).(*stager)
	if st == nil {
		var err error
		*id, err = s.insertMessage(ctx, tx, p)
		return err
	}
	_, args := statementOf(func(c backend.Tx) error {
		_, err := s.q.MessageInsert(ctx, c, p)
		return err
	})
	st.rows = append(st.rows, stagedRow{args: args, id: id})
	return nil
}

// flush inserts the staged messages in one statement and sets their ids.
// On an error nothing of it is written (a statement's own changes are
// undone) and the rows stay staged.
func (st *stager) flush(ctx context.Context, s *Store, tx *sql.Tx) error {
	k := len(st.rows)
	if k == 0 {
		return nil
	}
	query, err := multiInsertSQL(s, tx, k)
	if err != nil {
		return err
	}
	args := make([]any, 0, k*len(st.rows[0].args))
	for _, r := range st.rows {
		args = append(args, r.args...)
	}
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("insert %d staged messages: %w", k, err)
	}
	last, err := res.LastInsertId()
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(k) {
		return fmt.Errorf("insert %d staged messages: %d rows (%v)", k, n, err)
	}
	for i, r := range st.rows {
		*r.id = last - int64(k-1-i)
	}
	st.rows = st.rows[:0]
	return nil
}

// errNotAutoincrement refuses staging on a file whose messages table has
// no AUTOINCREMENT: there a multi-row INSERT's ids are consecutive too,
// except once the largest id is the largest int64, and the store does not
// rely on that.
var errNotAutoincrement = errors.New("messages has no AUTOINCREMENT")

// autoincrementSQL asks whether the messages table is declared with
// AUTOINCREMENT (upstream's DDL since v1 is). Hand-written: sqlite_master
// is not a table sqlc knows.
const autoincrementSQL = `SELECT COUNT(*) FROM sqlite_master
WHERE type = 'table' AND name = 'messages' AND sql LIKE '%AUTOINCREMENT%'`

// multiInsert holds the multi-row forms of MessageInsert, by row count.
var multiInsert struct {
	sync.Mutex
	head, tuple string // MessageInsert up to VALUES, and its one row
	params      int    // the ?N parameters of one row
	byRows      map[int]string
}

// placeholder matches a numbered parameter of the generated statement.
var placeholder = regexp.MustCompile(`\?([0-9]+)`)

// multiInsertSQL returns MessageInsert's text with k rows of VALUES, the
// parameters of row i numbered after those of the rows before it. The
// text is the generated statement's own (captured from its call), so the
// columns and values stay sqlc's; the first call per Store also checks the
// file's messages table for AUTOINCREMENT, on tx.
func multiInsertSQL(s *Store, tx *sql.Tx, k int) (string, error) {
	if !s.stageChecked.Load() {
		var n int
		if err := tx.QueryRow(autoincrementSQL).Scan(&n); err != nil {
			return "", err
		}
		if n != 1 {
			s.stageRefused.Store(true) // later groups do not stage
			return "", errNotAutoincrement
		}
		s.stageChecked.Store(true)
	}
	m := &multiInsert
	m.Lock()
	defer m.Unlock()
	if m.byRows == nil {
		query, args := statementOf(func(c backend.Tx) error {
			_, err := s.q.MessageInsert(context.Background(), c, db.MessageInsertParams{})
			return err
		})
		i := strings.LastIndex(query, "VALUES")
		if i < 0 {
			return "", fmt.Errorf("MessageInsert has no VALUES: %q", query)
		}
		m.head, m.tuple, m.params = query[:i+len("VALUES")], strings.TrimSpace(query[i+len("VALUES"):]), len(args)
		m.byRows = map[int]string{}
	}
	if q, ok := m.byRows[k]; ok {
		return q, nil
	}
	var b strings.Builder
	b.WriteString(m.head)
	for i := range k {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
		b.WriteString(placeholder.ReplaceAllStringFunc(m.tuple, func(p string) string {
			n, _ := strconv.Atoi(p[1:])
			return "?" + strconv.Itoa(n+i*m.params)
		}))
	}
	m.byRows[k] = b.String()
	return m.byRows[k], nil
}
