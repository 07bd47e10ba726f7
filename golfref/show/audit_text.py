"""`golfref audit`'s findings as it prints them: a line per finding, the signature's verdict, a summary."""

from __future__ import annotations

from ..tools.audit import Audit


def audit_lines(path: str, result: Audit) -> list[str]:
    """The lines of one audited log (each may hold newlines from the log: the printer puts it on one line)."""
    lines = [f"{path}: {finding.line()}" for finding in result.findings]
    if result.signature is not None:
        lines.append(f"{path}: signature: {result.signature.message}")
    return [*lines, f"{path}: {result.summary()}"]
