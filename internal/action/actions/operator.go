package actions

import (
	"context"
	"sync"

	"github.com/turnzerocloud/tzctx/store"
)

// Versions is what the operator actions need of a data directory's
// versions; *store.Store is one.
type Versions interface {
	List() ([]store.Meta, error)
	Unreadable() ([]string, error)
	ActiveName() (string, error)
	Activate(ctx context.Context, name string) error
	Health() store.Health
	Acquire() (*store.Version, error)
}

var _ Versions = (*store.Store)(nil)

// Operator is what the operator actions (admin_status, admin_activate)
// work on: one server's store and what it knows of its records and of
// the version it follows.
type Operator struct {
	// Versions is the server's store.
	Versions Versions
	// Records is the folder of the server's call records, "" where it
	// keeps none of its own (records.embedded false).
	Records string
	// RecordsNote says, where Records is "", where the records are.
	RecordsNote string
	// Follow is the location a following server takes its versions from,
	// "" where it follows none; admin_activate refuses to run there.
	Follow string
	// Refresh switches the server to the version the pointer names and
	// returns the refusal of one it will not serve; nil leaves that to
	// the server's watcher.
	Refresh func(ctx context.Context) error

	mu sync.Mutex // serialises activations
}

// versionSubject is the record subject of an operator call naming a
// version: its name where it is a valid one, else none.
func versionSubject(args map[string]any) string {
	name, _ := args["version"].(string)
	return versionNameSubject(name)
}

// versionNameSubject is the record subject of an operator call naming
// the version name: the name where it is a valid one, else none.
func versionNameSubject(name string) string {
	if store.ValidName(name) != nil {
		return "version"
	}
	return "version:" + name
}
