"""The original's SessionDB._sanitize_fts5_query and CJK helpers,
transcribed from reference-spec §9.1-§9.2 (hermes-agent 289cc476,
hermes_state.py) with upstream's two changes up to schema v21 (c2a3b9ce5:
the query is cut to MAX_FTS5_QUERY_CHARS code points first, and ':' is
blanked with the other specials; its linear scan for balanced quotes finds
the same phrases as the regular expression kept here), for the
differential test in sanitize_python_test.go.

Reads one JSON string per line on stdin and writes one JSON array per line:
[sanitized, contains_cjk, count_cjk].
"""

import json
import re
import sys


MAX_FTS5_QUERY_CHARS = 2048


def _sanitize_fts5_query(query: str) -> str:
    query = query[:MAX_FTS5_QUERY_CHARS]
    _quoted_parts: list = []

    def _preserve_quoted(m: re.Match) -> str:
        _quoted_parts.append(m.group(0))
        return f"\x00Q{len(_quoted_parts) - 1}\x00"

    sanitized = re.sub(r'"[^"]*"', _preserve_quoted, query)
    sanitized = re.sub(r'[+{}():\"^]', " ", sanitized)
    sanitized = re.sub(r"\*+", "*", sanitized)
    sanitized = re.sub(r"(^|\s)\*", r"\1", sanitized)
    sanitized = re.sub(r"(?i)^(AND|OR|NOT)\b\s*", "", sanitized.strip())
    sanitized = re.sub(r"(?i)\s+(AND|OR|NOT)\s*$", "", sanitized.strip())
    sanitized = re.sub(r"\b(\w+(?:[._-]\w+)+)\b", r'"\1"', sanitized)
    for i, quoted in enumerate(_quoted_parts):
        sanitized = sanitized.replace(f"\x00Q{i}\x00", quoted)
    return sanitized.strip()


def _is_cjk_codepoint(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x3000 <= cp <= 0x303F
        or 0x3040 <= cp <= 0x309F
        or 0x30A0 <= cp <= 0x30FF
        or 0xAC00 <= cp <= 0xD7AF
    )


def _contains_cjk(text: str) -> bool:
    return any(_is_cjk_codepoint(ord(ch)) for ch in text)


def _count_cjk(text: str) -> int:
    return sum(1 for ch in text if _is_cjk_codepoint(ord(ch)))


if __name__ == "__main__":
    for line in sys.stdin:
        q = json.loads(line)
        print(json.dumps([_sanitize_fts5_query(q), _contains_cjk(q), _count_cjk(q)]))
