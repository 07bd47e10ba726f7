"""The commands about logs: showing and validating one (`replay`), auditing it (`audit`), and the key that
signs it (`keygen`)."""

from __future__ import annotations

import json
import os
import sys
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from ..files import LOG_MAX_BYTES, MIB
from ..show.terminal import sanitize
from .exits import EXIT_FAULTED, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, EXITS, fail
from .options import MaxLogOpt, output_width, parse_number, use_color
from .output import err, one_line, out

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from ..record.matchlog import MatchLog
    from ..record.signing import SignatureCheck
    from ..record.validate import Validation


def replay(
    logs: Annotated[list[str], typer.Argument(metavar="LOG", help="The log to show; with --check, one or more logs.")],
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Only validate: one line per log; exit 0 only when every log is valid and none forged."
        ),
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the validation reports as one JSON array (implies --check).")
    ] = False,
    hole: Annotated[
        int | None, typer.Option("--hole", metavar="N", min=0, help="Show hole N only (holes count from 0).")
    ] = None,
    seat: Annotated[
        int | None,
        typer.Option("--seat", metavar="S", min=0, help="Show the match as seat S saw it (seats count from 0)."),
    ] = None,
    summary: Annotated[bool, typer.Option("--summary", help="Show only the hole scores and the standings.")] = False,
    compact: Annotated[
        bool, typer.Option("--compact", help="One line per turn, without the grids (for long matches).")
    ] = False,
    width: Annotated[
        str | None,
        typer.Option(
            "--width", metavar="N", help="Lines of at most N columns (default: the terminal's width, else 100)."
        ),
    ] = None,
    no_color: Annotated[
        bool, typer.Option("--no-color", help="No colour (default: colour on a terminal unless NO_COLOR is set).")
    ] = False,
    ascii_only: Annotated[
        bool, typer.Option("--ascii", help="Print ASCII only (no suit symbols or box drawing).")
    ] = False,
    trust: Annotated[
        str | None,
        typer.Option(
            "--trust",
            metavar="PUBKEY",
            help="With --check: say whether each log is signed by this public key (KEY.pub), and which match"
            " the signature names; exit 0 only when every one is, under the file name it was signed as.",
        ),
    ] = None,
    html: Annotated[
        str | None,
        typer.Option(
            "--html",
            metavar="OUT.html",
            help="Write the match as one self-contained HTML page to step through"
            " (with --seat: that seat's view only).",
        ),
    ] = None,
    max_log_mb: MaxLogOpt = LOG_MAX_BYTES // MIB,
) -> None:
    """Validate a game log, then show the match turn by turn.

    A log is checked first: its digest (changed after it was written?),
    its schema, and a re-play of the whole match through the engine.
    A tampered or invalid log is reported and not shown; an incomplete
    one (an interrupted match) is shown after a warning.
    """
    from ..record.validate import Status, validate_file

    if check or as_json:
        showing = (
            ("--hole", hole),
            ("--seat", seat),
            ("--summary", summary or None),
            ("--compact", compact or None),
            ("--html", html),
        )
        for name, given in (*showing, ("--width", width)):
            if given is not None:
                mode = "--json" if as_json and not check else "--check"
                fail(f"{name} applies when showing a match, not with {mode}")
        _replay_check(logs, as_json, trust, max_log_mb)
    if trust is not None:
        fail("--trust applies with --check (or --json), not when showing a match")
    if len(logs) != 1:
        fail(f"give one LOG to show ({len(logs)} given); several logs only with --check")
    path = logs[0]
    width_number = parse_number("--width", width, "a number of columns")
    report = validate_file(path, max_log_mb * MIB)
    if report.status is Status.NOT_A_LOG:
        fail(sanitize(f"{path}: {report.message}"))
    if report.doc is None:  # damaged: not JSON, truncated...
        fail(sanitize(f"{path}: {report.message}"), EXIT_FAULTED)
    if report.status in (Status.INVALID, Status.TAMPERED):
        fail(sanitize(f"{path}: {report.status.value}: {report.message}"), EXIT_FAULTED)
    from ..record.matchlog import read_match_log

    doc = read_match_log(report.doc)
    _check_hole_and_seat(doc, hole, seat)
    if report.status is Status.INCOMPLETE:
        err(sanitize(one_line(f"golfref: warning: {path}: incomplete: {report.message}")))
    if html is not None:
        _write_replay_html(doc, path, html, seat, max_log_mb, hole=hole, summary=summary, compact=compact, width=width)
        return
    color = use_color(sys.stdout, os.environ, no_color)
    for line in _match_lines(doc, path, hole, seat, summary, compact, color, ascii_only, width_number):
        out(line)


