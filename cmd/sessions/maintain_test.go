package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestPrune prunes the fixture's two ended sessions (deploy and refactor,
// both from March 2025) with --yes, by every form of age: a source narrows
// it, and the surviving children become roots.
func TestPrune(t *testing.T) {
	t.Parallel()
	path := fixtureCopy(t)
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"prune", "--yes", "--older-than", "36500d"}, "pruned 0 sessions\n"},
		{[]string{"prune", "--yes", "--older-than", "2025-03-01T08:59:59Z"}, "pruned 0 sessions\n"},
		{[]string{"prune", "--source", "telegram", "--older-than", "1w", "-y"}, "pruned 1 session\n"},
		{[]string{"--json", "prune", "--older-than=24h", "--dry-run"}, `{"pruned":1,"dry_run":true,"ids":["` + idDeploy + `"]}` + "\n"},
	}
	for _, s := range steps {
		if got := sessions(t, append([]string{"-db", path}, s.args...)...); got != s.want {
			t.Errorf("sessions %v: %q, want %q", s.args, got, s.want)
		}
	}
	if diff := cmp.Diff(text(idCJK, idRefactor2, idSubA1, idSubB, idSubA, idDeploy), listIDs(t, path)); diff != "" {
		t.Errorf("sessions after pruning telegram (-want +got):\n%s", diff)
	}
	if got := sessionsJSON[obj](t, "-db", path, "show", idRefactor2)["parent_session_id"]; got != nil {
		t.Errorf("the pruned session's child keeps parent %v, want none", got)
	}
	if got, want := sessions(t, "-db", path, "--json", "prune", "--older-than", "90", "--yes"), `{"pruned":1,"dry_run":false,"ids":["`+idDeploy+`"]}`+"\n"; got != want {
		t.Errorf("sessions --json prune: %q, want %q", got, want)
	}
	if diff := cmp.Diff(text(idCJK, idRefactor2, idSubA1, idSubB, idSubA), listIDs(t, path)); diff != "" {
		t.Errorf("sessions after pruning everything (-want +got):\n%s", diff)
	}
}

// TestVacuum vacuums a file from which sessions were pruned: the report
// gives the sizes before and after, and the file stays sound.
func TestVacuum(t *testing.T) {
	t.Parallel()
	path := fixtureCopy(t)
	sessions(t, "-db", path, "prune", "--older-than", "1d", "--yes")
	before, err := diskSize(path)
	if err != nil {
		t.Fatal(err)
	}
	out := sessions(t, "-db", path, "vacuum")
	after, err := diskSize(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%s: %s bytes before, %s after\n", path, formatInt(before), formatInt(after)); out != want {
		t.Errorf("sessions vacuum: %q, want %q", out, want)
	}
	if after > before {
		t.Errorf("vacuum grew the file from %d to %d bytes", before, after)
	}
	got := sessionsJSON[obj](t, "-db", path, "vacuum")
	if diff := cmp.Diff(obj{"bytes_before": float64(after), "bytes_after": float64(after)}, got); diff != "" {
		t.Errorf("sessions --json vacuum of a vacuumed file (-want +got):\n%s", diff)
	}
	if got := sessionsJSON[obj](t, "-db", path, "doctor")["ok"]; got != true {
		t.Errorf("doctor after vacuum: ok = %v", got)
	}
}

