#!/usr/bin/env python3
"""A bot that keeps a SQLite database in /tmp, as docs/SANDBOX.md says a sandboxed bot can, then plays by the book.

At hello it opens two databases in /tmp and says on stderr what each did: one locked the
default way (`sqlite locking: ok`, or the error: in the sandbox the filter denies the file
locks, and SQLite says `database is locked`), and one opened as a URI with `nolock=1`
(`sqlite nolock: 100 rows, sum 4950`), memory-mapped reads on; both are removed after.
"""

import json
import os
import sqlite3
import sys
import tempfile


def keep(uri: str) -> str:
    """Create a table of 100 rows in the database `uri` and sum them: what happened, in words."""
    try:
        with sqlite3.connect(uri, uri=True) as db:
            db.execute("PRAGMA mmap_size = 1048576")
            db.execute("CREATE TABLE t (x INTEGER)")
            db.executemany("INSERT INTO t VALUES (?)", [(i,) for i in range(100)])
            rows, total = db.execute("SELECT count(*), sum(x) FROM t").fetchone()
        db.close()
    except sqlite3.Error as e:
        return str(e)
    return f"{rows} rows, sum {total}"


def main() -> int:
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            folder = tempfile.mkdtemp(dir="/tmp")
            for name, query in (("locking", ""), ("nolock", "?nolock=1")):
                path = os.path.join(folder, f"{name}.db")
                print(f"sqlite {name}: {keep(f'file:{path}{query}')}", file=sys.stderr, flush=True)
            for name in os.listdir(folder):
                os.unlink(os.path.join(folder, name))
            os.rmdir(folder)
            print(json.dumps({"type": "ready", "name": "sqlite", "version": "1"}), flush=True)
        elif kind == "request":
            print(json.dumps({"type": "answer", "id": message["id"], "action": message["legal"][0]}), flush=True)
        elif kind == "goodbye":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
