"""A JSON Schema compiled to one fast yes-or-no check, for schemas whose shape is fixed.

`compile_check(schema)` turns a schema into Python source, one function per `$defs` entry,
and compiles it once: checking a 9-hole log this way takes a fraction of a millisecond, where
a general validator walks the schema for every value (about 50 ms with `jsonschema`). The
check says only yes or no; when it says no, the caller asks `jsonschema` where and why.

fastjsonschema, which checks bot messages (golfref/match/protocol.py), compiles this schema
too, but checks the same log 10 to 12 times slower (a oneOf tried branch by branch for every
step), which makes validating a log about twice as slow: bench/replay.py prints both figures,
which are why the log keeps this compiler.

It is exact for what it accepts, with one deliberate difference: an `integer` is a Python
`int` (not `1.0`, which JSON Schema counts as an integer) and a `number` is an `int` or a
`float`, so whatever the check accepts the schema accepts too. It understands the keywords
golfref's schemas use and refuses a schema with any other, so that a keyword added to a
schema cannot be silently ignored.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["SchemaCheckError", "compile_check"]


class SchemaCheckError(ValueError):
    """The schema uses something `compile_check` does not understand."""


# Keywords that describe a schema without constraining a value.
_ANNOTATIONS = frozenset(("$schema", "$id", "$comment", "$defs", "title", "description"))

_TYPES = {
    "integer": ("int",),
    "number": ("int", "float"),
    "string": ("str",),
    "boolean": ("bool",),
    "null": ("NoneType",),
    "array": ("list",),
    "object": ("dict",),
}

_ANY = frozenset(name for names in _TYPES.values() for name in names)

# The strings found to match a pattern are kept: a log repeats the same few card names.
_SEEN_LIMIT = 4096


class _Compiler:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.lines: list[str] = []
        self.names: dict[str, Any] = {"NoneType": type(None)}
        self.refs: dict[str, str] = {}  # $ref -> the function checking it
        self.patterns: dict[str, tuple[str, str]] = {}
        self.inlining: list[str] = []  # the $refs being expanded, innermost last
        self.typing: set[int] = set()  # the schemas whose types are being worked out
        self.count = 0

    def name(self, prefix: str, value: Any) -> str:
        """A global of the generated code holding `value`."""
        self.count += 1
        name = f"_{prefix}{self.count}"
        self.names[name] = value
        return name

    def variable(self) -> str:
        """A fresh variable name for a generator expression."""
        self.count += 1
        return f"x{self.count}"

    def function(self, schema: Any) -> str:
        """Generate `def _fN(v): return ...` for `schema`; returns the function's name."""
        self.count += 1
        name = f"_f{self.count}"
        self.lines.append(f"def {name}(v):\n    return {self.expr(schema, 'v')}\n")
        return name

    def target(self, ref: str) -> Any:
        """The definition `ref` points to."""
        if not ref.startswith("#/$defs/") or ref.count("/") != 2:
            raise SchemaCheckError(f"$ref {ref!r}: only references to #/$defs/NAME are supported")
        target = self.root.get("$defs", {}).get(ref.rsplit("/", 1)[1])
        if target is None:
            raise SchemaCheckError(f"$ref {ref!r}: no such definition")
        return target

    def ref(self, ref: str) -> str:
        """The name of the function checking the definition `ref`."""
        if ref not in self.refs:
            self.count += 1
            name = self.refs[ref] = f"_f{self.count}"  # named first: the definition may refer to itself
            outer, self.inlining = self.inlining, []
            self.lines.append(f"def {name}(v):\n    return {self.expr({'$ref': ref}, 'v')}\n")
            self.inlining = outer
        return self.refs[ref]

    def items(self, schema: Any, var: str) -> str:
        """`all` items of the list `var` pass `schema`."""
        if isinstance(schema, dict) and set(schema) == {"$ref"}:
            check = f"all(map({self.ref(schema['$ref'])}, {var}))"
            target = self.target(schema["$ref"])
            if isinstance(target, dict) and set(target) == {"type", "pattern"} and target["type"] == "string":
                # A list of names (cards): one set operation when every name was seen before.
                return f"({self.pattern(target['pattern'])[0]}.issuperset({var}) or {check})"
            return check
        x = self.variable()
        return f"all({self.expr(schema, x)} for {x} in {var})"

    def pattern(self, regex: str) -> tuple[str, str]:
        """(a set of strings known to match `regex`, a function telling whether a string matches)."""
        if regex not in self.patterns:
            seen: set[str] = set()
            search = re.compile(regex).search

            def matches(text: str) -> bool:
                if search(text) is None:
                    return False
                if len(seen) < _SEEN_LIMIT:
                    seen.add(text)
                return True

            self.patterns[regex] = (self.name("seen", seen), self.name("match", matches))
        return self.patterns[regex]

    def kinds(self, schema: Any) -> frozenset[str] | None:
        """The Python types (names) a value satisfying `schema` has, or None when any type may."""
        if not isinstance(schema, dict) or id(schema) in self.typing:
            return None
        self.typing.add(id(schema))
        try:
            return self.own_kinds(schema)
        finally:
            self.typing.discard(id(schema))

    def own_kinds(self, schema: dict[str, Any]) -> frozenset[str] | None:
        found: list[frozenset[str]] = []
        if "$ref" in schema:
            found.append(self.kinds(self.target(schema["$ref"])) or _ANY)
        if "type" in schema:
            wanted = [schema["type"]] if isinstance(schema["type"], str) else schema["type"]
            found.append(frozenset(t for kind in wanted for t in _TYPES[kind]))
        for values in ([schema["const"]] if "const" in schema else [], schema.get("enum", [])):
            if values:
                found.append(frozenset(type(value).__name__ for value in values))
        if "oneOf" in schema:
            branches = [self.kinds(s) for s in schema["oneOf"]]
            if all(b is not None for b in branches):
                found.append(frozenset().union(*[b for b in branches if b is not None]))
        if not found:
            return None
        return frozenset.intersection(*found)

    def exclusive(self, a: Any, b: Any) -> bool:
        """Whether no value can satisfy both schemas (then oneOf is anyOf, and may stop early)."""
        ka, kb = self.kinds(a), self.kinds(b)
        if ka is not None and kb is not None and not ka & kb:
            return True
        if not ((ka is not None and ka <= {"dict"}) or (kb is not None and kb <= {"dict"})):
            return False  # a value of another type may pass both
        a = self.target(a["$ref"]) if isinstance(a, dict) and set(a) == {"$ref"} else a
        b = self.target(b["$ref"]) if isinstance(b, dict) and set(b) == {"$ref"} else b
        if not (isinstance(a, dict) and isinstance(b, dict)):
            return False

        def closed_without(x: dict[str, Any], y: dict[str, Any]) -> bool:
            # x admits only its own properties, and y requires one x does not have.
            return x.get("additionalProperties", True) is False and bool(
                set(y.get("required", [])) - set(x.get("properties", {}))
            )

        return closed_without(a, b) or closed_without(b, a)

    def guard(self, v: str, known: frozenset[str] | None, family: tuple[str, ...]) -> str | None:
        """The test that lets a keyword for values of `family` pass every other value.

        Empty when `v` is known to be of the family, None when it is known not to be (the
        keyword then says nothing).
        """
        if known is not None:
            if known <= set(family):
                return ""
            if not known & set(family):
                return None
            if known - set(family) == {"NoneType"}:
                return f"{v} is None or "
        if len(family) == 1:
            return f"type({v}) is not {family[0]} or "
        return f"type({v}) not in ({', '.join(family)}) or "

    def expr(self, schema: Any, v: str) -> str:
        """A Python expression, true when the value `v` satisfies `schema`."""
        if schema is True or schema == {}:
            return "True"
        if not isinstance(schema, dict):
            raise SchemaCheckError(f"expected a schema object, got {schema!r}")
        unknown = set(schema) - _ANNOTATIONS - _KEYWORDS
        if unknown:
            raise SchemaCheckError(f"keyword {sorted(unknown)[0]!r} is not supported")
        parts: list[str] = []
        if "$ref" in schema:
            ref = schema["$ref"]
            if ref in self.inlining:  # a definition inside itself: a call, not an endless expansion
                parts.append(f"{self.ref(ref)}({v})")
            else:
                self.inlining.append(ref)
                parts.append(f"({self.expr(self.target(ref), v)})")
                self.inlining.pop()
        known: frozenset[str] | None = None
        if "type" in schema:
            known = self.kinds({"type": schema["type"]})
            assert known is not None
            names = sorted(known)
            parts.append(f"type({v}) is {names[0]}" if len(names) == 1 else f"type({v}) in ({', '.join(names)})")
        if "const" in schema:
            parts.append(self.among([schema["const"]], v))
        if "enum" in schema:
            parts.append(self.among(schema["enum"], v))
        checks: list[tuple[tuple[str, ...], str]] = []
        for keyword, op in (("minimum", ">="), ("maximum", "<=")):
            if keyword in schema:
                checks.append((("int", "float"), f"{v} {op} {schema[keyword]!r}"))
        for keyword, op in (("minLength", ">="), ("maxLength", "<=")):
            if keyword in schema:
                checks.append((("str",), f"len({v}) {op} {schema[keyword]!r}"))
        if "pattern" in schema:
            seen, matches = self.pattern(schema["pattern"])
            checks.append((("str",), f"({v} in {seen} or {matches}({v}))"))
        for keyword, op in (("minItems", ">="), ("maxItems", "<=")):
            if keyword in schema:
                checks.append((("list",), f"len({v}) {op} {schema[keyword]!r}"))
        if "items" in schema:
            checks.append((("list",), self.items(schema["items"], v)))
        obj = self.object(schema, v)
        if obj:
            checks.append((("dict",), obj))
        for family, check in checks:
            guard = self.guard(v, known, family)
            if guard is not None:
                parts.append(f"({guard}{check})" if guard else check)
        if "oneOf" in schema:
            branches = schema["oneOf"]
            if all(self.exclusive(a, b) for i, a in enumerate(branches) for b in branches[i + 1 :]):
                parts.append("(" + " or ".join(f"({self.expr(s, v)})" for s in branches) + ")")
            else:
                parts.append("((" + " + ".join(f"({self.expr(s, v)})" for s in branches) + ") == 1)")
        return " and ".join(parts) if parts else "True"

    def among(self, values: list[Any], v: str) -> str:
        """`v` is one of `values`, of the same Python type (True is not 1, 1.0 is not 1)."""
        for value in values:
            if value is not None and type(value) not in (str, int, bool):
                raise SchemaCheckError(f"enum or const value {value!r}: only strings, integers, booleans and null")
        if any(type(value) is bool for value in values) and any(type(value) is int for value in values):
            raise SchemaCheckError(f"enum {values!r}: booleans and integers together are not supported")
        if len(values) == 1:
            value = values[0]
            return f"{v} is None" if value is None else f"(type({v}) is {type(value).__name__} and {v} == {value!r})"
        kinds = sorted({type(value).__name__ if value is not None else "NoneType" for value in values})
        allowed = self.name("enum", frozenset(values))
        test = f"type({v}) is {kinds[0]}" if len(kinds) == 1 else f"type({v}) in ({', '.join(kinds)})"
        return f"({test} and {v} in {allowed})"

    def object(self, schema: dict[str, Any], v: str) -> str:
        """The object keywords of `schema` on `v`, known to be a dict; empty when there are none."""
        parts: list[str] = []
        required = schema.get("required", [])
        properties: dict[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        if extra is False:
            keys = set(properties)
            if set(required) == keys:
                parts.append(f"{v}.keys() == {self.name('keys', frozenset(keys))}")
            else:
                parts.append(f"{v}.keys() >= {self.name('keys', frozenset(required))}")
                parts.append(f"{v}.keys() <= {self.name('keys', frozenset(keys))}")
        else:
            parts.extend(f"{key!r} in {v}" for key in required)
            if extra is not True:
                known = self.name("keys", frozenset(properties))
                k, x = self.variable(), self.variable()
                parts.append(f"all({self.expr(extra, x)} for {k}, {x} in {v}.items() if {k} not in {known})")
        for key, sub in properties.items():
            check = self.expr(sub, f"{v}[{key!r}]")
            if check == "True":
                continue
            parts.append(f"({check})" if key in required else f"({key!r} not in {v} or ({check}))")
        return " and ".join(parts)

    def compile(self) -> Callable[[Any], bool]:
        top = self.function(self.root)
        source = "\n".join(self.lines)
        namespace = dict(self.names)
        exec(compile(source, "<schema check>", "exec"), namespace)  # generated above, from the schema alone
        generated: Callable[[Any], bool] = namespace[top]

        def check(value: Any) -> bool:
            try:
                return generated(value)
            except TypeError:  # a list or dict where a name is due: not in the set of names
                return False

        check.__doc__ = source  # what the schema became, for whoever debugs it
        return check


_KEYWORDS = frozenset(
    (
        "$ref",
        "type",
        "const",
        "enum",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "items",
        "required",
        "properties",
        "additionalProperties",
        "oneOf",
    )
)


def compile_check(schema: dict[str, Any]) -> Callable[[Any], bool]:
    """Compile `schema` into a function telling whether a parsed JSON value satisfies it.

    Raises SchemaCheckError when the schema uses a keyword, reference or value this
    compiler does not understand.
    """
    return _Compiler(schema).compile()
