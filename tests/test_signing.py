"""Signed logs (golfref/signing.py, `golfref keygen`, `run --sign`, `replay --check --trust`)."""

from __future__ import annotations

import base64
import json
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from golfref.cli import app
from golfref.log import compute_digest, read_log, write_log
from golfref.signing import (
    KeyFileError,
    SignatureStatus,
    Signer,
    check_signature,
    keygen,
    load_private_key,
    load_public_key,
)

LOGS = Path(__file__).resolve().parent / "logs"
ROOT = LOGS.parent.parent


def invoke(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args))


def signed_copy(tmp_path: Path, key: Path, name: str = "standard_2p") -> Path:
    doc = json.loads((LOGS / f"{name}.json").read_text())
    path = tmp_path / f"{name}.json"
    write_log(path, doc, sign=Signer.from_file(key))
    return path


@pytest.fixture
def keys(tmp_path: Path) -> tuple[Path, Path]:
    private, public, _ = keygen(tmp_path / "key")
    return private, public


def test_keygen_writes_a_private_pem_0600_and_a_public_pem(keys: tuple[Path, Path]) -> None:
    private, public = keys
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert private.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert public.read_bytes().startswith(b"-----BEGIN PUBLIC KEY-----")
    load_private_key(private)
    load_public_key(public)


def test_keygen_never_replaces_a_file(tmp_path: Path) -> None:
    (tmp_path / "key.pub").write_text("mine")
    result = invoke("keygen", str(tmp_path / "key"))
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "already exists" in result.output
    assert not (tmp_path / "key").exists() and (tmp_path / "key.pub").read_text() == "mine"


