"""Signed logs: Ed25519 keys, signing a finished log, and checking whose signature a log carries.

The digest (`log.compute_digest`) catches accidental damage, but anyone can recompute it.
A signature can only be made with the private key, so a log signed by a key you trust was
written by whoever holds that key, as it is. What is signed is `log.signed_message`: the
match's identity (`log.MatchIdentity`: its id and name, its place in a tournament, the
seat names, the file name it was written under), the log's canonical form (what the digest
covers) and the digest itself. The identity is kept in the signature object, so that the
check can say which match a log is and whether it is found under the name it was signed
as. Logs signed before the identity (scheme 1: no `scheme` field) still verify, and are
reported as signed under the earlier scheme.

Keys are PEM files: the private key as unencrypted PKCS#8 (`BEGIN PRIVATE KEY`, file mode
0600), the public key as SubjectPublicKeyInfo (`BEGIN PUBLIC KEY`). The `cryptography`
package does the signing; it is imported only when a key or a signature is used, so that
commands which never sign do not pay for it.
"""

from __future__ import annotations

import base64
import binascii
import enum
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..files import KEY_MAX_BYTES, UnsafeFile, create_new, read_capped
from .log import SIGNATURE_SCHEME, MatchIdentity, TournamentPlace, canonical_bytes, signed_message

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = [
    "ALG",
    "KeyFileError",
    "Signer",
    "SignatureStatus",
    "SignatureCheck",
    "keygen",
    "load_private_key",
    "load_public_key",
    "key_id",
    "check_signature",
    "signature_passes",
]

ALG = "ed25519"
_SIGNATURE_BYTES = 64
_KEY_BYTES = 32


class KeyFileError(ValueError):
    """A key file that cannot be written or read as the key it should be; the message names the file."""


class SignatureStatus(enum.Enum):
    """Whose signature a log carries; the value is the word `golfref replay --check` prints."""

    TRUSTED = "trusted"
    """Signed by the trusted key, and the signature verifies."""
    SIGNED = "signed"
    """Signed, and the signature verifies; no key was given to trust, so whose key it is stays open (see `key`)."""
    COPY = "copy"
    """The signature verifies (by the trusted key, when one is given), but the log was signed under another file name.

    A copy, or a log put in another's place (a tournament's `m00005-d1.json` replaced by its
    `m00003-d1.json`): the content is as signed, the name is not. Only a scheme-2 signature
    names the file; with `--trust` a copy does not pass."""
    OTHER_KEY = "other_key"
    """Signed, and the signature verifies, but by a key other than the trusted one."""
    UNSIGNED = "unsigned"
    """The log carries no signature (null or absent)."""
    FORGED = "forged"
    """A signature is present but does not verify: the log or the signature was changed after signing."""


@dataclass(frozen=True)
class SignatureCheck:
    """The verdict on one log's signature."""

    status: SignatureStatus
    key: str | None
    """The id of the key the log names (`key_id`), when it names one."""
    message: str
    """One line for people: whose key, which match under which name, or what does not verify."""
    scheme: int | None = None
    """The signature's scheme when it verifies: 2 names the match (`identity`), 1 does not."""
    identity: MatchIdentity | None = None
    """What a scheme-2 signature that verifies names: the match, its place, its file name."""
    found_as: str | None = None
    """The file name the log was checked under, when it was read from a file."""

    def to_json(self) -> dict[str, Any]:
        """The check as plain data."""
        return {
            "status": self.status.value,
            "key": self.key,
            "message": self.message,
            "scheme": self.scheme,
            "identity": None if self.identity is None else self.identity.to_json(),
            "found_as": self.found_as,
        }


def key_id(public: bytes) -> str:
    """A short name for a raw Ed25519 public key: `ed25519:` and 16 hex digits of its SHA-256."""
    return f"{ALG}:{hashlib.sha256(public).hexdigest()[:16]}"


