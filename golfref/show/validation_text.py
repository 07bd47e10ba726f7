"""`golfref replay --check`'s verdicts as it prints them: one line per log, or one JSON array."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..record.signing import SignatureCheck
from ..record.validate import Status, Validation


def check_line(path: str, report: Validation, signature: SignatureCheck | None) -> str:
    """The log at `path`'s verdict, and its signature's when there is one (the message may hold newlines)."""
    if report.status is Status.VALID:
        line = f"{path}: valid"
    elif report.status is Status.NOT_A_LOG:  # its message says so: "no such file", "not a golfref log: ..."
        line = f"{path}: {report.message}"
    else:
        line = f"{path}: {report.status.value}: {report.message}"
    return line if signature is None else f"{line}; {signature.message}"


def check_json(
    paths: Sequence[str], reports: Sequence[Validation], signatures: Sequence[SignatureCheck | None], trusting: bool
) -> str:
    """The verdicts as one JSON array, an object per log (with `signature` for a signed log, or every one when
    `trusting` a key)."""
    items = []
    for path, report, sig in zip(paths, reports, signatures, strict=True):
        item: dict[str, Any] = {"path": path, **report.to_json()}
        if sig is not None or trusting:
            item["signature"] = None if sig is None else sig.to_json()
        items.append(item)
    return json.dumps(items, ensure_ascii=False)
