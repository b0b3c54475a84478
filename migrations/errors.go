package migrations

import "errors"

var (
	// ErrNewerSchema reports a database whose schema_version is above [Latest]:
	// written by a later Hermes. It is never migrated, up or down.
	ErrNewerSchema = errors.New("database schema is newer than this build")

	// ErrNoChange reports a Down or Redo on a database with no applied
	// migration to roll back.
	ErrNoChange = errors.New("no migration to roll back")

	// ErrInvalidVersion reports a target version outside 0…Latest.
	ErrInvalidVersion = errors.New("invalid target version")
)
