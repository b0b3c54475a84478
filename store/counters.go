package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"

	"github.com/hermesstate/hermesstate/db"
	"github.com/hermesstate/hermesstate/internal/backend"
	"github.com/hermesstate/hermesstate/internal/sqlnum"
)

// ErrCounterOverflow is returned by a write that would add past the int64
// range of a session counter (a token count, api_call_count,
// message_count or tool_call_count) or of a per-model usage counter. SQLite would store the sum as a REAL,
// which the original then reads as a float; the store refuses the write
// instead, and the database is unchanged.
var ErrCounterOverflow = errors.New("counter would overflow int64")

// counterAdd is one addition a write makes to a stored counter.
type counterAdd struct {
	column string
	value  sqlnum.Int
	delta  int64
}

// checkCounters reads session id's counters in the write transaction tx
// and returns ErrSessionNotFound when there is no such session, or an
// error matching ErrCounterOverflow for the first addition adds(row) makes
// that would leave the int64 range (see checkAdds).
func (s *Store) checkCounters(ctx context.Context, tx backend.Tx, id string, adds func(db.SessionCountersRow) []counterAdd) error {
	row, err := s.q.SessionCounters(ctx, tx, id)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrSessionNotFound
	}
	if err != nil {
		return err
	}
	return checkAdds(adds(row))
}

// checkAdds returns an error matching ErrCounterOverflow for the first of
// adds that would leave the int64 range. Only INTEGER values can overflow:
// SQL adds to NULL giving NULL (COALESCE'd ones start from 0), to a REAL
// giving a REAL, and to text or a BLOB as to its number.
func checkAdds(adds []counterAdd) error {
	for _, a := range adds {
		if !a.value.Valid || a.value.Stored != nil {
			continue
		}
		if v := a.value.Int64; a.delta > 0 && v > math.MaxInt64-a.delta || a.delta < 0 && v < math.MinInt64-a.delta {
			return fmt.Errorf("%w: %s is %d, adding %d", ErrCounterOverflow, a.column, v, a.delta)
		}
	}
	return nil
}

// tokenAdds are the additions of an incremental token update.
func tokenAdds(u TokenUpdate) func(db.SessionCountersRow) []counterAdd {
	return func(r db.SessionCountersRow) []counterAdd {
		return []counterAdd{
			{"input_tokens", r.InputTokens, u.InputTokens},
			{"output_tokens", r.OutputTokens, u.OutputTokens},
			{"cache_read_tokens", r.CacheReadTokens, u.CacheReadTokens},
			{"cache_write_tokens", r.CacheWriteTokens, u.CacheWriteTokens},
			{"reasoning_tokens", r.ReasoningTokens, u.ReasoningTokens},
			{"api_call_count", r.APICallCount, u.APICallCount},
		}
	}
}

// messageAdds are the additions of one appended message with calls tool
// calls.
func messageAdds(calls int) func(db.SessionCountersRow) []counterAdd {
	return func(r db.SessionCountersRow) []counterAdd {
		return []counterAdd{
			{"message_count", r.MessageCount, 1},
			{"tool_call_count", r.ToolCallCount, int64(calls)},
		}
	}
}

// usageAdds are the additions of an incremental token update to its
// route's session_model_usage row.
func usageAdds(u TokenUpdate, r db.UsageCountersRow) []counterAdd {
	return []counterAdd{
		{"session_model_usage.api_call_count", r.APICallCount, u.APICallCount},
		{"session_model_usage.input_tokens", r.InputTokens, u.InputTokens},
		{"session_model_usage.output_tokens", r.OutputTokens, u.OutputTokens},
		{"session_model_usage.cache_read_tokens", r.CacheReadTokens, u.CacheReadTokens},
		{"session_model_usage.cache_write_tokens", r.CacheWriteTokens, u.CacheWriteTokens},
		{"session_model_usage.reasoning_tokens", r.ReasoningTokens, u.ReasoningTokens},
	}
}
