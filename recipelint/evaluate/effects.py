"""What a piece of code may change, for the statements the evaluator does not run: the
variables a skipped loop or branch assigns become unknown (havoc), and whether a fork is worth
its cost."""

from __future__ import annotations

import os
import re

from recipelint.evaluate.state import _NAME, UNKNOWN_NAMES
from recipelint.evaluate.summaries import note_watch
from recipelint.evaluate.support import _PYTHON
from recipelint.evaluate.values import unknown
from recipelint.evaluate.variables import Kind, Var

#: in ``_assigned``'s names: the code may assign names not known (`declare "$k=$v"`, `eval`,
#: `source`): skipping it notes ``UNKNOWN_NAMES``
DYNAMIC = "\0names not known"

_SPECIAL_BUILTINS_EFFECT = frozenset(
    {
        "exit",
        "return",
        "break",
        "continue",
        "source",
        ".",
        "eval",
        "export",
        "set",
        "shift",
        "local",
        "declare",
        "readonly",
        "typeset",
        "unset",
        "read",
        "mapfile",
        "readarray",
        "let",
        "exec",
        "bash",
        "sh",
        "printf",
        "cat",
        "tee",
        "getopts",
        "builtin",
        "command",
        "trap",
        "false",
    }
)


class Effects:
    """Havoc and fork decisions (see the module docstring)."""

    def _can_fork(self, st, node) -> bool:
        for r in self._recs:  # the answer depends on the paths so far
            r.budget = True
        if self.paths < self.limits.max_paths:
            return True
        if not st.truncated:
            st.truncated = True
            st.notes.append(
                (node.loc, f"more than {self.limits.max_paths} paths: later branches on unknown values are not followed")
            )
        return False

    def _fork_worthy(self, nodes, st) -> bool:
        """Whether the nodes can change anything we track (else an unknown branch is skipped)."""
        if st.out is not None:
            return True
        if self._recs:  # (whether it names a watched command: see LaunchWatch._rest_may_launch)
            note_watch(self._recs)
        for n in nodes:
            eff, names = self._effects(n)
            if eff:
                return True
            for nm in names:
                base = os.path.basename(nm)
                if nm in st.funcs or base in self.watch or (_PYTHON.match(base) and "python" in self.watch):
                    return True
        return False

    def _effects(self, node) -> tuple[bool, frozenset]:
        key = id(node)
        hit = self._effect_cache.get(key)
        if hit is not None and hit[2] is node:
            return hit[0], hit[1]
        names = set()
        eff = False
        stack = [node]
        while stack and not eff:
            n = stack.pop()
            t = n.type
            if t in ("variable_assignment", "declaration_command", "unset_command", "function_definition"):
                eff = True
                break
            if t == "command":
                nm = n.field("name")
                if nm is None:
                    eff = True
                    break
                word = nm.children[0] if nm.children else nm
                if word.type != "word":
                    eff = True
                    break
                txt = word.text
                if txt in _SPECIAL_BUILTINS_EFFECT:
                    eff = True
                    break
                names.add(txt)
            if t in ("arithmetic_expansion", "compound_statement") and ("=" in n.text or "++" in n.text or "--" in n.text):
                if t == "arithmetic_expansion" or (n.children and n.children[0].type == "(("):
                    txt = n.text
                    if re.search(r"(?<![=!<>])=(?!=)|\+\+|--", txt):
                        eff = True
                        break
            if t == "file_redirect":
                eff = True
                break
            stack.extend(n.children)
        res = (eff, frozenset(names), node)
        self._effect_cache[key] = res
        return eff, res[1]

    def _havoc(self, nodes, st, extra=()) -> None:
        """Make every variable the nodes may assign unknown."""
        names = set(extra)
        arrays = set()
        for n in nodes:
            for name in self._assigned(n):
                if name == DYNAMIC:
                    st.notes.append((n.loc, UNKNOWN_NAMES))
                elif name.endswith("[]"):
                    arrays.add(name[:-2])
                else:
                    names.add(name)
        for name in names | arrays:
            var = st.lookup(name)
            if name in arrays or (var is not None and var.kind in (Kind.INDEXED, Kind.ASSOC, Kind.UNKNOWN_ARRAY)):
                st.put(
                    name,
                    Var(
                        Kind.UNKNOWN_ARRAY,
                        unknown(f"${{{name}[@]}}", nodes[0].loc if nodes else None, multi=True),
                        var.exported if var is not None else False,
                    ),
                )
            else:
                self.set_scalar(st, name, unknown(f"${name}", nodes[0].loc if nodes else None), nodes[0].loc if nodes else None)
        # function calls inside can do anything: note it
        st.truncated = st.truncated or any(self._calls_functions(n, st) for n in nodes)

    def _calls_functions(self, node, st) -> bool:
        eff, names = self._effects(node)
        return any(nm in st.funcs for nm in names)

    def _assigned(self, node) -> frozenset:
        key = id(node)
        hit = self._assign_cache.get(key)
        if hit is not None and hit[1] is node:  # (kept with its node, as in _exits_in)
            return hit[0]
        names = set()
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "variable_assignment":
                nm = n.field("name")
                val = n.field("value")
                if nm is not None:
                    if nm.type == "subscript":
                        nm = nm.field("name") or nm
                        names.add(nm.text + "[]")
                    elif val is not None and val.type == "array":
                        names.add(nm.text + "[]")
                    else:
                        names.add(nm.text)
            elif n.type == "for_statement":
                v = n.field("variable")
                if v is not None:
                    names.add(v.text)
            elif n.type == "declaration_command" and any(
                c.named
                and c.type != "variable_assignment"
                and not (c.type in ("word", "variable_name") and (_NAME.fullmatch(c.text) or c.text.startswith(("-", "+"))))
                for c in n.children[1:]
            ):
                names.add(DYNAMIC)  # (`declare "$k=$v"`, `export $(cat env)`)
            elif n.type == "command":
                nm = n.field("name")
                if nm is not None and nm.text in ("eval", "source", "."):
                    names.add(DYNAMIC)
                if nm is not None and nm.text in ("cd", "pushd", "popd"):
                    names.update(("PWD", "OLDPWD"))
                if nm is not None and nm.text in ("read", "mapfile", "readarray", "printf", "getopts", "let"):
                    for a in n.fields_all("argument"):
                        if _NAME.fullmatch(a.text):
                            names.add(a.text)
            elif n.type in (
                "arithmetic_expansion",
                "compound_statement",
                "binary_expression",
                "postfix_expression",
                "unary_expression",
            ):
                for m in re.finditer(
                    r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:[-+*/%&|^]|<<|>>|\*\*)?=(?!=)|([A-Za-z_][A-Za-z0-9_]*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)",
                    n.text,
                ):
                    names.add(m.group(1) or m.group(2) or m.group(3))
            stack.extend(n.children)
        fs = frozenset(names)
        self._assign_cache[key] = (fs, node)
        return fs