// TestStats totals the fixture's tokens and costs by model and by source,
// and lists the sessions that used tokens.
func TestStats(t *testing.T) {
	t.Parallel()
	top := []string{
		"ID                      TOKENS  EST. COST  MODEL            TITLE",
		"20250301_090000_a1a1a1  1,540   $0.0123    claude-sonnet-4  Deploy notes",
		"20250301_103000_f6f6f6  750     $0.0020    gpt-5            Refactor plan #2",
		"20250301_090200_b2b2b2  400     $0.0010    claude-haiku     -",
	}
	tests := []outputCase{
		// What each model was used for (session_model_usage): the
		// compression root, which used gpt-5 for nothing, does not count.
		{"ByModel", nil, text(append([]string{
			"MODEL            SESSIONS  CALLS  INPUT  OUTPUT  CACHE READ  CACHE WRITE  REASONING  EST. COST  ACTUAL COST",
			"claude-sonnet-4  1         0      1,200  340     0           0            0          $0.0123    $0.0000",
			"gpt-5            1         2      500    250     30          0            0          $0.0020    $0.0019",
			"claude-haiku     1         0      300    100     0           0            0          $0.0010    $0.0000",
			""}, top...)...)},
		{"BySource", []string{"--by", "source", "--top", "1"}, text(
			"SOURCE    SESSIONS  INPUT  OUTPUT  EST. COST",
			"cli       4         1,500  440     $0.0133",
			"telegram  2         500    250     $0.0020",
			"discord   1         0      0       $0.0000",
			"",
			top[0], top[1])},
		{"NoTop", []string{"--top", "0", "--by=source"}, text(
			"SOURCE    SESSIONS  INPUT  OUTPUT  EST. COST",
			"cli       4         1,500  440     $0.0133",
			"telegram  2         500    250     $0.0020",
			"discord   1         0      0       $0.0000")},
	}
	checkOutputs(t, "stats", tests)
	t.Run("JSON", func(t *testing.T) {
		t.Parallel()
		usage := func(model string, calls, in, out, cacheRead, est, act float64) obj {
			return obj{"model": model, "sessions": 1.0, "api_call_count": calls, "input_tokens": in, "output_tokens": out,
				"cache_read_tokens": cacheRead, "cache_write_tokens": 0.0, "reasoning_tokens": 0.0,
				"estimated_cost_usd": est, "actual_cost_usd": act}
		}
		top := []any{
			obj{"id": idDeploy, "title": "Deploy notes", "model": "claude-sonnet-4", "total_tokens": 1540.0, "estimated_cost_usd": 0.0123},
			obj{"id": idRefactor2, "title": "Refactor plan #2", "model": "gpt-5", "total_tokens": 750.0, "estimated_cost_usd": 0.002},
		}
		want := obj{"by": "model",
			"totals": []any{
				usage("claude-sonnet-4", 0, 1200, 340, 0, 0.0123, 0),
				usage("gpt-5", 2, 500, 250, 30, 0.002, 0.0019),
				usage("claude-haiku", 0, 300, 100, 0, 0.001, 0),
			},
			"top": top}
		if diff := cmp.Diff(want, sessionsJSON[obj](t, "-db", fixturePath, "stats", "--top", "2")); diff != "" {
			t.Errorf("sessions --json stats (-want +got):\n%s", diff)
		}
		want = obj{"by": "source",
			"totals": []any{
				obj{"key": "cli", "sessions": 4.0, "input_tokens": 1500.0, "output_tokens": 440.0, "estimated_cost_usd": 0.0133},
				obj{"key": "telegram", "sessions": 2.0, "input_tokens": 500.0, "output_tokens": 250.0, "estimated_cost_usd": 0.002},
				obj{"key": "discord", "sessions": 1.0, "input_tokens": 0.0, "output_tokens": 0.0, "estimated_cost_usd": 0.0},
			},
			"top": top}
		if diff := cmp.Diff(want, sessionsJSON[obj](t, "-db", fixturePath, "stats", "--top", "2", "--by", "source")); diff != "" {
			t.Errorf("sessions --json stats --by source (-want +got):\n%s", diff)
		}
	})
}

