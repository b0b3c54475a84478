package backend

import (
	"context"

	"github.com/hermesstate/hermesstate/db"
	pgdb "github.com/hermesstate/hermesstate/db/postgres"
	"github.com/hermesstate/hermesstate/internal/pgsearch"
)

// The two queries that write a message's text on PostgreSQL also write its
// row of messages_search (the unicode61 route's index, tokenised in Go by
// package fts), in the same transaction: what SQLite's FTS triggers do.
// The index is made from the content as the store wrote it (structured
// content's U+0000 separates tokens as its stored U+0001 would).

// MessageInsert inserts the message and indexes it.
func (p postgresQueries) MessageInsert(ctx context.Context, tx Tx, arg db.MessageInsertParams) (int64, error) {
	pa := pgdb.MessageInsertParams(arg)
	pa.Content = encodeContent(pa.Content)
	if err := noNUL(messageTexts(pa.SessionID, pa.Role, pa.Content, pa.ToolCallID, pa.ToolCalls, pa.ToolName,
		pa.EffectDisposition, pa.FinishReason, pa.Reasoning, pa.ReasoningContent, pa.ReasoningDetails,
		pa.CodexReasoningItems, pa.CodexMessageItems, pa.PlatformMessageID)...); err != nil {
		return 0, err
	}
	id, err := p.q.MessageInsert(ctx, tx.PG, pa)
	if err != nil {
		return 0, err
	}
	_, err = tx.PG.Exec(ctx, pgsearch.IndexSQL, pgsearch.IndexArgs(id, arg.Content, arg.ToolName, arg.ToolCalls)...)
	return id, err
}

// MessageImport inserts the message with the id it carries (or the next
// one for id 0), indexes it,
// and keeps the id sequence past it (EngineAdvanceMessageID).
func (p postgresQueries) MessageImport(ctx context.Context, tx Tx, arg db.MessageImportParams) error {
	pa := pgdb.MessageImportParams(arg)
	pa.Content = encodeContent(pa.Content)
	if err := noNUL(messageTexts(pa.SessionID, pa.Role, pa.Content, pa.ToolCallID, pa.ToolCalls, pa.ToolName,
		pa.EffectDisposition, pa.FinishReason, pa.Reasoning, pa.ReasoningContent, pa.ReasoningDetails,
		pa.CodexReasoningItems, pa.CodexMessageItems, pa.PlatformMessageID)...); err != nil {
		return err
	}
	id, err := p.q.MessageImport(ctx, tx.PG, pa)
	if err != nil {
		return err
	}
	if _, err := tx.PG.Exec(ctx, pgsearch.IndexSQL, pgsearch.IndexArgs(id, arg.Content, arg.ToolName, arg.ToolCalls)...); err != nil {
		return err
	}
	return p.q.EngineAdvanceMessageID(ctx, tx.PG, id)
}

// messageTexts is a message's text columns as noNUL takes them.
func messageTexts(sessionID, role string, texts ...*string) []any {
	out := []any{sessionID, role}
	for _, t := range texts {
		out = append(out, t)
	}
	return out
}
