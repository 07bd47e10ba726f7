"""Python policies named by reference: ``module:object`` imported, checked and made one `choose` function.

A policy is what decides a Python seat's moves, in the referee's process or as a bot program
(`golfref.kit.run`); either way it is called as ``choose(view, legal) -> str`` with the kit's
`golfbot.View`. What a reference may name:

- an object with a ``choose(view, legal)`` method (an instance, or a module);
- a class whose instances have one: it is instantiated without arguments, once per match;
- a plain function ``choose(view, legal)`` (any callable).

Standard library only, like golfbot.py beside it: a bot program that runs a policy needs
nothing else of golfref.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .golfbot import choose_of

__all__ = [
    "REFERENCE",
    "PolicyError",
    "check_policy",
    "choose_function",
    "describe",
    "import_policy",
    "import_root",
    "module_digest",
    "policy_name",
    "reference_of",
    "split_reference",
]

REFERENCE = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*:[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")
"""A reference: a dotted module name, a colon, and a dotted name inside the module (``pkg.mod:Greedy``)."""

Choose = Callable[[Any, list[str]], str]


class PolicyError(Exception):
    """A reference that does not name a usable policy (one line, quoting the reference)."""


def split_reference(ref: str) -> tuple[str, str]:
    """The module and the object name of ``module:object`` (PolicyError if it is not of that form)."""
    if not REFERENCE.match(ref):
        raise PolicyError(f"{ref!r} is not a reference of the form module:object (such as mypolicy:Greedy)")
    module, name = ref.split(":")
    return module, name


def import_policy(ref: str, folder: str | None = None) -> Any:
    """The object `ref` names, its module imported with `folder` (if given) first on ``sys.path`` meanwhile.

    The folder is on the path only while the module is imported: what the module imports at its
    top comes from there too; ``sys.path`` is left as it was.
    """
    module_name, name = split_reference(ref)
    added = folder is not None and folder not in sys.path
    if added:
        assert folder is not None
        sys.path.insert(0, folder)
    try:
        module = importlib.import_module(module_name)
    except Exception as e:  # any error of the user's module is reported, in one line
        raise PolicyError(f"{ref!r}: cannot import module {module_name!r}: {type(e).__name__}: {e}") from None
    finally:
        if added:
            sys.path.remove(str(folder))
    obj: Any = module
    for part in name.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PolicyError(f"{ref!r}: module {module_name!r} has no {name!r}") from None
    check_policy(obj, ref)
    return obj


def check_policy(obj: Any, what: str) -> None:
    """PolicyError unless `obj` is a policy: it has ``choose``, or its class does, or it is callable."""
    if isinstance(obj, type):
        if not callable(getattr(obj, "choose", None)):
            raise PolicyError(f"{what}: class {obj.__qualname__} has no choose(view, legal) method")
        return
    if callable(getattr(obj, "choose", None)) or callable(obj):
        return
    raise PolicyError(f"{what}: {describe(obj)} has no choose(view, legal) method and is not a function")


def choose_function(obj: Any) -> Choose:
    """The ``choose(view, legal)`` of a policy (a class is instantiated first, without arguments)."""
    if isinstance(obj, type):
        obj = obj()
    try:
        return choose_of(obj)
    except TypeError:  # choose_of's word for an object that is no policy
        raise PolicyError(f"{describe(obj)} has no choose(view, legal) method and is not a function") from None


def policy_name(obj: Any, ref: str | None) -> str:
    """The name a policy's bot says in its ready: its text ``name`` attribute, else the reference's object."""
    name = getattr(obj, "name", None)
    if isinstance(name, str) and name:
        return name[:64]
    if ref is not None and ":" in ref:
        return ref.split(":", 1)[1][:64]
    return describe(obj)[:64]


def describe(obj: Any) -> str:
    """What an object is, in a few words: ``module.Qualname`` of a function or class, ``an instance of ...`` else."""
    if isinstance(obj, type) or callable(obj) and hasattr(obj, "__qualname__"):
        return f"{getattr(obj, '__module__', '?')}.{obj.__qualname__}"
    kind = type(obj)
    return f"an instance of {kind.__module__}.{kind.__qualname__}"


def reference_of(obj: Any) -> str | None:
    """The ``module:object`` reference that imports back to this very object, or None (``__main__``, a lambda...)."""
    module_name = getattr(obj, "__module__", None) if hasattr(obj, "__qualname__") else None
    name = getattr(obj, "__qualname__", None)
    if not isinstance(module_name, str):
        # An instance: found only as a name at the top of its class's module.
        module_name = type(obj).__module__
        module = sys.modules.get(module_name)
        name = next((k for k, v in vars(module).items() if v is obj), None) if module is not None else None
    if not isinstance(name, str) or module_name == "__main__" or "<" in name:
        return None
    ref = f"{module_name}:{name}"
    if not REFERENCE.match(ref):
        return None
    found: Any = sys.modules.get(module_name)
    for part in name.split("."):
        found = getattr(found, part, None)
    return ref if found is obj else None


def module_digest(ref: str) -> tuple[str, str] | None:
    """(file, sha256 hex) of the module file an imported reference's module was loaded from; None without one."""
    module = sys.modules.get(split_reference(ref)[0])
    file = getattr(module, "__file__", None)
    if not isinstance(file, str) or not Path(file).is_file():
        return None
    return str(Path(file).resolve()), hashlib.sha256(Path(file).read_bytes()).hexdigest()


def import_root(ref: str) -> str | None:
    """The folder from which an imported reference's module imports again (``pkg/mod.py``'s parent of ``pkg``)."""
    found = module_digest(ref)
    if found is None:
        return None
    depth = len(split_reference(ref)[0].split("."))
    path = Path(found[0])
    if path.name == "__init__.py":
        depth += 1
    return str(path.parents[depth - 1])
