package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"unicode"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/fts"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pytext"
)

// MaxTitleLength is the longest title, in code points after sanitising.
const MaxTitleLength = pytext.MaxTitleLength

// SanitizeTitle cleans a title exactly as the original's sanitize_title:
// control and invisible characters (zero-width, bidi overrides, BOM) are
// removed, every run of Unicode whitespace becomes one space, and the ends
// are trimmed. It returns "" when nothing is left (the original's None), or
// an error matching ErrTitleTooLong when more than MaxTitleLength code
// points remain: "store: sanitize title: Title too long (101 chars, max
// 100)", the original's words after the operation.
func SanitizeTitle(title string) (_ string, err error) {
	defer wrap(&err, "sanitize title")
	return pytext.SanitizeTitle(title)
}

// SetSessionTitle sanitises title and sets it on session id; an empty result
// clears the title. Titles are unique among sessions (case-sensitively);
// re-setting a session's own title is allowed. When the session holding the
// title is a compression ancestor of id (reached by walking up parents,
// each step from a child whose parent ended by compression), the title
// moves: the ancestor's title is cleared and id gets it, in one
// transaction, as upstream does so that the visible tip of a compressed
// conversation can take back the base title its hidden root holds.
//
// It returns an error matching ErrTitleTooLong (before anything is read),
// ErrTitleInUse (a *TitleInUseError naming the holder; checked even when the
// session does not exist, as in the original), ErrSessionNotFound,
// ErrInvalidText, ErrBusy or ErrClosed; on error nothing is written.
func (s *Store) SetSessionTitle(ctx context.Context, id, title string) (err error) {
	defer wrapOn(&err, "set title of", id)
	if err := checkTexts("session id", id, "title", title); err != nil {
		return err
	}
	clean, err := pytext.SanitizeTitle(title)
	if err != nil {
		return err
	}
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		if err := s.q.LockTitles(ctx, tx); err != nil {
			return 0, err
		}
		if clean != "" {
			owner, err := s.q.SessionTitleOwner(ctx, tx, db.SessionTitleOwnerParams{Title: &clean, ID: id})
			switch {
			case err == nil:
				moved, err := s.takeTitleFromAncestor(ctx, tx, owner, id)
				if err != nil {
					return 0, err
				}
				if !moved {
					return 0, &TitleInUseError{Title: clean, SessionID: owner}
				}
			case !errors.Is(err, sql.ErrNoRows):
				return 0, err
			}
		}
		n, err := s.q.SessionSetTitle(ctx, tx, db.SessionSetTitleParams{Title: nullable(clean), ID: id})
		if isUnique(err) {
			// Unreachable while every writer checks first inside its write
			// transaction; kept so a foreign writer cannot surface a raw
			// constraint error.
			return 0, &TitleInUseError{Title: clean}
		}
		return n, err
	})
}

// takeTitleFromAncestor clears the title of owner when it is a compression
// ancestor of id, reporting whether it did.
func (s *Store) takeTitleFromAncestor(ctx context.Context, tx backend.Tx, owner, id string) (bool, error) {
	if owner == "" || id == "" || owner == id {
		return false, nil // upstream's _is_compression_ancestor guard
	}
	found, err := s.q.SessionIsCompressionAncestor(ctx, tx, db.SessionIsCompressionAncestorParams{Ancestor: owner, Descendant: id})
	if err != nil || found == 0 {
		return false, err
	}
	_, err = s.q.SessionSetTitle(ctx, tx, db.SessionSetTitleParams{Title: nil, ID: owner})
	return err == nil, err
}

// SessionTitle returns a session's title, "" when it has none.
//
// It returns ErrSessionNotFound or ErrClosed.
func (s *Store) SessionTitle(ctx context.Context, id string) (_ string, err error) {
	defer wrapOn(&err, "get title of", id)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (string, error) {
		t, err := s.q.SessionGetTitle(ctx, q, id)
		if errors.Is(err, sql.ErrNoRows) {
			return "", ErrSessionNotFound
		}
		return deref(t), err
	})
}

// SessionByTitle returns the session with exactly this title
// (case-sensitive; the title is not sanitised).
//
// It returns ErrNotFound or ErrClosed.
func (s *Store) SessionByTitle(ctx context.Context, title string) (_ *Session, err error) {
	defer wrapOn(&err, "get session titled", title)
	return readOne(s, ctx, func(ctx context.Context, q backend.Tx) (*Session, error) {
		return foundSession(s.q.SessionGetByTitle(ctx, q, &title))
	})
}

