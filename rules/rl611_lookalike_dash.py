import unicodedata

from recipelint.lint.rulebase import Rule

#: characters that look like `-` but are not (the engine's parser does not take them for one)
DASHES = frozenset("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d")
#: invisible bidirectional controls (a word holding one is not the word it looks like)
BIDI = frozenset("\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class LookalikeDash(Rule):
    """
    ## What it does
    Reports a word of a serve launch that starts with a character that looks like a hyphen but is
    not one — an en dash `–`, an em dash `—`, a minus sign `−`, a non-breaking or fullwidth hyphen
    (text pasted from a document or a chat) — or that holds an invisible bidirectional control.

    ## Why is this bad?
    The engine's parser takes `–tensor-parallel-size` for a positional argument, not an option:
    argparse (vLLM, SGLang) stops with `unrecognized arguments`, click (TensorRT-LLM) with
    `Got unexpected extra argument`.  The word reads right to a reviewer, so the mistake survives
    review.  A bidirectional control makes the text displayed differ from the text run.

    ## Example
    ```bash
    vllm serve "$MODEL" –tensor-parallel-size 8
    ```

    ## Use instead
    ```bash
    vllm serve "$MODEL" --tensor-parallel-size 8
    ```

    ## Exceptions
    Only the words of a launch are checked, and for dashes only their first character and not the
    values of options (`--served-model-name "– name"` may mean it).
    """

    code = "RL611"
    name = "lookalike-dash"
    severity = "error"
    sweep_independent = True

    def check(self, ctx):
        for use in ctx.uses():
            lc = use.launch
            values = {id(f.value) for f in lc.flags if f.value is not None and not f.inline}
            for w in lc.argv[lc.start :]:
                text = w.text
                if not text:
                    continue
                bidi = [ch for ch in text if ch in BIDI]
                if text[0] in DASHES and id(w) not in values:
                    name = unicodedata.name(text[0], "a lookalike dash").lower()
                    fixed = "--" + text.lstrip("".join(DASHES) + "-")
                    msg = (
                        f"`{text}` starts with {name} (U+{ord(text[0]):04X}), not a hyphen: the server's parser "
                        f"takes it for a positional argument and stops; write `{fixed}`"
                    )
                    yield ctx.finding(w.value_loc or w.loc, msg, use.point, key=f"dash|{text}")
                elif bidi:
                    shown = ", ".join(f"U+{ord(ch):04X}" for ch in dict.fromkeys(bidi))
                    msg = (
                        f"a word of this launch holds an invisible bidirectional control ({shown}): the text "
                        "shown is not the text run; retype the word"
                    )
                    yield ctx.finding(w.value_loc or w.loc, msg, use.point, key=f"bidi|{shown}")