def test_a_signed_log_is_trusted_by_its_key_and_still_valid(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    path = signed_copy(tmp_path, keys[0])
    doc = json.loads(path.read_text())
    assert doc["signature"]["alg"] == "ed25519" and len(base64.b64decode(doc["signature"]["value"])) == 64
    result = invoke("replay", "--check", "--trust", str(keys[1]), str(path))
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{path}: valid; signed by the trusted key ed25519:")
    result = invoke("replay", "--check", str(path))  # no key trusted: the line names the key
    assert result.exit_code == 0 and "; signed by ed25519:" in result.output


def test_a_log_signed_by_another_key_is_reported_and_fails_with_trust(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    other, _, other_id = keygen(tmp_path / "other")
    path = signed_copy(tmp_path, other)
    result = invoke("replay", "--check", "--json", "--trust", str(keys[1]), str(path))
    assert result.exit_code == 1
    (item,) = json.loads(result.output)
    assert item["status"] == "valid"
    assert item["signature"]["status"] == "other_key" and item["signature"]["key"] == other_id


def test_an_unsigned_log_is_reported_and_fails_with_trust(keys: tuple[Path, Path]) -> None:
    log = LOGS / "standard_2p.json"
    result = invoke("replay", "--check", "--trust", str(keys[1]), str(log))
    assert result.exit_code == 1
    assert result.output == f"{log}: valid; unsigned\n"
    # Without --trust an unsigned log reads as it always did.
    assert invoke("replay", "--check", str(log)).output == f"{log}: valid\n"


def test_swapped_players_with_a_recomputed_digest_are_never_trusted(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    path = signed_copy(tmp_path, keys[0])
    doc = json.loads(path.read_text())
    doc["players"][0]["name"], doc["players"][1]["name"] = doc["players"][1]["name"], doc["players"][0]["name"]
    doc["digest"] = compute_digest(doc)
    trusted = load_public_key(keys[1])
    assert check_signature(doc, trusted).status is SignatureStatus.FORGED
    path.write_text(json.dumps(doc))
    result = invoke("replay", "--check", "--trust", str(keys[1]), str(path))
    assert result.exit_code == 1 and "; forged: " in result.output and result.output.count("\n") == 1
    assert invoke("replay", "--check", str(path)).exit_code == 1  # forged fails even without --trust
    # Dropping the signature leaves an unsigned log; re-signing with one's own key, another key.
    doc["signature"] = None
    assert check_signature(doc, trusted).status is SignatureStatus.UNSIGNED
    own, _, _ = keygen(tmp_path / "forger")
    write_log(path, doc, sign=Signer.from_file(own))
    assert check_signature(json.loads(path.read_text()), trusted).status is SignatureStatus.OTHER_KEY


def test_another_keys_signature_value_does_not_verify(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    mine = json.loads(signed_copy(tmp_path, keys[0]).read_text())
    other, _, _ = keygen(tmp_path / "other")
    (tmp_path / "x").mkdir()
    theirs = json.loads(signed_copy(tmp_path / "x", other).read_text())
    mine["signature"]["value"] = theirs["signature"]["value"]  # the trusted key's name, another key's signature
    check = check_signature(mine, load_public_key(keys[1]))
    assert check.status is SignatureStatus.FORGED and "does not verify" in check.message


def test_a_truncated_signature_is_forged(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    doc = json.loads(signed_copy(tmp_path, keys[0]).read_text())
    doc["signature"]["value"] = doc["signature"]["value"][:40]
    check = check_signature(doc, load_public_key(keys[1]))
    assert check.status is SignatureStatus.FORGED and "cut short" in check.message
    doc["signature"]["value"] = "not base64!"
    assert check_signature(doc).status is SignatureStatus.FORGED


def test_the_digest_does_not_cover_the_signature_so_unsigned_samples_keep_theirs() -> None:
    doc = json.loads((LOGS / "knock_3p.json").read_text())
    assert doc["signature"] is None
    digest = doc["digest"]
    del doc["signature"]
    assert compute_digest(doc) == digest


@pytest.mark.parametrize(
    ("content", "option", "fragment"),
    [
        (None, "--trust", "no such file"),
        (b"", "--trust", "empty file"),
        (b"hello", "--trust", "not a PEM public key"),
        ("private", "--trust", "is a private key"),
        (b"junk", "--sign", "not a PEM private key"),
        ("public", "--sign", "is a public key"),
        (None, "--sign", "no such file"),
    ],
)
def test_bad_key_files_are_one_line_errors(
    tmp_path: Path, keys: tuple[Path, Path], content: bytes | str | None, option: str, fragment: str
) -> None:
    bad = tmp_path / "bad.pem"
    if content == "private":
        bad = keys[0]
    elif content == "public":
        bad = keys[1]
    elif content is not None:
        assert isinstance(content, bytes)
        bad.write_bytes(content)
    if option == "--trust":
        result = invoke("replay", "--check", "--trust", str(bad), str(LOGS / "standard_2p.json"))
    else:
        result = invoke("run", str(ROOT / "sample_matches" / "quickstart.yaml"), "--sign", str(bad))
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and fragment in result.output and option in result.output
    assert "Traceback" not in result.output


def test_an_rsa_key_is_refused(tmp_path: Path) -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    pem = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    (tmp_path / "rsa.pub").write_bytes(pem)
    with pytest.raises(KeyFileError, match="not an Ed25519 key"):
        load_public_key(tmp_path / "rsa.pub")


@pytest.mark.process
def test_run_sign_signs_the_final_log_not_the_journal(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    from golfref.config import parse_config
    from golfref.referee import run_match

    cfg = parse_config(
        "match: s\nrules: {preset: standard, holes: 2}\nplayers:\n"
        "  - {name: greedy, builtin: greedy}\n  - {name: random, builtin: random}\n",
        source="s.yaml",
        base_dir=tmp_path,
    )
    journals: list[dict[str, object]] = []
    log = tmp_path / "log.json"

    def on_hole(result: object, names: object) -> None:
        journals.append(read_log(log))

    result = run_match(cfg, seed=1, log_path=str(log), on_hole=on_hole, sign=Signer.from_file(keys[0]))
    assert journals and all(j["status"] == "running" and j["signature"] is None for j in journals)
    doc = json.loads(Path(result.log_path).read_text())
    assert check_signature(doc, load_public_key(keys[1])).status is SignatureStatus.TRUSTED
    assert result.log["signature"] == doc["signature"]


@pytest.mark.process
def test_an_interrupted_log_is_signed_too(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    from golfref.config import parse_config
    from golfref.referee import MatchInterrupted, run_match

    cfg = parse_config(
        "match: s\nrules: {preset: standard, holes: 2}\nplayers:\n"
        "  - {name: greedy, builtin: greedy}\n  - {name: random, builtin: random}\n",
        source="s.yaml",
        base_dir=tmp_path,
    )

    def stop(game: object) -> None:
        raise KeyboardInterrupt

    log = tmp_path / "log.json"
    with pytest.raises(MatchInterrupted):
        run_match(cfg, seed=1, log_path=str(log), on_turn=stop, sign=Signer.from_file(keys[0]))
    doc = json.loads(log.read_text())
    assert doc["status"] == "interrupted"
    assert check_signature(doc, load_public_key(keys[1])).status is SignatureStatus.TRUSTED


def test_tournament_sign_signs_every_log_it_plays(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    private, public = keys
    results = tmp_path / "t"
    done = invoke("tournament", "--builtin", "g=greedy", "--builtin", "r=random", "--deal-sets", "2",
                  "--results", str(results), "--quiet", "--sign", str(private))  # fmt: skip
    assert done.exit_code == 0, done.output
    logs = sorted(str(p) for p in (results / "logs").glob("*.json"))
    assert len(logs) == 4
    check = invoke("replay", "--check", "--trust", str(public), *logs)
    assert check.exit_code == 0, check.output
    assert check.output.count("signed by the trusted key") == 4


def test_tournament_sign_with_a_bad_key_plays_nothing(tmp_path: Path) -> None:
    results = tmp_path / "t"
    # --no-sandbox: without bubblewrap, a sandboxed tournament would say so in a warning line first.
    done = invoke("tournament", "--builtin", "g=greedy", "--builtin", "r=random", "--results", str(results),
                  "--quiet", "--no-sandbox", "--sign", str(tmp_path / "missing.pem"))  # fmt: skip
    assert done.exit_code == 2 and done.output.count("\n") == 1 and "--sign" in done.output
    assert not results.exists()