// ResolveSessionByTitle returns the session a title refers to: the most
// recently started numbered variant ("title #2", "title #3", …) when one
// exists, else the session with exactly that title. As in the original, the
// variant match is SQLite LIKE: ASCII case-insensitive, and any suffix after
// " #" counts ("title #abc"); the title's own % and _ are literal. A title
// too long for a LIKE pattern (maxLikePattern) has no variants.
//
// It returns ErrNotFound or ErrClosed.
func (s *Store) ResolveSessionByTitle(ctx context.Context, title string) (_ string, err error) {
	defer wrapOn(&err, "resolve title", title)
	return read(s, ctx, func(ctx context.Context, q backend.Tx) (string, error) {
		// A NULL pattern matches nothing: no variant, so the exact title.
		id, err := s.q.SessionLatestTitleVariant(ctx, q, likePrefix(title, " #%"))
		if err == nil || !errors.Is(err, sql.ErrNoRows) {
			return id, err
		}
		r, err := s.q.SessionGetByTitle(ctx, q, &title)
		if errors.Is(err, sql.ErrNoRows) {
			return "", ErrNotFound
		}
		return r.ID, err
	})
}

var (
	// numberedTitle is the original's r'^(.*?) #(\d+)$': a title ending in
	// " #<digits>". Python's \d is any Unicode decimal digit, hence \p{Nd}.
	numberedTitle = regexp.MustCompile(`^(.*?) #(\p{Nd}+)$`)
	// anyNumberedTitle is r'^.* #(\d+)$' (greedy: the last " #n").
	anyNumberedTitle = regexp.MustCompile(`^.* #(\p{Nd}+)$`)
)

// NextTitleInLineage returns the title for the next session of a lineage:
// the base title (baseTitle without a trailing " #n") when no session uses
// it, else "base #N" with N one more than the highest number in use (at
// least 2).
//
// It returns ErrClosed.
func (s *Store) NextTitleInLineage(ctx context.Context, baseTitle string) (_ string, err error) {
	defer wrapOn(&err, "next title in lineage of", baseTitle)
	base := lineageBase(baseTitle)
	return read(s, ctx, func(ctx context.Context, q backend.Tx) (string, error) {
		return s.nextTitle(ctx, q, base)
	})
}

// nextTitle is NextTitleInLineage for base (its " #n" already cut) inside
// q's transaction.
func (s *Store) nextTitle(ctx context.Context, q backend.Tx, base string) (string, error) {
	titles, err := s.q.SessionLineageTitles(ctx, q, db.SessionLineageTitlesParams{
		Base: &base, Pattern: likePrefix(base, " #%"), // NULL (no variants) when too long
	})
	if err != nil || len(titles) == 0 {
		return base, err
	}
	// Python ints are unbounded: "x #99999999999999999999" continues
	// as "x #100000000000000000000", so the numbers are big.Ints.
	highest := big.NewInt(1)
	for _, t := range titles {
		if m := anyNumberedTitle.FindStringSubmatch(t); m != nil {
			if n, ok := new(big.Int).SetString(asciiDigits(m[1]), 10); ok && n.Cmp(highest) > 0 {
				highest = n
			}
		}
	}
	return fmt.Sprintf("%s #%s", base, highest.Add(highest, big.NewInt(1))), nil
}

// maxLikePattern is SQLite's SQLITE_MAX_LIKE_PATTERN_LENGTH (its default,
// which the bundled library keeps): a longer LIKE pattern fails the whole
// statement with "LIKE or GLOB pattern too complex", an SQLITE_ERROR no
// code tells from any other.
const maxLikePattern = 50_000

// likePrefix is the LIKE pattern for text matched literally followed by
// suffix (a LIKE pattern itself), or nil when the pattern would pass
// maxLikePattern bytes: no stored id or title that long is looked up by a
// pattern (an exact id or title is still found by =).
func likePrefix(text, suffix string) *string {
	p := fts.EscapeLike(text) + suffix
	if len(p) > maxLikePattern {
		return nil
	}
	return &p
}

// lineageBase is title without a trailing " #n".
func lineageBase(title string) string {
	if m := numberedTitle.FindStringSubmatch(title); m != nil {
		return m[1]
	}
	return title
}

// asciiDigits maps Unicode decimal digits (\p{Nd}) to 0-9, as Python's int()
// reads them. Unicode assigns every decimal digit in runs of ten from zero to
// nine, so a digit's value is its distance from the start of its run mod 10.
func asciiDigits(s string) string {
	out := make([]byte, 0, len(s))
	for _, r := range s {
		start := r
		for unicode.Is(unicode.Nd, start-1) {
			start--
		}
		out = append(out, byte('0'+(r-start)%10))
	}
	return string(out)
}
