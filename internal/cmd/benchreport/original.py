"""The benchmark report's operations run through upstream Hermes's SessionDB.

benchreport starts this script when HERMES_SRC names a checkout of
hermes-agent; it imports hermes_state from there (nothing of upstream is in
this repository). It reads one JSON request per line on stdin and answers
each with one JSON line on stdout: the seconds the call took, timed around
the SessionDB call alone, and a signature of its result that benchreport
compares with its own (same ids, same order).

Requests: {"op": "open", "db": PATH}, then {"op": NAME, ...} with NAME one
of search, list, replay, export_session, export_all, append.
"""
import hashlib
import json
import os
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, os.environ["HERMES_SRC"])
import sqlite3  # noqa: E402

from hermes_state import SessionDB  # noqa: E402


def id_sig(ids):
    return ",".join(str(i) for i in ids)


def conversation_sig(msgs):
    h = hashlib.sha256()
    for m in msgs:
        h.update((m.get("role") or "").encode())
        h.update(b"\0")
        c = m.get("content")
        h.update(c.encode() if isinstance(c, str) else b"null")
        h.update(b"\n")
    return "%d %s" % (len(msgs), h.hexdigest()[:16])


class NullSink:
    """Counts what json.dumps writes, as a file would receive it."""

    def __init__(self):
        self.n = 0

    def write(self, s):
        self.n += len(s)


def export_all(db):
    sink = NullSink()
    start = time.perf_counter()
    entries = db.export_all()
    for e in entries:
        sink.write(json.dumps(e, ensure_ascii=False, default=str))
        sink.write("\n")
    sec = time.perf_counter() - start
    h = hashlib.sha256()
    messages = 0
    for e in entries:
        h.update(e["id"].encode())
        h.update(b"\n")
        for m in e["messages"]:
            h.update(b"%d," % m["id"])
        messages += len(e["messages"])
    return sec, "%d sessions %d messages %s" % (len(entries), messages, h.hexdigest()[:16])


def append(db, req):
    """req: writers, per_writer, prefix. Each writer appends to its own new
    session; returns every append's latency."""
    writers, per, prefix = req["writers"], req["per_writer"], req["prefix"]
    ids = ["%s-%d" % (prefix, w) for w in range(writers)]
    for sid in ids:
        db.create_session(session_id=sid, source="cli")
    lat = [[] for _ in ids]

    def work(w):
        for i in range(per):
            t = time.perf_counter()
            db.append_message(ids[w], "user", content="benchmark append %d of writer %d" % (i, w))
            lat[w].append(time.perf_counter() - t)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(writers)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sec = time.perf_counter() - start
    counts = [db.get_session(sid)["message_count"] for sid in ids]
    return {"sec": sec, "lat": [x for l in lat for x in l], "sig": id_sig(counts)}


def handle(db, req):
    op = req["op"]
    if op == "append":
        return append(db, req)
    if op == "export_all":
        sec, sig = export_all(db)
        return {"sec": sec, "sig": sig}
    start = time.perf_counter()
    if op == "search":
        res = db.search_messages(req["query"], limit=20)
    elif op == "list":
        res = db.list_sessions_rich(limit=20, order_by_last_active=req.get("by_last_active", False))
    elif op == "replay":
        res = db.get_messages_as_conversation(req["id"])
    elif op == "export_session":
        res = db.export_session(req["id"])
    else:
        raise ValueError("unknown op %r" % op)
    sec = time.perf_counter() - start
    if op in ("search", "list"):
        sig = id_sig(r["id"] for r in res)
    elif op == "replay":
        sig = conversation_sig(res)
    else:
        sig = id_sig(m["id"] for m in res["messages"])
    return {"sec": sec, "sig": sig}


def main():
    db = None
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "open":
                db = SessionDB(db_path=Path(req["db"]))
                out = {"python": sys.version.split()[0], "sqlite": sqlite3.sqlite_version}
            else:
                out = handle(db, req)
        except Exception as e:  # reported to benchreport, which fails loudly
            out = {"error": "%s: %s" % (type(e).__name__, e)}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    if db is not None:
        db.close()


if __name__ == "__main__":
    main()
