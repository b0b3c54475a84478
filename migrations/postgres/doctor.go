package pgmigrations

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/hermesstate/hermesstate/migrations"
)

var (
	// ErrNotUTF8 reports a database whose encoding is not UTF8 or whose
	// LC_CTYPE (pg_database.datctype) is not a UTF-8 locale. pg_trgm
	// classifies characters by the ctype: under "C" a CJK text has no
	// trigrams at all (show_trgm('数据库迁移') is {}), so the trigram and
	// short-CJK search routes would find nothing. Create the database with
	// ENCODING 'UTF8' LC_CTYPE 'C.UTF-8' (or any UTF-8 locale).
	ErrNotUTF8 = errors.New("the database's character type is not UTF-8")
	// ErrMissingExtension reports that pg_trgm is not installed in the
	// database (Up installs it; it is a trusted extension, so the
	// database's owner may).
	ErrMissingExtension = errors.New("extension pg_trgm is not installed")
	// ErrMissingIndex reports an index of the schema that is missing, or
	// present but invalid (a failed CREATE INDEX CONCURRENTLY leaves one).
	ErrMissingIndex = errors.New("index missing or invalid")
	// ErrSchemaVersion reports a schema_version other than [Latest]. Above
	// it the error matches [migrations.ErrNewerSchema] too.
	ErrSchemaVersion = errors.New("the schema is not at the version this build needs")
)

// Querier is what [Check] and [CheckUTF8] read through: *pgxpool.Pool,
// *pgx.Conn and pgx.Tx satisfy it.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Finding is the outcome of one check.
type Finding struct {
	// Check names what was checked: "extension pg_trgm", "ctype",
	// "cjk trigrams", "index idx_sessions_source", "schema version".
	Check string
	// Detail is what was found, e.g. "1.6", "C.UTF-8, encoding UTF8",
	// "on sessions", "missing", "21".
	Detail string
	// Err is nil when the check passed; otherwise it matches one of
	// ErrNotUTF8, ErrMissingExtension, ErrMissingIndex or ErrSchemaVersion.
	Err error
}

// Problems returns the findings' errors joined (errors.Join), nil when
// every check passed.
func Problems(findings []Finding) error {
	var errs []error
	for _, f := range findings {
		if f.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Check, f.Err))
		}
	}
	return errors.Join(errs...)
}

// Hand-written catalogue reads: doctor looks at PostgreSQL's own tables,
// which no sqlc query covers.
const (
	sqlDatabaseCtype = "SELECT pg_encoding_to_char(encoding), datctype FROM pg_database WHERE datname = current_database()"
	sqlTrgmVersion   = "SELECT extversion FROM pg_extension WHERE extname = 'pg_trgm'"
	// What ErrNotUTF8 is about, asked of pg_trgm itself: how many trigrams
	// a CJK word has in this database (none under a non-UTF-8 ctype).
	sqlCJKTrigrams = "SELECT cardinality(show_trgm('数据库迁移'))"
	// The indexes of the current schema (where the unqualified DDL put
	// them), with their table and validity.
	sqlIndexes = `SELECT ic.relname, tc.relname, i.indisvalid
FROM pg_index i
JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_class tc ON tc.oid = i.indrelid
JOIN pg_namespace n ON n.oid = ic.relnamespace
WHERE n.nspname = current_schema()`
)

// CheckUTF8 returns an error matching [ErrNotUTF8], naming the encoding and
// ctype found, when the database q is connected to is not UTF-8 in both;
// nil when it is. Open and Up refuse such a database.
func CheckUTF8(ctx context.Context, q Querier) error {
	var enc, ctype string
	if err := q.QueryRow(ctx, sqlDatabaseCtype).Scan(&enc, &ctype); err != nil {
		return err
	}
	return utf8Ctype(enc, ctype)
}

// utf8Ctype returns ErrNotUTF8 unless encoding is UTF8 and ctype names a
// UTF-8 locale ("C.UTF-8", "en_US.utf8", …).
func utf8Ctype(encoding, ctype string) error {
	c := strings.ToLower(ctype)
	if encoding == "UTF8" && (strings.HasSuffix(c, ".utf8") || strings.HasSuffix(c, ".utf-8") || strings.Contains(c, ".utf8@") || strings.Contains(c, ".utf-8@")) {
		return nil
	}
	return fmt.Errorf("%w: encoding %s, LC_CTYPE %q (create it with ENCODING 'UTF8' LC_CTYPE 'C.UTF-8')", ErrNotUTF8, encoding, ctype)
}