def _raw_public(key: Ed25519PublicKey) -> bytes:
    from cryptography.hazmat.primitives import serialization

    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def keygen(out: str | os.PathLike[str]) -> tuple[Path, Path, str]:
    """Write a new key pair: the private key to `out` (mode 0600), the public key to `out`.pub.

    Refuses to replace either file. Returns both paths and the key's id.
    """
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    private_path = Path(out)
    public_path = Path(f"{out}.pub")
    folder = private_path.parent
    if not folder.is_dir():
        if folder.exists():
            raise KeyFileError(f"{private_path}: {folder} is not a folder")
        raise KeyFileError(f"{private_path}: no such folder: {folder} (golfref keygen creates no folders)")
    for path in (private_path, public_path):
        if path.exists() or path.is_symlink():
            raise KeyFileError(f"{path}: already exists; golfref keygen never replaces a key (remove it first)")
    key = Ed25519PrivateKey.generate()
    private_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    public_pem = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    written: list[Path] = []
    try:
        for path, data, mode in ((private_path, private_pem, 0o600), (public_path, public_pem, 0o644)):
            # O_EXCL: a file that appeared since the check above is not replaced either.
            fd = create_new(path, mode)
            written.append(path)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(path, mode)  # the umask may have taken bits off the public key's mode
    except OSError as e:
        for path in written:
            path.unlink(missing_ok=True)
        raise KeyFileError(f"{e.filename or out}: cannot write the key: {e.strerror or e}") from None
    return private_path, public_path, key_id(_raw_public(key.public_key()))


def _read_pem(path: str | os.PathLike[str]) -> bytes:
    if Path(path).is_dir():
        raise KeyFileError(f"{path}: is a directory, not a key")
    try:
        data = read_capped(path, KEY_MAX_BYTES, "key")
    except FileNotFoundError:
        raise KeyFileError(f"{path}: no such file") from None
    except UnsafeFile as e:
        raise KeyFileError(str(e)) from None
    except OSError as e:
        raise KeyFileError(f"{path}: cannot read: {e.strerror or e}") from None
    if not data.strip():
        raise KeyFileError(f"{path}: empty file, not a key")
    return data


def load_private_key(path: str | os.PathLike[str]) -> Ed25519PrivateKey:
    """Read a private key written by `keygen`; raises KeyFileError saying what is wrong."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    data = _read_pem(path)
    if b"PUBLIC KEY-----" in data:
        raise KeyFileError(f"{path}: is a public key; signing needs the private key (the file without .pub)")
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except TypeError:
        raise KeyFileError(f"{path}: the key is encrypted; golfref reads unencrypted keys (golfref keygen)") from None
    except (ValueError, UnsupportedAlgorithm):
        raise KeyFileError(f"{path}: not a PEM private key (golfref keygen writes one)") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"{path}: not an Ed25519 key; golfref signs with Ed25519 (golfref keygen)")
    return key


def load_public_key(path: str | os.PathLike[str]) -> Ed25519PublicKey:
    """Read a public key written by `keygen` (KEY.pub); raises KeyFileError saying what is wrong."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    data = _read_pem(path)
    if b"PRIVATE KEY-----" in data:
        raise KeyFileError(f"{path}: is a private key; trust the public key (the .pub file) and keep this one secret")
    try:
        key = serialization.load_pem_public_key(data)
    except (ValueError, UnsupportedAlgorithm):
        raise KeyFileError(f"{path}: not a PEM public key (golfref keygen writes one, KEY.pub)") from None
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"{path}: not an Ed25519 key; golfref signs with Ed25519 (golfref keygen)")
    return key


class Signer:
    """Signs logs with one private key; `write_log(..., sign=signer)` calls it on the finished log."""

    def __init__(self, key: Ed25519PrivateKey, place: TournamentPlace | None = None) -> None:
        self._key = key
        self._public = base64.b64encode(_raw_public(key.public_key())).decode("ascii")
        self.place = place
        """The tournament place every log this signer signs is named with (`at`), or None."""

    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Signer:
        """A signer with the private key in `path`."""
        return cls(load_private_key(path))

    def at(self, place: TournamentPlace | None) -> Signer:
        """The same key, naming `place` in the identity of what it signs (a tournament's match)."""
        return Signer(self._key, place)

    def __call__(self, doc: dict[str, Any], body: bytes, digest: str, file: str) -> dict[str, Any]:
        """The `signature` field of the log `doc` (canonical form `body`) written under the file name `file`."""
        identity = MatchIdentity.of(doc, file, self.place)
        value = base64.b64encode(self._key.sign(signed_message(body, digest, identity))).decode("ascii")
        return {
            "alg": ALG,
            "public_key": self._public,
            "value": value,
            "scheme": SIGNATURE_SCHEME,
            "identity": identity.to_json(),
        }


def _b64(text: str) -> bytes | None:
    try:
        return base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        return None


