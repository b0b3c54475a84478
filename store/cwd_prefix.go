package store

import "strings"

// cwdPrefixBase is the directory of upstream's _cwd_prefix_clause: the
// prefix without its trailing / and \ (prefix.rstrip("/\\")), or the prefix
// itself when that leaves nothing.
func cwdPrefixBase(prefix string) string {
	if p := strings.TrimRight(prefix, `/\`); p != "" {
		return p
	}
	return prefix
}

// cwdPatterns are the three parameters of a cwd prefix filter; all nil
// when there is none.
type cwdPatterns struct {
	exact, slash, backslash *string
}

// cwdPrefixPatterns builds upstream's _cwd_prefix_clause parameters: the
// prefix without trailing separators (unless that leaves nothing), and it
// followed by /% and by \%, unescaped. A pattern past SQLite's LIKE limit
// is ErrInvalidFilter: SQLite would fail the statement.
func cwdPrefixPatterns(prefix string) (cwdPatterns, error) {
	if prefix == "" {
		return cwdPatterns{}, nil
	}
	p := cwdPrefixBase(prefix)
	if len(p)+2 > maxLikePattern {
		return cwdPatterns{}, errLikeTooLong("cwd prefix")
	}
	return cwdPatterns{exact: &p, slash: new(p + "/%"), backslash: new(p + `\%`)}, nil
}
