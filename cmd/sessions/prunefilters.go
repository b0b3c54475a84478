package main

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/hermesstate/hermesstate/internal/cli"
	"github.com/hermesstate/hermesstate/store"
)

// pruneFilters are prune's selection flags beyond the age and the source:
// a part of upstream's prune_sessions filters, under the names of its
// hermes sessions prune flags.
type pruneFilters struct {
	opts                     *store.PruneOptions
	archived, notArchived    bool
	minMessages, maxMessages optionalInt
}

// pruneFilterFlags registers the filters on fs, writing into opts; apply
// finishes them once the flags are parsed.
func pruneFilterFlags(fs *flag.FlagSet, opts *store.PruneOptions) *pruneFilters {
	f := &pruneFilters{opts: opts}
	fs.StringVar(&opts.TitleLike, "title", "", "only sessions whose title contains `TEXT` (either case; % and _ are wildcards)")
	fs.StringVar(&opts.ModelLike, "model", "", "only sessions whose model contains `TEXT` (either case; % and _ are wildcards)")
	fs.StringVar(&opts.EndReason, "end-reason", "", "only sessions that ended for this `reason` (user_exit, compression, ...)")
	fs.StringVar(&opts.CwdPrefix, "cwd", "", "only sessions whose working directory is `DIR` or under it")
	fs.Var(&f.minMessages, "min-messages", "only sessions with at least `N` messages")
	fs.Var(&f.maxMessages, "max-messages", "only sessions with at most `N` messages")
	fs.BoolVar(&f.archived, "archived", false, "only archived sessions")
	fs.BoolVar(&f.notArchived, "no-archived", false, "only sessions that are not archived (by default archived ones are pruned too, as upstream prunes them)")
	return f
}

// apply sets the options the flags asked for; --archived with
// --no-archived is a usage error.
func (f *pruneFilters) apply() error {
	switch {
	case f.archived && f.notArchived:
		return cli.Usagef("--archived and --no-archived exclude each other")
	case f.archived:
		f.opts.Archived = new(true)
	case f.notArchived:
		f.opts.Archived = new(false)
	}
	f.opts.MinMessages, f.opts.MaxMessages = f.minMessages.p, f.maxMessages.p
	return nil
}

// describe lists the filters set, each after ", ", for prune's summary
// line: `, title ~ "plan", 2 or more messages, archived`.
func (f *pruneFilters) describe() string {
	var s string
	o := f.opts
	for _, like := range []struct{ name, text string }{{"title", o.TitleLike}, {"model", o.ModelLike}} {
		if like.text != "" {
			s += fmt.Sprintf(", %s ~ %q", like.name, like.text)
		}
	}
	if o.EndReason != "" {
		s += ", ended by " + o.EndReason
	}
	if o.CwdPrefix != "" {
		s += ", in " + o.CwdPrefix
	}
	if o.MinMessages != nil {
		s += fmt.Sprintf(", %d or more messages", *o.MinMessages)
	}
	if o.MaxMessages != nil {
		s += fmt.Sprintf(", %d or fewer messages", *o.MaxMessages)
	}
	if o.Archived != nil {
		s += map[bool]string{true: ", archived", false: ", not archived"}[*o.Archived]
	}
	return s
}

// optionalInt is an integer flag that may be left unset (nil).
type optionalInt struct{ p *int64 }

func (o *optionalInt) String() string {
	if o == nil || o.p == nil {
		return ""
	}
	return strconv.FormatInt(*o.p, 10)
}

func (o *optionalInt) Set(v string) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("parse error")
	}
	o.p = &n
	return nil
}