// TestParseAge reads prune's ages as Hermes does: a bare number is days;
// h, d and w are hours, days and weeks (any case, spaces around); an ISO
// date or date-time is that moment, local time unless it has a zone.
// Anything else, zero included, is a usage error: no minutes, months or
// fractions.
func TestParseAge(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	for in, want := range map[string]time.Time{
		"90": now.Add(-90 * day), "1": now.Add(-day), " 7 ": now.Add(-7 * day),
		"36h": now.Add(-36 * time.Hour), "90d": now.Add(-90 * day), "2w": now.Add(-14 * day), "2W": now.Add(-14 * day), "5 h": now.Add(-5 * time.Hour),
		"2025-06-01": time.Date(2025, 6, 1, 0, 0, 0, 0, time.Local), "2025-06-01 14:30": time.Date(2025, 6, 1, 14, 30, 0, 0, time.Local),
		"2025-06-01T14:30:15": time.Date(2025, 6, 1, 14, 30, 15, 0, time.Local), "2025-06-01t14:30:15.5": time.Date(2025, 6, 1, 14, 30, 15, 5e8, time.Local),
		"2025-06-01T14:30Z": time.Date(2025, 6, 1, 14, 30, 0, 0, time.UTC), "2025-06-01T14:30:00+02:00": time.Date(2025, 6, 1, 12, 30, 0, 0, time.UTC),
		"2999-01-01": time.Date(2999, 1, 1, 0, 0, 0, 0, time.Local),
	} {
		if got, err := parseAge("--older-than", in, now); err != nil || !got.Equal(want) {
			t.Errorf("parseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	notAnAge := `--older-than: %q is not an age: give days (90), hours, days or weeks (36h, 90d, 2w), or a date or time (2025-06-01, "2025-06-01 14:30")`
	for in, want := range map[string]string{
		"1m": notAnAge, "90m": notAnAge, "90min": notAnAge, "-3d": notAnAge, "1.5d": notAnAge, "3 days": notAnAge, "1y": notAnAge,
		"": notAnAge, "d": notAnAge, "1h30m": notAnAge, "2025-13-01": notAnAge, "01/06/2025": notAnAge, "ninety days": notAnAge,
		"0": `--older-than: %q is not an age: it must be more than 0`, "0d": `--older-than: %q is not an age: it must be more than 0`,
		"000":                 `--older-than: %q is not an age: it must be more than 0`,
		"9999999999999999999": `--older-than: %q is too long an age`, "200000000h": `--older-than: %q is too long an age`,
	} {
		_, err := parseAge("--older-than", in, now)
		if want := fmt.Sprintf(want, in); err == nil || err.Error() != want {
			t.Errorf("parseAge(%q): %v; want the error %q", in, err, want)
		}
	}
}

// TestPruneFilters narrows a prune of upstream's v21 file with upstream's
// filters: by default the archived chain's root is pruned with the other
// ended session (upstream's prune_sessions does not spare archived
// sessions); --no-archived spares it, --archived prunes only it; title,
// model, end reason, working directory and message counts narrow it
// further, and the summary line names each filter.
func TestPruneFilters(t *testing.T) {
	t.Parallel()
	path := copyTo(t, "upstream/state-v21.db")
	const cutoff = "2030-01-01"
	checkOutputsOn(t, path, "prune", []outputCase{
		{"Default", []string{"--older-than", cutoff, "--dry-run"}, text(
			"would prune 2 sessions (ended, started before 2030-01-01 00:00):",
			"  fx21-arch-root  Archived chain  cli  2026-12-03 07:46",
			"  fx21-parent     -               cli  2026-12-03 07:46")},
		{"NotArchived", []string{"--older-than", cutoff, "--dry-run", "--no-archived"}, text(
			"would prune 1 session (ended, started before 2030-01-01 00:00, not archived):",
			"  fx21-parent  -  cli  2026-12-03 07:46")},
		{"EndReason", []string{"--older-than", cutoff, "--dry-run", "--end-reason", "branched", "--model", "ALPHA"}, text(
			`would prune 1 session (ended, started before 2030-01-01 00:00, model ~ "ALPHA", ended by branched):`,
			"  fx21-parent  -  cli  2026-12-03 07:46")},
		{"Title", []string{"--older-than", cutoff, "--dry-run", "--title", "CHAIN", "--min-messages", "1", "--max-messages", "1"}, text(
			`would prune 1 session (ended, started before 2030-01-01 00:00, title ~ "CHAIN", 1 or more messages, 1 or fewer messages):`,
			"  fx21-arch-root  Archived chain  cli  2026-12-03 07:46")},
		{"NoneLeft", []string{"--older-than", cutoff, "--dry-run", "--cwd", "/projects", "--min-messages=2"}, text(
			"would prune 0 sessions (ended, started before 2030-01-01 00:00, in /projects, 2 or more messages)")},
	})
	failure(t, 2, []string{"sessions: prune: --archived and --no-archived exclude each other",
		"usage: sessions prune [-db PATH] [--json] --older-than AGE [--source S] [FILTERS] [--dry-run] [--yes] (-h for help)"},
		"-db", path, "prune", "--older-than", cutoff, "--archived", "--no-archived", "--dry-run")
	failure(t, 2, []string{`sessions: prune: invalid value "many" for flag -max-messages: parse error`,
		"usage: sessions prune [-db PATH] [--json] --older-than AGE [--source S] [FILTERS] [--dry-run] [--yes] (-h for help)"},
		"-db", path, "prune", "--older-than", cutoff, "--max-messages", "many")

	// On a copy of its own: the cases above run once this function returns.
	path = copyTo(t, "upstream/state-v21.db")
	if got, want := sessions(t, "-db", path, "--json", "prune", "--older-than", cutoff, "--archived", "--yes"),
		`{"pruned":1,"dry_run":false,"ids":["fx21-arch-root"]}`+"\n"; got != want {
		t.Errorf("prune --archived: %q, want %q", got, want)
	}
	// Its continuation is left, a root now, still archived.
	if diff := cmp.Diff(text(
		"ID             TITLE  PREVIEW                      LAST ACTIVE       MSGS  SOURCE  MODEL    FLAGS",
		"fx21-arch-tip  -      continued after compression  2026-12-03 07:46  1     cli     alpha-1  archived",
	), sessions(t, "-db", path, "list", "--all", "--archived")); diff != "" {
		t.Errorf("list --all --archived after the prune (-want +got):\n%s", diff)
	}
}
