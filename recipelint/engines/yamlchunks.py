"""YAML made of chunks, decoded with a source location for every key and value.

A TensorRT-LLM options file is usually a here-document the recipe writes
(``cat > cfg.yml <<EOF ... max_batch_size: $MAX_BATCH_SIZE ... EOF``): its text is a string of
chunks, some computed (``$MAX_BATCH_SIZE`` at this sweep point), some unknown.  :func:`decode`
parses it as YAML (``engines.yamlpos``: bounded size and depth) and gives back the same
``JNode`` tree as JSON values (``engines.jsonpos``), each key and value located at the line the
recipe wrote it on — a heredoc line, or the assignment a value came from.

An unknown chunk is parsed as a placeholder character: a scalar holding it is an *unknown* value,
never a wrong one; a document that does not parse because of one is "not judged", not an error.
"""

from __future__ import annotations

import bisect

from recipelint.engines.jsonpos import _UNK, JNode, JsonError, _Map


class _Lines:
    def __init__(self, text: str):
        self.starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self.starts.append(i + 1)

    def offset(self, line: int, col: int) -> int:
        if line >= len(self.starts):
            return self.starts[-1]
        return self.starts[line] + col

    def line_col(self, offset: int) -> tuple[int, int]:
        k = max(0, bisect.bisect_right(self.starts, offset) - 1)
        return k, offset - self.starts[k]


def decode(chunks) -> JNode | JsonError:
    """The YAML document in ``chunks`` as a ``JNode`` tree (objects, arrays, scalars), or the
    reason it does not load (``JsonError``: message, location, offset).  A document with unknown
    chunks that does not load is a ``JsonError`` whose message starts with "unknown:"."""
    from recipelint.engines import yamlpos

    m = _Map(chunks)
    text = m.text
    lines = _Lines(text)
    try:
        data = yamlpos.load(text, duplicates=True)
    except Exception as e:  # YAMLPosError, ruamel's YAMLError: the document is not YAML
        line = getattr(e, "line", None)
        col = getattr(e, "column", None)
        if line is None:
            mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
            line, col = (mark.line, mark.column) if mark is not None else (0, 0)
        off = min(lines.offset(line, col or 0), max(0, len(text) - 1))
        msg = str(getattr(e, "problem", None) or e).split("\n")[0]
        if _UNK in text:
            msg = "unknown: " + msg
        return JsonError(f"{msg} (line {line + 1} column {(col or 0) + 1} of the file)", m.loc(off, off + 1), off)
    return _Builder(m, lines).node(data, 0, 0)


class _Builder:
    def __init__(self, m: _Map, lines: _Lines):
        self.m = m
        self.lines = lines
        self.text = m.text

    def _scalar_end(self, start: int) -> int:
        """The end of a scalar written at ``start``: the rest of its line, without a comment or a
        flow collection's separator."""
        t = self.text
        end = t.find("\n", start)
        end = len(t) if end < 0 else end
        if start < len(t) and t[start] in "\"'":  # a quoted scalar: to its closing quote
            q = t.find(t[start], start + 1)
            return q + 1 if 0 < q <= end else end
        j = start
        while j < end and t[j] not in ",]}#":
            j += 1
        while j > start and t[j - 1] in " \t":
            j -= 1
        return max(j, start + 1)

    def node(self, v, line: int, col: int) -> JNode:
        start = self.lines.offset(line, col)
        if isinstance(v, dict):
            n = JNode("object", None, start, start, self.m.loc(start, start + 1))
            lc = getattr(v, "lc", None)
            for k, x in v.items():
                kl, kc = lc.key(k) if lc is not None else (line, col)
                vl, vc = lc.value(k) if lc is not None else (kl, kc)
                ks = self.lines.offset(kl, kc)
                key_text = str(k)
                ke = ks + len(key_text)
                known = _UNK not in key_text
                key = JNode("string" if known else "unknown", key_text if known else None, ks, ke, self.m.loc(ks, ke), key_text)
                n.items.append((key, self.node(x, vl, vc)))
            for k, kl, kc in getattr(lc, "dups", ()):
                # a key written again: kept in text order with an unknown value (the later one wins,
                # as in PyYAML; ``JNode.get`` gives the last), so that a rule can say so
                ks = self.lines.offset(kl, kc)
                ke = ks + len(str(k))
                key = JNode("string", str(k), ks, ke, self.m.loc(ks, ke), str(k))
                n.items.append((key, JNode("unknown", None, ks, ke, None, "")))
            n.items.sort(key=lambda kv: kv[0].start)
            return n
        if isinstance(v, list):
            n = JNode("array", None, start, start, self.m.loc(start, start + 1))
            lc = getattr(v, "lc", None)
            for i, x in enumerate(v):
                il, ic = lc.item(i) if lc is not None else (line, col)
                n.elements.append(self.node(x, il, ic))
            return n
        end = self._scalar_end(start)
        raw = self.text[start:end]
        loc = self.m.loc(start, end)
        if isinstance(v, bool):
            return JNode("bool", v, start, end, loc, raw)
        if isinstance(v, (int, float)):
            return JNode("number", v, start, end, loc, raw)
        if v is None:
            return JNode("null", None, start, end, loc, raw)
        s = str(v)
        if _UNK in s:
            return JNode("unknown", None, start, end, loc, raw)
        return JNode("string", s, start, end, loc, raw)