def _replay_check(logs: list[str], as_json: bool, trust: str | None, max_log_mb: int) -> NoReturn:
    """`golfref replay --check`: validate every log (and its signature), print the verdicts, exit by them."""
    from ..record.validate import validate_file
    from ..show.validation_text import check_json, check_line

    trusted = _trusted_key(trust)
    reports = [validate_file(path, max_log_mb * MIB) for path in logs]
    signatures = [
        _signature(path, report, trusted, trust is not None) for path, report in zip(logs, reports, strict=True)
    ]
    if as_json:
        out(check_json(logs, reports, signatures, trusting=trust is not None))
    else:
        for path, report, sig in zip(logs, reports, signatures, strict=True):
            out(sanitize(one_line(check_line(path, report, sig))))
    EXITS.exit(EXITS.of_replay_check(reports, signatures, trusting=trust is not None))


def _trusted_key(trust: str | None) -> Ed25519PublicKey | None:
    """The public key of `--trust PUBKEY` (None without it), or a one-line error naming what is wrong with it."""
    if trust is None:
        return None
    from ..record.signing import KeyFileError, load_public_key

    try:
        return load_public_key(trust)
    except KeyFileError as e:
        fail(f"--trust {e}")


def _check_hole_and_seat(doc: MatchLog, hole: int | None, seat: int | None) -> None:
    """`--hole N` and `--seat S` name a hole and a seat the log has (a one-line error otherwise)."""
    holes = len(doc.holes)
    players = len(doc.players)
    if hole is not None and not 0 <= hole < holes:
        if not holes:
            fail(f"--hole {hole}: the log has no hole yet")
        fail(f"--hole {hole}: the log has {holes} hole{'s' if holes != 1 else ''} (0 to {holes - 1})")
    if seat is not None and not 0 <= seat < players:
        fail(f"--seat {seat}: the match has {players} seats (0 to {players - 1})")


def _match_lines(
    doc: MatchLog,
    path: str,
    hole: int | None,
    seat: int | None,
    summary: bool,
    compact: bool,
    color: bool,
    ascii_only: bool,
    width: int | None,
) -> list[str]:
    """The match of a log that validated, as the text printer shows it (a one-line error when it cannot)."""
    try:
        from ..show.pretty import DEFAULT_WIDTH, MIN_WIDTH, render_match
    except ImportError as e:
        fail(f"cannot show the match: the pretty-printer is not available ({e})", EXIT_INTERNAL)
    if width is not None and width < MIN_WIDTH:
        fail(f"--width {width}: too narrow; the match needs at least {MIN_WIDTH} columns")
    try:
        return render_match(
            doc,
            hole=hole,
            seat=seat,
            summary=summary,
            compact=compact,
            color=color,
            ascii_only=ascii_only,
            width=output_width(sys.stdout, os.environ, width, DEFAULT_WIDTH, MIN_WIDTH),
        )
    except ValueError as e:
        fail(f"cannot show {path}: {e}", EXIT_INTERNAL)


def _signature(path: str, report: Validation, trusted: Ed25519PublicKey | None, asked: bool) -> SignatureCheck | None:
    """The signature verdict shown for the log at `path`: always when `asked` (--trust), else only for a signed log."""
    from ..record.matchlog import has_signature

    if report.doc is None or (not asked and not has_signature(report.doc)):
        return None
    from ..record.signing import check_signature

    return check_signature(report.doc, trusted, found_as=os.path.basename(path))


