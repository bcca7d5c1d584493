"""Repairs of tree-sitter-bash's known misreadings, one module per family.

tree-sitter-bash 0.25 parses some valid bash wrongly: it ends a ``=~`` regex at a blank, takes the
``{`` in ``${X:-{"a": 1}}`` for a brace group, glues a here-document's terminator to the next
token, attaches a redirect to the wrong statement...  Where the converted tree shows such a
symptom, :func:`recipelint.bash.parse._repaired` runs the matching pass; each pass says in its
docstring which misreading it mends and is checked against real bash (tests/test_parse.py,
tests/test_ground_truth.py).
"""
