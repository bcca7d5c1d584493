"""Sweep-point lists as people read them: the labels a finding holds for, grouped.

A finding carries its sweep points as labels (``nvidia-master.yaml:943:tp8-ep1-dpafalse-conc8``
for a master-config search-space item, ``tp8-ep8-dpatrue-conc64`` for the default matrix,
``name:line:input=value`` for a dispatch workflow).  The labels stay as they are (JSON output and
fingerprints read them); the terminal formats show one line per group of points that differ only
in their concurrency (or workflow input):

    nvidia-master.yaml:943 tp8-ep1-dpafalse conc 1..64 (8 points)
    nvidia-master.yaml:951 tp8-ep8-dpatrue conc 4,8,16
    default matrix: tp8-ep8-dpatrue conc 64,512

Up to ``LIST_MAX`` values are listed; more are shown as ``first..last (N points)``, the count
saying how many of the values in that span the finding holds for.  A label of no known shape is
shown as it is.
"""

from __future__ import annotations

import re

#: at most this many values of a group are listed one by one; more are shown as a span and a count
LIST_MAX = 5
#: labels of no known shape (``--env`` overrides) shown on their line before the rest is counted
OTHER_MAX = 6

#: a master-config point: "<config file>:<item line>:<tag>-conc<N>"
_CONFIG = re.compile(r"^(?P<origin>[^:]+:\d+):(?P<tag>.+)-conc(?P<conc>\d+)$")
#: a default-matrix point: "tp8-ep1-dpafalse-conc64" and, for an offload backend, "...-conc64-<backend>"
_DEFAULT = re.compile(r"^(?P<tag>tp\d+-ep\d+-dpa[a-z]+)-conc(?P<conc>\d+)(?:-(?P<backend>[A-Za-z0-9_.-]+))?$")
#: a dispatch-workflow point: "<workflow>:<line>:<input>=<value>"
_WORKFLOW = re.compile(r"^(?P<origin>.+:\d+):(?P<input>[A-Za-z_][A-Za-z0-9_-]*)=(?P<value>.*)$")


def _key(label: str) -> tuple[tuple[str, str], str, bool]:
    """((group head, what varies), the varying value, whether the value is a concurrency)."""
    m = _CONFIG.match(label)
    if m:
        return (f"{m['origin']} {m['tag']}", "conc"), m["conc"], True
    m = _DEFAULT.match(label)
    if m:
        tag = m["tag"] + (f"-{m['backend']}" if m["backend"] else "")
        return (f"default matrix: {tag}", "conc"), m["conc"], True
    m = _WORKFLOW.match(label)
    if m:
        return (m["origin"], m["input"]), m["value"], False
    return ("", ""), label, False


def _values(values: list[str], numeric: bool) -> str:
    if numeric:
        values = sorted(values, key=int)
    if len(values) <= LIST_MAX:
        return ",".join(values)
    return (
        f"{values[0]}..{values[-1]} ({len(values)} points)"
        if numeric
        else f"{','.join(values[:LIST_MAX])},… ({len(values)} in all)"
    )


def compact_points(labels: list[str]) -> list[str]:
    """One line per group of sweep points, groups in the order their first point comes."""
    groups: dict[tuple[str, str], tuple[list[str], bool]] = {}
    for label in labels:
        key, value, numeric = _key(label)
        vals, _ = groups.setdefault(key, ([], numeric))
        if value not in vals:
            vals.append(value)
    out = []
    for (head, what), (vals, numeric) in groups.items():
        if not head:  # labels of no known shape, as they are
            shown = ", ".join(vals[:OTHER_MAX]) + (f", … ({len(vals)} in all)" if len(vals) > OTHER_MAX else "")
            out.append(shown)
        elif what == "conc":
            out.append(f"{head} conc {_values(vals, numeric)}")
        else:
            out.append(f"{head} {what}={_values(vals, numeric)}")
    return out
