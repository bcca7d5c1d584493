"""Stage 2 of the pipeline: the abstract interpreter (it never executes anything).

``Evaluator(script_path, on_command=...).run(parsed, env)`` walks a :class:`~recipelint.bash.parse.Parsed`
tree under one environment (a sweep point) and returns a :class:`~recipelint.evaluate.state.PathResult`
for every path the script can take.  The :class:`~recipelint.evaluate.evaluator.Evaluator` class is
composed of mixins, one per concern; each is a plain class whose methods take the evaluator as
``self`` and a :class:`~recipelint.evaluate.state.State`:

==================  ===========================================================================
``evaluator``       the entry point, the statement dispatch table and the step bound
``statements``      groups, subshells, assignments, `unset`, functions, lists, pipelines
``control``         `if`, `case` and the loops
``joins``           merging the states of paths that agree
``effects``         havoc: what skipped code may change; whether a fork is worth it
``watch``           which code ahead may still launch (the launch watch)
``commands``        simple commands, redirections, builtins/functions/external dispatch, calls
``assign``          assignments and declarations (arrays, attributes, name references)
``words``           word expansion in bash's order, with locations
``params``          parameter expansion (``${X:-w}``, ``${X%p}``, ``${X/a/b}``, ``${X:o:l}``...)
``substitution``    command substitution and here-documents
``conditions``      arithmetic glue and ``[[ ]]`` tests
==================  ===========================================================================

Plain modules beside them: ``state`` (State, results, Limits, the exceptions that end a command
or a path), ``variables`` (Var and its Kind), ``values`` (the abstract values: words of chunks with
source locations, unknown values), ``summaries`` (function-call summaries replayed across calls),
``builtins`` and ``textutils`` (models of shell builtins and text utilities), ``testcmd`` (the
`test`/`[` builtin), ``braces``, ``tilde``, ``fields``, ``quoting`` (the expansions' pure parts),
``library`` (sourced files) and ``support`` (small shared helpers).

Nothing in this package imports ``recipelint.engines``, ``recipelint.sweep`` or the rules: the launch
detector plugs in through the ``on_command`` hook.
"""
