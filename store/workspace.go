package store

import (
	"context"
	"slices"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/pytext"
)

// Workspace records where a frontend runs a session; empty fields are not
// written (see UpdateSessionCwd).
type Workspace struct {
	// Cwd is the working directory.
	Cwd string
	// GitBranch is the branch checked out in Cwd; GitRepoRoot the root of
	// the repository Cwd belongs to. Each is stripped of surrounding
	// whitespace (Python's str.strip()).
	GitBranch, GitRepoRoot string
}

// UpdateSessionCwd is upstream's update_session_cwd: it records session
// id's working directory and, when not empty after stripping, its git
// branch and repository root, so that a failed probe (an empty value)
// never clobbers a value recorded earlier. An empty id or cwd writes
// nothing (and is no error), as upstream.
//
// It returns ErrSessionNotFound (upstream updates nothing silently),
// ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) UpdateSessionCwd(ctx context.Context, id string, w Workspace) (err error) {
	defer wrapOn(&err, "update cwd of", id)
	if err := checkTexts("cwd", w.Cwd, "git branch", w.GitBranch, "git repo root", w.GitRepoRoot); err != nil {
		return err
	}
	if id == "" || w.Cwd == "" {
		return nil
	}
	p := db.SessionSetCwdParams{
		Cwd:         &w.Cwd,
		GitBranch:   nullable(pytext.Strip(w.GitBranch)),
		GitRepoRoot: nullable(pytext.Strip(w.GitRepoRoot)),
		ID:          id,
	}
	return s.update(ctx, id, func(ctx context.Context, tx backend.Tx) (int64, error) {
		return s.q.SessionSetCwd(ctx, tx, p)
	})
}

// BackfillRepoRoots is upstream's backfill_repo_roots: for every cwd, root
// pair of cwdToRoot with both not empty, the sessions of that cwd without
// a repository root (NULL or "") get root; recorded roots are kept. All in
// one transaction. It returns how many sessions it changed.
//
// It returns ErrInvalidText, ErrBusy or ErrClosed.
func (s *Store) BackfillRepoRoots(ctx context.Context, cwdToRoot map[string]string) (_ int64, err error) {
	defer wrap(&err, "backfill repo roots")
	cwds := make([]string, 0, len(cwdToRoot))
	for cwd, root := range cwdToRoot {
		if err := checkTexts("cwd", cwd, "git repo root", root); err != nil {
			return 0, err
		}
		if cwd != "" && root != "" {
			cwds = append(cwds, cwd)
		}
	}
	if len(cwds) == 0 {
		return 0, nil
	}
	slices.Sort(cwds) // one order for every run
	var changed int64
	err = s.write(ctx, func(ctx context.Context, tx backend.Tx) error {
		changed = 0
		for _, cwd := range cwds {
			n, err := s.q.SessionBackfillRepoRoot(ctx, tx, db.SessionBackfillRepoRootParams{
				GitRepoRoot: new(cwdToRoot[cwd]), Cwd: &cwd})
			if err != nil {
				return err
			}
			changed += n
		}
		return nil
	})
	return changed, err
}

// WorkspaceKey is upstream's workspace_key: the key sessions are grouped
// by workspace under, the git repository root when one is recorded, else
// the cwd, each stripped of surrounding whitespace; "" for a session with
// neither (upstream's None). The branch is left out on purpose: checking
// out another branch stays in the same workspace.
func WorkspaceKey(s Session) string {
	if root := pytext.Strip(deref(s.GitRepoRoot)); root != "" {
		return root
	}
	return pytext.Strip(deref(s.Cwd))
}
