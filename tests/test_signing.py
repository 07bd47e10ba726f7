"""Signed logs (golfref/record/signing.py, `golfref keygen`, `run --sign`, `replay --check --trust`)."""

from __future__ import annotations

import base64
import json
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from golfref.cli.app import app
from golfref.record.log import (
    MatchIdentity,
    TournamentPlace,
    canonical_bytes,
    compute_digest,
    read_log,
    signed_message,
    write_log,
)
from golfref.record.signing import (
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
# A log signed by golfref before signatures named the match (scheme 1), and its key: made by
# the release before (commit e6f5dc0) with its own write_log, from tests/logs/standard_2p.json.
SCHEME_1 = ROOT / "tests" / "data" / "signed" / "scheme1.json"
SCHEME_1_KEY = SCHEME_1.with_suffix(".pub")


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
    from golfref.config.match import parse_config
    from golfref.match.referee import run_match

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
    from golfref.config.match import parse_config
    from golfref.match.referee import MatchInterrupted, run_match

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


@pytest.mark.process
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


# -- what a signature names: the match, its place, its file name (scheme 2) ---------------------


def test_a_signature_names_the_match_its_seats_and_its_file(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    path = signed_copy(tmp_path, keys[0])
    doc = json.loads(path.read_text())
    sig = doc["signature"]
    assert sig["scheme"] == 2
    assert sig["identity"] == {
        "file": "standard_2p.json",
        "match": doc["match"],
        "match_id": doc["match_id"],
        "seats": [p["name"] for p in doc["players"]],
        "tournament": None,
    }
    check = check_signature(doc, load_public_key(keys[1]), found_as="standard_2p.json")
    assert (check.status, check.scheme, check.identity) == (
        SignatureStatus.TRUSTED,
        2,
        MatchIdentity(
            doc["match_id"], doc["match"], tuple(p["name"] for p in doc["players"]), "standard_2p.json", None
        ),
    )
    assert check.message == f"signed by the trusted key {check.key}: match {doc['match_id']} as standard_2p.json"


def test_a_renamed_copy_is_a_copy_and_fails_with_trust(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    path = signed_copy(tmp_path, keys[0])
    copy = tmp_path / "copy.json"
    copy.write_bytes(path.read_bytes())
    match_id = json.loads(path.read_text())["match_id"]
    result = invoke("replay", "--check", "--trust", str(keys[1]), str(copy))
    assert result.exit_code == 1, result.output
    assert result.output.endswith(f": match {match_id} signed as standard_2p.json, found as copy.json: a copy\n"), (
        result.output
    )
    assert result.output.startswith(f"{copy}: valid; signed by the trusted key ed25519:")
    (item,) = json.loads(invoke("replay", "--check", "--json", "--trust", str(keys[1]), str(copy)).output)
    assert item["signature"]["status"] == "copy"
    assert (item["signature"]["found_as"], item["signature"]["identity"]["file"]) == ("copy.json", "standard_2p.json")
    # Without --trust the copy is named, and only a forged signature fails.
    plain = invoke("replay", "--check", str(copy))
    assert plain.exit_code == 0 and "found as copy.json: a copy" in plain.output
    # The same file under its signed name in another folder is no copy: the name is what is signed.
    (tmp_path / "elsewhere").mkdir()
    moved = tmp_path / "elsewhere" / "standard_2p.json"
    moved.write_bytes(path.read_bytes())
    assert invoke("replay", "--check", "--trust", str(keys[1]), str(moved)).exit_code == 0


def test_a_copy_cannot_be_renamed_in_its_signature(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    copy = tmp_path / "copy.json"
    doc = json.loads(signed_copy(tmp_path, keys[0]).read_text())
    doc["signature"]["identity"]["file"] = "copy.json"
    copy.write_text(json.dumps(doc))
    result = invoke("replay", "--check", "--trust", str(keys[1]), str(copy))
    assert result.exit_code == 1 and "; forged: the signature by ed25519:" in result.output
    assert "does not verify" in result.output


@pytest.mark.process
def test_the_tournament_place_is_signed_and_a_log_in_anothers_place_is_a_copy(
    tmp_path: Path, keys: tuple[Path, Path]
) -> None:
    private, public = keys
    results = tmp_path / "t"
    done = invoke("tournament", "--builtin", "g=greedy", "--builtin", "r=random", "--deal-sets", "2",
                  "--results", str(results), "--quiet", "--no-sandbox", "--sign", str(private))  # fmt: skip
    assert done.exit_code == 0, done.output
    logs = sorted((results / "logs").glob("*.json"))
    assert [p.name for p in logs] == ["m00000-d0.json", "m00001-d0.json", "m00002-d1.json", "m00003-d1.json"]
    trusted = load_public_key(public)
    for index, path in enumerate(logs):
        doc = json.loads(path.read_text())
        check = check_signature(doc, trusted, found_as=path.name)
        assert check.status is SignatureStatus.TRUSTED and check.identity is not None
        assert check.identity.tournament == TournamentPlace("quick", index, index // 2)
        assert check.identity.file == path.name and check.identity.match == doc["match"]
        assert check.message.endswith(
            f": match {doc['match_id']} (tournament quick, match {index}, deal set {index // 2}) as {path.name}"
        )
    # A favourable result put in place of another match's log: the name gives it away.
    logs[3].write_bytes(logs[2].read_bytes())
    result = invoke("replay", "--check", "--trust", str(public), str(logs[3]))
    assert result.exit_code == 1
    assert result.output.endswith("signed as m00002-d1.json, found as m00003-d1.json: a copy\n"), result.output


def test_an_identity_the_content_contradicts_is_forged(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    # Made with the key itself: the signature verifies, but it names another match than the log holds.
    doc = json.loads(signed_copy(tmp_path, keys[0]).read_text())
    fake = MatchIdentity("someone-else", doc["match"], ("x", "y"), "standard_2p.json", None)
    value = load_private_key(keys[0]).sign(signed_message(canonical_bytes(doc), doc["digest"], fake))
    doc["signature"]["identity"] = fake.to_json()
    doc["signature"]["value"] = base64.b64encode(value).decode("ascii")
    check = check_signature(doc, load_public_key(keys[1]))
    assert check.status is SignatureStatus.FORGED
    assert check.message.endswith(f"names match_id someone-else, the log {doc['match_id']}"), check.message


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (lambda sig: sig.update(scheme=3), "signature scheme 3: golfref verifies scheme 2 and the earlier one"),
        (lambda sig: sig.update(scheme=True), "signature scheme True"),
        (lambda sig: sig.pop("identity"), "the signature's identity is not a match identity"),
        (lambda sig: sig["identity"].update(seats="ab"), "the signature's identity is not a match identity"),
        (
            lambda sig: sig["identity"].update(tournament={"name": "t", "match": -1, "deal_set": 0}),
            "not a match identity",
        ),
        # Dropped to the earlier scheme: the value was made over the scheme-2 message.
        (lambda sig: (sig.pop("scheme"), sig.pop("identity")), "does not verify"),
    ],
    ids=["scheme-3", "scheme-bool", "no-identity", "bad-seats", "bad-place", "downgraded"],
)
def test_a_changed_scheme_or_identity_is_forged(
    tmp_path: Path, keys: tuple[Path, Path], edit: Any, fragment: str
) -> None:
    doc = json.loads(signed_copy(tmp_path, keys[0]).read_text())
    edit(doc["signature"])
    check = check_signature(doc, load_public_key(keys[1]))
    assert check.status is SignatureStatus.FORGED and fragment in check.message, check.message
    path = tmp_path / "edited.json"
    write_log(path, doc)  # the digest does not cover the signature: the log stays sealed
    result = invoke("replay", "--check", str(path))
    assert result.exit_code == 1 and "forged: " in result.output


def test_the_duplicate_players_attack_on_a_signed_log_is_refused(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    # A second "players" and "holes" inserted before the real ones, the signature kept: orjson
    # reads the last keys, so the signature verified on what golfref read while any reader
    # that takes the first keys saw other players and another match.
    path = signed_copy(tmp_path, keys[0])
    raw = path.read_bytes()
    doc = json.loads(raw)
    players = [dict(p, name="mallory") for p in doc["players"]]
    inserted = b'{"holes":' + json.dumps(doc["holes"][:1]).encode() + b',"players":' + json.dumps(players).encode()
    path.write_bytes(inserted + b"," + raw[1:])
    assert check_signature(json.loads(path.read_bytes()), load_public_key(keys[1])).status is SignatureStatus.TRUSTED
    result = invoke("replay", "--check", "--trust", str(keys[1]), str(path))
    assert result.exit_code == 1
    assert result.output == f'{path}: invalid: duplicate key "holes" at the top level\n'
    (item,) = json.loads(invoke("replay", "--check", "--json", "--trust", str(keys[1]), str(path)).output)
    assert (item["status"], item["signature"]) == ("invalid", None)


# -- logs signed before the identity (scheme 1) ----------------------------------------------------


def test_a_log_signed_under_the_earlier_scheme_still_verifies() -> None:
    doc = json.loads(SCHEME_1.read_text())
    assert set(doc["signature"]) == {"alg", "public_key", "value"}  # as the release before wrote it
    result = invoke("replay", "--check", "--trust", str(SCHEME_1_KEY), str(SCHEME_1))
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{SCHEME_1}: valid; signed by the trusted key ed25519:c04e018d173eb433 (earlier scheme: no identity)\n"
    )
    (item,) = json.loads(invoke("replay", "--check", "--json", "--trust", str(SCHEME_1_KEY), str(SCHEME_1)).output)
    assert item["signature"] | {"message": None} == {
        "status": "trusted",
        "key": "ed25519:c04e018d173eb433",
        "message": None,
        "scheme": 1,
        "identity": None,
        "found_as": "scheme1.json",
    }
    plain = invoke("replay", "--check", str(SCHEME_1))
    assert plain.output.endswith("; signed by ed25519:c04e018d173eb433 (earlier scheme: no identity)\n")


def test_a_log_signed_under_the_earlier_scheme_and_changed_is_forged(tmp_path: Path) -> None:
    doc = json.loads(SCHEME_1.read_text())
    doc["players"][0]["name"] = "someone else"
    doc["digest"] = compute_digest(doc)
    check = check_signature(doc, load_public_key(SCHEME_1_KEY))
    assert check.status is SignatureStatus.FORGED and "does not verify" in check.message
    # Named after the fact: an identity added to a scheme-1 signature does not verify either.
    doc = json.loads(SCHEME_1.read_text())
    doc["signature"]["scheme"] = 2
    doc["signature"]["identity"] = MatchIdentity.of(doc, "scheme1.json", None).to_json()
    assert check_signature(doc, load_public_key(SCHEME_1_KEY)).status is SignatureStatus.FORGED


def test_the_earlier_scheme_is_the_message_without_identity(tmp_path: Path, keys: tuple[Path, Path]) -> None:
    # The scheme-1 message as the release before signed it, made here with signed_message.
    doc = json.loads((LOGS / "standard_2p.json").read_text())
    value = load_private_key(keys[0]).sign(signed_message(canonical_bytes(doc), doc["digest"], None))
    public = base64.b64encode(load_public_key(keys[1]).public_bytes_raw()).decode("ascii")
    doc["signature"] = {"alg": "ed25519", "public_key": public, "value": base64.b64encode(value).decode("ascii")}
    check = check_signature(doc, load_public_key(keys[1]), found_as="anything.json")
    assert (check.status, check.scheme, check.identity) == (SignatureStatus.TRUSTED, 1, None)
    assert check.message.endswith("(earlier scheme: no identity)")


def test_the_docs_name_every_field_of_the_identity_and_every_status() -> None:
    doc = (ROOT / "docs" / "LOG_FORMAT.md").read_text(encoding="utf-8")
    section = doc[doc.index("## The signature\n") : doc.index("## Versions\n")]
    schema = json.loads((ROOT / "schemas" / "log.schema.json").read_text(encoding="utf-8"))
    fields = set(schema["$defs"]["identity"]["properties"])
    identity = MatchIdentity("id", "m", ("a",), "f.json", TournamentPlace("t", 3, 1))
    assert fields == set(identity.to_json())
    assert set(schema["$defs"]["identity"]["properties"]["tournament"]["oneOf"][1]["properties"]) == set(
        identity.to_json()["tournament"]
    )
    table = {cell for row in re.findall(r"^\| (`[^|]+`) \|", section, flags=re.M) for cell in row.split(", ")}
    assert {f"`{f}`" for f in fields} <= table
    for status in SignatureStatus:
        assert f"`{status.value}`" in section, status
    assert identity.describe() == "match id (tournament t, match 3, deal set 1)"
    assert "(tournament t, match 3, deal set 1) as m00003-d1.json" in section