def _write_replay_html(
    doc: MatchLog, path: str, target: str, seat: int | None, max_log_mb: int, **terminal_only: Any
) -> None:
    """`golfref replay LOG --html OUT`: the page of a log that validated, with the transcripts beside it."""
    for name, given in terminal_only.items():
        if given not in (None, False):
            fail(f"--{name} applies when showing a match on the terminal, not with --html")
    from pathlib import Path

    from ..record.transcript import read_transcripts
    from ..show.html_replay import replay_html

    # A seat's page reads that seat's transcript only: no other seat's can reach it.
    bots = [p.seat for p in doc.players if p.is_bot and (seat is None or p.seat == seat)]
    transcripts, unread = read_transcripts(Path(path), bots, max_log_mb * MIB)
    try:
        page = replay_html(doc, seat, transcripts, unread)
    except ValueError as e:
        fail(f"cannot show {path}: {e}", EXIT_INTERNAL)
    _write_text(target, page, "--html")
    seen = f"seat {seat} saw it" if seat is not None else "the players saw it"
    out(sanitize(f"{target}: the match as {seen}"))


def _write_text(target: str, text: str, option: str) -> None:
    """Write a whole output file, or fail with one line naming the option and the reason."""
    from ..files import write_text

    try:
        write_text(target, text)
    except OSError as e:
        fail(f"{option} {target}: cannot write: {e.strerror or e}", EXIT_INTERNAL)


def audit(
    logs: Annotated[list[str], typer.Argument(metavar="LOG", help="A log with transcripts next to it; one or more.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as one JSON array.")] = False,
    trust: Annotated[
        str | None,
        typer.Option(
            "--trust",
            metavar="PUBKEY",
            help="Say whether each log is signed by this public key (KEY.pub), as replay --check --trust does;"
            " exit 0 only when every one is, under the file name it was signed as.",
        ),
    ] = None,
    max_log_mb: MaxLogOpt = LOG_MAX_BYTES // MIB,
) -> None:
    """Check that no bot was shown what it could not know yet, from a log and its transcripts.

    The log is validated as replay --check does; then the match is re-derived through the
    engine and every message in each seat's transcript is compared with what that seat
    could know then. One line per finding (leaks; warnings for mismatches, timing
    anomalies and fault clusters), the signature and the match it names (for a signed log,
    or every log with --trust), and a summary line per log. See docs/AUDIT.md.
    """
    from ..record.signing import signature_passes
    from ..show.audit_text import audit_lines
    from ..tools.audit import AuditError, audit_file

    trusted = _trusted_key(trust)
    code = EXIT_OK
    items: list[dict[str, Any]] = []
    for path in logs:
        try:
            result = audit_file(path, trusted, max_log_mb * MIB)
        except AuditError as e:
            err(f"golfref: error: {sanitize(one_line(str(e)))}")
            items.append({"path": path, "status": "error", "error": str(e)})
            code = max(code, EXIT_USAGE)
            continue
        if not result.clean or not signature_passes(result.signature, trust is not None):
            code = max(code, EXIT_FAULTED)
        if as_json:
            items.append(result.to_json())
            continue
        for line in audit_lines(path, result):
            out(sanitize(one_line(line)))
    if as_json:
        out(json.dumps(items, ensure_ascii=False))
    EXITS.exit(code)


def keygen(
    out_path: Annotated[
        str, typer.Argument(metavar="OUT", help="Where to write the private key; the public key goes to OUT.pub.")
    ],
) -> None:
    """Write an Ed25519 key pair for signing logs (golfref run --sign OUT).

    OUT gets the private key (PEM, PKCS#8, unencrypted, mode 0600: keep it secret); OUT.pub
    the public key (PEM), to give to whoever checks the logs (golfref replay --check --trust
    OUT.pub). An existing file is never replaced.
    """
    from ..record.signing import KeyFileError
    from ..record.signing import keygen as make_keys

    if not out_path.strip():
        fail("keygen: the path is empty")
    try:
        private, public, kid = make_keys(out_path)
    except KeyFileError as e:
        fail(f"keygen: {e}")
    out(f"wrote {private} (private key, keep it secret) and {public} (public key); key {kid}")