def check_signature(
    doc: dict[str, Any], trusted: Ed25519PublicKey | None = None, found_as: str | None = None
) -> SignatureCheck:
    """Whose signature `doc` carries, checked against `trusted` when given; never raises.

    `found_as`: the file name the log was read under, compared with the name a scheme-2
    signature was made under (a different one is a `COPY`).
    """
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    sig = doc.get("signature")
    if sig is None:
        return SignatureCheck(SignatureStatus.UNSIGNED, None, "unsigned", found_as=found_as)

    def forged(why: str, key: str | None = None) -> SignatureCheck:
        return SignatureCheck(SignatureStatus.FORGED, key, f"forged: {why}", found_as=found_as)

    if not isinstance(sig, dict) or not all(isinstance(sig.get(k), str) for k in ("alg", "public_key", "value")):
        return forged("the signature field is not an object of strings alg, public_key, value")
    if sig["alg"] != ALG:
        return forged(f"signature algorithm {sig['alg']!r}, golfref signs with {ALG!r}")
    public = _b64(sig["public_key"])
    if public is None or len(public) != _KEY_BYTES:
        return forged(f"the public key is not {_KEY_BYTES} bytes of base64")
    kid = key_id(public)
    value = _b64(sig["value"])
    if value is None or len(value) != _SIGNATURE_BYTES:
        return forged(f"the signature value is not {_SIGNATURE_BYTES} bytes of base64 (cut short?)", kid)
    digest = doc.get("digest")
    if not isinstance(digest, str):
        return forged("a signed log must carry its digest", kid)
    identity = None
    if "scheme" in sig or "identity" in sig:  # scheme 1, the earlier one, has neither field
        scheme = sig.get("scheme")
        if type(scheme) is not int or scheme != SIGNATURE_SCHEME:
            known = f"golfref verifies scheme {SIGNATURE_SCHEME} and the earlier one"
            return forged(f"signature scheme {str(scheme)[:20]}: {known}", kid)
        identity = MatchIdentity.from_json(sig.get("identity"))
        if identity is None:
            return forged("the signature's identity is not a match identity (docs/LOG_FORMAT.md)", kid)
    try:
        message = signed_message(canonical_bytes(doc), digest, identity)
        Ed25519PublicKey.from_public_bytes(public).verify(value, message)
    except (InvalidSignature, ValueError):
        return forged(f"the signature by {kid} does not verify: the log was changed after it was signed", kid)
    if identity is not None:
        disagreement = _disagreement(identity, doc)
        if disagreement is not None:
            return forged(f"the signature by {kid} names {disagreement}", kid)
    if trusted is None:
        whose = f"signed by {kid}"
        status = SignatureStatus.SIGNED
    elif _raw_public(trusted) != public:
        whose = f"signed by another key ({kid}), not the trusted {key_id(_raw_public(trusted))}"
        status = SignatureStatus.OTHER_KEY
    else:
        whose = f"signed by the trusted key {kid}"
        status = SignatureStatus.TRUSTED
    if identity is None:
        return SignatureCheck(status, kid, f"{whose} (earlier scheme: no identity)", 1, None, found_as)
    if found_as is None or found_as == identity.file:
        return SignatureCheck(status, kid, f"{whose}: {identity.describe()} as {identity.file}", 2, identity, found_as)
    if status is not SignatureStatus.OTHER_KEY:
        status = SignatureStatus.COPY
    named = f"{whose}: {identity.describe()} signed as {identity.file}, found as {found_as}: a copy"
    return SignatureCheck(status, kid, named, 2, identity, found_as)


def _disagreement(identity: MatchIdentity, doc: dict[str, Any]) -> str | None:
    """What a verified identity says that the log's own content contradicts, or None.

    Only the key's holder could sign such a pair, but a signature vouches for one match,
    and this one names two.
    """
    players = doc.get("players")
    seats = [p.get("name") if isinstance(p, dict) else None for p in players] if isinstance(players, list) else None
    for what, signed, logged in (
        ("match_id", identity.match_id, doc.get("match_id")),
        ("match", identity.match, doc.get("match")),
        ("seats", list(identity.seats), seats),
    ):
        if signed != logged:
            return f"{what} {str(signed)[:80]}, the log {str(logged)[:80]}"
    return None


def signature_passes(check: SignatureCheck | None, trusting: bool) -> bool:
    """Whether a log's signature verdict lets a check pass (exit 0).

    With a trusted key (`trusting`), only a log signed by it under its own name passes
    (None, no verdict because the log could not be read, does not); without one, any
    verdict but forged does.
    """
    if trusting:
        return check is not None and check.status is SignatureStatus.TRUSTED
    return check is None or check.status is not SignatureStatus.FORGED