// schemaIndexes returns the names and tables of the indexes the embedded
// migrations' Up sections create, in file order.
func schemaIndexes() ([][2]string, error) {
	re := regexp.MustCompile(`(?m)^CREATE (?:UNIQUE )?INDEX (\w+) ON (\w+)`)
	var out [][2]string
	for _, name := range Names() {
		b, err := FS.ReadFile(name)
		if err != nil {
			return nil, err
		}
		up, _, _ := strings.Cut(string(b), "-- +goose Down")
		for _, m := range re.FindAllStringSubmatch(up, -1) {
			out = append(out, [2]string{m[1], m[2]})
		}
	}
	return out, nil
}

// Check looks at the database q is connected to and returns one finding
// per check, in this order: the ctype (ErrNotUTF8), pg_trgm
// (ErrMissingExtension), CJK trigrams when pg_trgm is there and the
// encoding is UTF8 (ErrNotUTF8),
// every index the migrations create (ErrMissingIndex), the schema version
// (ErrSchemaVersion). It writes nothing. Its error is a failure to read,
// never a failed check.
func Check(ctx context.Context, q Querier) ([]Finding, error) {
	var out []Finding

	var enc, ctype string
	if err := q.QueryRow(ctx, sqlDatabaseCtype).Scan(&enc, &ctype); err != nil {
		return nil, err
	}
	out = append(out, Finding{Check: "ctype", Detail: ctype + ", encoding " + enc, Err: utf8Ctype(enc, ctype)})

	var trgm string
	switch err := q.QueryRow(ctx, sqlTrgmVersion).Scan(&trgm); {
	case errors.Is(err, pgx.ErrNoRows):
		out = append(out, Finding{Check: "extension pg_trgm", Detail: "not installed", Err: ErrMissingExtension})
	case err != nil:
		return nil, err
	default:
		out = append(out, Finding{Check: "extension pg_trgm", Detail: trgm})
		if enc != "UTF8" {
			break // the CJK word would not even reach a non-UTF8 database
		}
		var n int
		if err := q.QueryRow(ctx, sqlCJKTrigrams).Scan(&n); err != nil {
			return nil, err
		}
		f := Finding{Check: "cjk trigrams", Detail: fmt.Sprintf("%d trigrams in a five-character CJK word", n)}
		if n == 0 {
			f.Err = fmt.Errorf("%w: pg_trgm finds no trigrams in CJK text here", ErrNotUTF8)
		}
		out = append(out, f)
	}

	want, err := schemaIndexes()
	if err != nil {
		return nil, err
	}
	type index struct {
		table string
		valid bool
	}
	have := map[string]index{}
	rows, err := q.Query(ctx, sqlIndexes)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var name string
		var ix index
		if err := rows.Scan(&name, &ix.table, &ix.valid); err != nil {
			rows.Close()
			return nil, err
		}
		have[name] = ix
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, w := range want {
		f := Finding{Check: "index " + w[0], Detail: "on " + w[1]}
		switch ix, ok := have[w[0]]; {
		case !ok:
			f.Detail, f.Err = "missing", ErrMissingIndex
		case ix.table != w[1]:
			f.Detail, f.Err = "on "+ix.table+", not "+w[1], ErrMissingIndex
		case !ix.valid:
			f.Detail, f.Err = "invalid (a failed concurrent build?): drop it and run migrate up", ErrMissingIndex
		}
		out = append(out, f)
	}

	v, err := ReadVersionOf(ctx, q)
	if err != nil {
		return nil, err
	}
	f := Finding{Check: "schema version", Detail: fmt.Sprint(v)}
	switch {
	case v > Latest:
		f.Err = fmt.Errorf("%w: %w", ErrSchemaVersion, migrations.CheckVersion(v))
	case v != Latest:
		f.Err = fmt.Errorf("%w: %d, want %d (run migrate up)", ErrSchemaVersion, v, Latest)
	}
	return append(out, f), nil
}

// ReadVersionOf is ReadVersion through pgx (a *pgxpool.Pool, *pgx.Conn or
// pgx.Tx), for callers that hold no database/sql handle: the store. It
// returns 0 when the table is missing or empty, or the read's error.
func ReadVersionOf(ctx context.Context, q Querier) (int64, error) {
	var exists bool
	if err := q.QueryRow(ctx, sqlVersionTableExists).Scan(&exists); err != nil || !exists {
		return 0, err
	}
	var v int64
	err := q.QueryRow(ctx, sqlGetVersion).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	return v, err
}
