"""Shell variables: :class:`Var` and its :class:`Kind`."""

from __future__ import annotations

import enum
from typing import Any


class Kind(enum.StrEnum):
    """What a variable holds, and so what its ``value`` is."""

    #: a scalar: a Str (chunks with locations)
    SCALAR = "s"
    #: an indexed array: dict[int, Word]
    INDEXED = "a"
    #: an associative array: dict[str, Word]
    ASSOC = "A"
    #: an array of unknown content: a Str describing it
    UNKNOWN_ARRAY = "u"
    #: declared with attributes but unset (`export X`, `declare -i N`): value EMPTY; lookups other
    #: than for an assignment's attributes see no variable
    UNSET = "-"
    #: a name reference (`declare -n R=A`): the value is the target's name
    REF = "n"


class Var:
    """A shell variable: its :class:`Kind`, its value (by kind, see there) and attributes."""

    __slots__ = ("kind", "value", "exported", "readonly", "integer")

    def __init__(self, kind: Kind, value: Any, exported: bool = False, readonly: bool = False, integer: bool = False) -> None:
        self.kind = kind
        self.value = value
        self.exported = exported
        self.readonly = readonly
        self.integer = integer

    def copy(self, **kw: Any) -> Var:
        v = Var(self.kind, self.value, self.exported, self.readonly, self.integer)
        for k, val in kw.items():
            setattr(v, k, val)
        return v
