"""Command-line interface: ``recipelint render`` (and, from the rules layer, ``check``)."""

from __future__ import annotations

import gc
import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer

from recipelint import __version__
from recipelint.files import write_error, write_output
from recipelint.report.style import printable

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Static linter for LLM-serving benchmark launch scripts (vLLM / SGLang / TRT-LLM bash recipes).",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


def _echo(message: str = "", err: bool = False, nl: bool = True) -> None:
    """``typer.echo`` of text that may hold a recipe's (a path, a message, a value): its control
    characters escaped (``report.style.printable``; JSON is ASCII and passes unchanged).  On stderr
    every note is one line: a newline or carriage return in it (a file named
    ``a\n::stop-commands::x.sh``) is written as an escape, so no text of the checked repository
    starts a line — a GitHub workflow command, a fake finding — of its own (issue 49)."""
    text = printable(message)
    if err:
        text = text.replace("\r", "\\r").replace("\n", "\\n")
    typer.echo(text, err=err, nl=nl)


def _fail(msg: str, code: int = 2) -> None:
    _echo(f"recipelint: {msg}", err=True)
    raise typer.Exit(code)


def _version(value: bool):
    if value:
        _echo(f"recipelint {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Print the version and exit."),
):
    pass


def _parse_env(items: list[str]) -> dict[str, str]:
    env = {}
    for item in items:
        if "=" not in item:
            _fail(f"--env takes KEY=VALUE, got '{item}'")
        k, v = item.split("=", 1)
        if not k.replace("_", "").isalnum() or k[0].isdigit():
            _fail(f"--env: '{k}' is not a variable name")
        env[k] = v
    return env


@app.command()
def render(
    script: Path = typer.Argument(..., help="The recipe to evaluate.", show_default=False),
    env: list[str] = typer.Option(
        [],
        "--env",
        "-e",
        help="Set a variable for the evaluation (KEY=VALUE; repeatable). Without --env, an InferenceX recipe is "
        "evaluated under the default matrix, any other script under its caller's environment.",
    ),
    arg: list[str] = typer.Option(
        [], "--arg", "-a", help="A positional parameter for the script ($1, $2, ...; repeatable). Default: not known."
    ),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    color: str = typer.Option("auto", "--color", help="Colour the text output: auto, always or never."),
):
    """Print the serve launches a recipe would run: the shell-quoted command and each flag with its source line."""
    from recipelint.lint.workspace import Workspace, WorkspaceError
    from recipelint.report.launches import render_json, render_text
    from recipelint.sweep import configs
    from recipelint.sweep.points import default_points, environment_point, point_from_overrides, reads_sweep_variables

    if fmt not in ("text", "json"):
        _fail(f"--format must be text or json, got '{fmt}'")
    colour = _colour(color)
    if not script.exists():
        _fail(f"{script}: no such file")
    if script.is_dir():
        _fail(f"{script}: is a directory (render takes one script)")
    overrides = _parse_env(env)
    display = str(script)
    benchmark_repo = configs.find_root(script) is not None

    def points(text: str):
        if not arg and (benchmark_repo or reads_sweep_variables(text)):  # InferenceX's interface
            return [point_from_overrides(display, overrides)] if overrides else default_points(display, text)
        return [environment_point(overrides, list(arg) if arg else None)]

    try:  # (the recipe's settings apply: extra entry points, what it may source)
        res = Workspace.open([script]).analyse(script, points)
    except WorkspaceError as e:
        _fail(str(e))
    if fmt == "json":
        _echo(json.dumps(render_json(res), indent=2))
    else:
        render_text(res, color=colour)
    if not res.launches:
        _echo(f"recipelint: {display}: no serve launch found", err=True)
        raise typer.Exit(2)


_COLOR_HELP = (
    "Colour the full and concise output: auto (on a terminal, unless NO_COLOR is set or FORCE_COLOR asks), always or never."
)


def _colour(mode: str, to_file: bool = False) -> bool:
    """Whether a --color value colours stdout (a one-line error for a value that is none)."""
    from recipelint.report.style import COLOR_MODES, use_color

    if mode not in COLOR_MODES:
        _fail(f"--color must be one of {', '.join(COLOR_MODES)}, got '{mode}'")
    return use_color(mode, sys.stdout, to_file=to_file)


def _rel(path: str) -> str:
    import os

    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def _show_settings(ws, output_format: str | None, fail_on: str | None) -> None:
    """``--show-settings``: print the resolved settings with their sources, and the engine pins
    read from the repository; exit 0."""
    from recipelint.engines.catalog import ENGINE_NAMES
    from recipelint.lint.settings import show

    st, first = ws.settings, ws.paths[0]
    from recipelint.sweep import configs as configs_mod

    cli = {
        "select": ws.select,
        "ignore": ws.ignore,
        "fail-on": fail_on,
        "output-format": output_format,
        "configs": ws.master_configs,
    }
    cli = {k: [str(x) for x in v] if isinstance(v, list) else v for k, v in cli.items() if v}
    if ws.settings_file is not None:
        how = "--settings"
    else:
        how = f"found upward from {first}" if st.path is not None else f"none at or above {first}, up to the project root"
    root = configs_mod.find_root(first)
    found = (
        [_rel(str(p)) for pat in configs_mod.facts.load("inferencex")["configs"] for p in sorted(root.glob(pat))] if root else []
    )
    notes = {"configs": f"configs/*-master.yaml above {first} ({', '.join(found) or 'none found'})", "select": "every rule"}
    if not st.engine_versions:
        notes["engine-versions"] = "the sweep point's image, else the repository's pins (below), else every release"
    _echo(show(st, cli, how, notes), nl=False)
    lines = ws.engine_pins().messages()
    declared = set(st.engine_versions)
    for line in lines or ["none found"]:
        over = any(
            line.startswith(ENGINE_NAMES.get(e, e) + " ") or line.startswith(ENGINE_NAMES.get(e, e) + ":") for e in declared
        )
        _echo(f"# engine pins: {line}{' (engine-versions wins)' if over else ''}")
    raise typer.Exit(0)


def _stdin_path(paths, stdin_filename, diff_base, pre_commit, add_suppressions, fixing=False) -> Path | None:
    """``check -``: the path the text read from standard input is checked at (``--stdin-filename``),
    or None when the paths are files and folders."""
    dash = [p for p in paths or [] if str(p) == "-"]
    if not dash and stdin_filename is None:
        return None
    if stdin_filename is None:
        _fail("check -: --stdin-filename PATH says where the text read from standard input is checked (its repository, its name)")
    if len(paths or []) > len(dash) or len(dash) > 1:
        _fail("--stdin-filename: the one input is standard input (`check -`): no other path")
    if diff_base is not None or pre_commit or add_suppressions or fixing:
        _fail(
            "--stdin-filename: not with --diff-base, --pre-commit, --add-suppressions, --fix or --diff "
            "(they read or write the files on disk)"
        )
    if str(stdin_filename) in ("", "-") or stdin_filename.is_dir():
        _fail(f"--stdin-filename {stdin_filename}: a recipe's path, not a directory")
    return stdin_filename


def _read_stdin() -> bytes:
    """Standard input, bounded as a recipe read from disk is."""
    from recipelint.bash.source import MAX_RECIPE_BYTES
    from recipelint.files import Refused, read_stream

    try:
        return read_stream(sys.stdin.buffer, MAX_RECIPE_BYTES)
    except Refused as r:
        _fail(r.reason)
    return b""


@app.command()
def check(
    paths: list[Path] = typer.Argument(
        None,
        help="Recipes or directories (walked for *.sh), and master configs (*-master.yaml); `-`: standard input "
        "(with --stdin-filename). Default: the current directory.",
        show_default=False,
    ),
    output_format: Optional[str] = typer.Option(
        None, "--output-format", "-o", help="full (default), concise, json, json-lines, github or sarif."
    ),
    output_file: Optional[Path] = typer.Option(None, "--output-file", help="Write the report to this file instead of stdout."),
    # for CI (the Action): files written beside the report from the same run
    sarif_file: Optional[Path] = typer.Option(
        None, "--sarif-file", help="Also write SARIF of every finding of the tree (before --diff-base keeps the new ones)."
    ),
    summary_file: Optional[Path] = typer.Option(
        None, "--summary-file", help="Also append a markdown summary of the reported findings (e.g. $GITHUB_STEP_SUMMARY)."
    ),
    select: list[str] = typer.Option(
        [], "--select", help="Only rules whose code starts with one of these (comma-separated or repeated)."
    ),
    ignore: list[str] = typer.Option([], "--ignore", help="Skip rules whose code starts with one of these."),
    statistics: bool = typer.Option(
        False, "--statistics", help="Print how many findings each rule has, instead of the findings."
    ),
    fail_on: Optional[str] = typer.Option(
        None, "--fail-on", help="Lowest severity that makes the exit status 1: info, warning (default) or error."
    ),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    no_ignores: bool = typer.Option(
        False, "--no-ignores", help="Report findings even where a suppression comment would hide them."
    ),
    show_documented: bool = typer.Option(
        False,
        "--show-documented",
        help="Also report, as info, findings about a choice a comment in the recipe documents (naming the flag, variable or sibling).",
    ),
    force_exclude: bool = typer.Option(
        False, "--force-exclude", help="Apply the settings' `exclude` to files named on the command line too (for pre-commit)."
    ),
    diff_base: Optional[str] = typer.Option(
        None,
        "--diff-base",
        help="Report only the findings the change since this git revision's merge base introduced, analysing only what it can affect.",
    ),
    baseline: Optional[Path] = typer.Option(
        None, "--baseline", help="Do not report the findings listed in this baseline file (see --write-baseline)."
    ),
    write_baseline: Optional[Path] = typer.Option(
        None,
        "--write-baseline",
        help="Write the findings to this baseline file (then exit 0), to adopt the check on a tree that has some.",
    ),
    add_suppressions: bool = typer.Option(
        False,
        "--add-suppressions",
        help="Write a suppression comment with a reason placeholder for every finding reported (then exit 0), "
        "to adopt the check one finding at a time.",
    ),
    pre_commit: bool = typer.Option(
        False,
        "--pre-commit",
        help="Run as the pre-commit hook: on a commit, what the staged change introduced anywhere in the tree; "
        "with --all-files, the whole tree (as `check .`).",
    ),
    config: list[Path] = typer.Option(
        [],
        "--master-config",
        "--config",
        help="A master config, *-master.yaml (repeatable; --config is an alias). Default: configs/*-master.yaml above the first path.",
    ),
    no_config: bool = typer.Option(False, "--no-config", help="Ignore master configs: use the default environment matrix."),
    settings_file: Optional[Path] = typer.Option(
        None,
        "--settings",
        help="recipelint settings file (pyproject.toml with \\[tool.recipelint], or .recipelint.yaml / .yml). Default: found upward from the first path.",
    ),
    no_cache: bool = typer.Option(False, "--no-cache", help="Analyse everything, even when an identical earlier run is cached."),
    jobs: int = typer.Option(0, "--jobs", "-j", help="Worker processes for large trees (0: one per CPU, 1: none).", min=0),
    show_settings: bool = typer.Option(
        False, "--show-settings", help="Print the resolved settings and where each value came from, and exit."
    ),
    color: str = typer.Option("auto", "--color", help=_COLOR_HELP),
    search_root: list[Path] = typer.Option(
        [],
        "--search-root",
        help="A folder besides the project root whose files recipes may source (repeatable; default: none). "
        "Files outside the roots, and under /proc, /dev, /sys, are not read (RL008).",
    ),
    allow_empty: bool = typer.Option(
        False, "--allow-empty", help="Exit 0 when the paths hold nothing to check (else: a usage error, exit 2)."
    ),
    fix: bool = typer.Option(
        False,
        "--fix",
        help="Apply the safe fixes of the findings (kept only when bash -n parses the result and linting again "
        "shows the finding gone), then report what remains.",
    ),
    unsafe_fixes: bool = typer.Option(
        False, "--unsafe-fixes", help="With --fix or --diff: also the fixes that choose a value (a flag a sibling passes)."
    ),
    show_diff: bool = typer.Option(
        False, "--diff", help="Print the diff of what --fix would write, write nothing (exit 1 when there is one)."
    ),
    stdin_filename: Optional[Path] = typer.Option(
        None,
        "--stdin-filename",
        help="With `-` as the path: check the text read from standard input as if it were this file "
        "(its repository's master configs, sourced files and siblings are read from disk); findings name this path.",
    ),
):
    """Lint recipes: rebuild each serve launch under every sweep point and check it with rules."""
    from recipelint.files import overlaid
    from recipelint.lint.settings import SEVERITIES
    from recipelint.lint.workspace import Workspace, WorkspaceError, plan
    from recipelint.report.common import FORMATS
    from recipelint.report.concise import render_concise
    from recipelint.report.full import render_full
    from recipelint.report.github import render_github
    from recipelint.report.jsonfmt import render_json, render_json_lines
    from recipelint.report.progress import Progress
    from recipelint.report.statistics import render_statistics

    stdin = _stdin_path(paths, stdin_filename, diff_base, pre_commit, add_suppressions, fix or show_diff)
    try:
        paths, diff_base = plan(paths, diff_base, pre_commit, Path.cwd())
    except WorkspaceError as e:
        _fail(str(e))
    paths = list(paths or [Path(".")]) if stdin is None else [stdin]
    if unsafe_fixes and not (fix or show_diff):
        _fail("--unsafe-fixes goes with --fix (apply them) or --diff (show them)")
    if (fix or show_diff) and (diff_base or write_baseline is not None or pre_commit or add_suppressions):
        _fail(
            "--fix and --diff take the findings of the tree: not with --diff-base, --pre-commit, --write-baseline or --add-suppressions"
        )
    if add_suppressions and (diff_base or write_baseline is not None or pre_commit):
        _fail("--add-suppressions takes the whole tree's findings: not with --diff-base, --pre-commit or --write-baseline")
    colour = _colour(color, to_file=output_file is not None)
    try:
        ws = Workspace.open(
            paths,
            settings_file=settings_file,
            master_configs=list(config),
            use_configs=not no_config,
            search_roots=list(search_root),
            select=select,
            ignore=ignore,
            output_format=output_format,
            formats=FORMATS,
            fail_on=fail_on,
            cache=not no_cache,
            diff_base=diff_base,
        )
    except WorkspaceError as e:
        _fail(str(e))
    if show_settings:
        _show_settings(ws, output_format, fail_on)
    texts = {stdin: _read_stdin()} if stdin is not None else {}
    ws.activate()
    progress = Progress(sys.stderr)  # "checked N/M files" on a terminal, for runs over ~2 s
    opts = ws.options(
        use_suppressions=not no_ignores,
        show_documented=show_documented,
        force_exclude=force_exclude,
        baseline=baseline if write_baseline is None else None,
        jobs=jobs,
        progress=progress,
    )
    from recipelint.lint import baseline as baseline_mod

    try:
        with progress:
            result = ws.lint(opts, texts=texts)
    except WorkspaceError as e:
        _fail(str(e))
    for p in result.skipped:
        _echo(f"recipelint: {p}: not a recipe, master config or dispatch workflow: skipped", err=True)
    if (
        not result.file_count
        and not result.findings
        and not (diff_base or pre_commit or allow_empty or force_exclude)  # (a hook's files all excluded: fine)
        and not any(_holds_master_configs(p) for p in paths)
    ):
        # (a wrong folder, a typo'd glob: "All checks passed (0 files)" would read as a pass)
        shown = ", ".join(str(p) for p in paths[:3]) + (" …" if len(paths) > 3 else "")
        _fail(
            f"nothing to check in {shown}: directories are walked for *.sh, *.bash, *.slurm, *.sbatch and "
            "scripts whose #! line runs bash or sh (name a file to check it; --allow-empty to pass anyway)"
        )
    for note in result.pin_notes:
        _echo(f"recipelint: engine pins: {note}", err=True)
    if fix or show_diff:
        result = _fix(ws, result, opts, unsafe_fixes, show_diff)
    if add_suppressions:
        _add_suppressions(ws, result, opts)
    if write_baseline is not None:
        try:
            n = baseline_mod.write(write_baseline, result.findings)
        except baseline_mod.BaselineError as e:
            _fail(str(e))
        _echo(f"recipelint: wrote {n} finding{'s' if n != 1 else ''} to the baseline {write_baseline}", err=True)
        raise typer.Exit(0)
    if result.stale_baseline:
        n = len(result.stale_baseline)
        _echo(
            f"recipelint: {baseline}: {n} baselined finding{'s' if n != 1 else ''} no longer occur "
            "(rewrite it with --write-baseline to drop them):",
            err=True,
        )
        for f in result.stale_baseline[:20]:
            _echo(f"  {f.span.path}:{f.span.line}: {f.code} {f.message}", err=True)
        if n > 20:
            _echo(f"  ... and {n - 20} more", err=True)
    fmt = ws.output_format
    if result.scope_note and fmt in ("full", "concise", "github"):
        _echo(f"recipelint: {result.scope_note}", err=True)
    if result.unrun and fmt in ("full", "concise") and output_file is None:
        _echo(_unrun_note(result.unrun), err=True)
    if result.documented and fmt in ("full", "concise") and output_file is None:
        n = result.documented
        _echo(
            f"recipelint: {n} finding{'s' if n != 1 else ''} about choices documented in comments not shown "
            "(--show-documented shows them)",
            err=True,
        )
    findings = result.findings
    with overlaid(texts):  # (a code frame quotes the text checked)
        if statistics:
            text = render_statistics(findings)
        elif fmt == "json":
            text = render_json(findings)
        elif fmt == "json-lines":
            text = render_json_lines(findings)
        elif fmt == "github":
            text = render_github(findings)
        elif fmt == "sarif":
            from recipelint.report.sarif import render_sarif  # (its rule help imports every rule: only when asked)

            text = render_sarif(findings)
        elif fmt == "concise":
            text = render_concise(findings, result.file_count, color=colour)
        else:
            text = render_full(findings, result.file_count, color=colour)
    if output_file is not None:
        try:
            write_output(output_file, text)
        except OSError as e:
            _fail(f"{output_file}: {write_error(e)}")
    else:
        sys.stdout.write(text)  # (escaped by its format: `printable` would escape the colours too)
    _write_ci_files(ws, result, sarif_file, summary_file, opts)
    rank = SEVERITIES.index(ws.fail_on)
    failing = [f for f in findings if SEVERITIES.index(f.severity) >= rank]
    raise typer.Exit(0 if exit_zero or not failing else 1)


def _unrun_note(unrun: list[str]) -> str:
    """One line: the recipes with a launch that no master-config entry runs, by folder (the three largest)."""
    import posixpath

    by_dir: dict[str, int] = {}
    for d in unrun:
        folder = posixpath.dirname(d.replace("\\", "/")) or "."
        by_dir[folder] = by_dir.get(folder, 0) + 1
    top = sorted(by_dir.items(), key=lambda kv: (-kv[1], kv[0]))
    where = ", ".join(f"{n} in {d}/" for d, n in top[:3]) + (f", {len(top) - 3} more folders" if len(top) > 3 else "")
    n = len(unrun)
    return (
        f"recipelint: {n} recipe{'s' if n != 1 else ''} with a serve launch get{'s' if n == 1 else ''} no sweep point "
        f"from the master configs ({where}): only sweep-independent checks ran (syntax, JSON, unknown flags, engine patches)"
    )


def _add_suppressions(ws, result, opts) -> None:
    """``--add-suppressions``: write the comments, lint again to verify them (a file where they do
    not do exactly their job is put back), say what was done; exit 0."""
    from recipelint.lint import addsuppress

    try:
        out = addsuppress.add(result.findings)
    except OSError as e:
        _fail(f"cannot write a suppression comment: {e.strerror or e} ({e.filename})")
    if out.edits:
        after = ws.lint(opts)
        addsuppress.verify(out, result.findings, after.findings)
    n, files = out.comments, len(out.edits)
    _echo(
        f"recipelint: added suppression comments on {n} line{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}"
        f" (replace {addsuppress.REASON!r} with the reason)",
        err=True,
    )
    for path in out.reverted:
        _echo(f"recipelint: {path}: left unchanged (the comments did not suppress exactly its findings)", err=True)
    for path, why in out.refused:
        _echo(f"recipelint: {path}: not edited: {why}", err=True)
    if out.unplaced:
        k = len(out.unplaced)
        _echo(f"recipelint: {k} finding{'s' if k != 1 else ''} cannot take a comment (use --write-baseline for these):", err=True)
        for f in out.unplaced[:20]:
            _echo(f"  {f.span.path}:{f.span.line}: {f.code} {f.message[:100]}", err=True)
        if k > 20:
            _echo(f"  ... and {k - 20} more", err=True)
    raise typer.Exit(0)


def _fix(ws, result, opts, unsafe: bool, preview: bool):
    """``--fix`` / ``--diff``: apply (or show) the findings' fixes; after ``--fix``, the run's
    result linted again (what remains is reported)."""
    from dataclasses import replace

    from recipelint.lint import fixes
    from recipelint.lint.workspace import WorkspaceError

    quiet = replace(opts, progress=None)
    try:
        out = fixes.apply(result.findings, unsafe, write=not preview, relint=lambda ps: ws.lint(quiet, paths=ps).all_findings)
    except WorkspaceError as e:
        _fail(str(e))
    more = f" ({out.needs_unsafe} more with --unsafe-fixes)" if out.needs_unsafe else ""
    for f, why in out.skipped:
        _echo(f"recipelint: {f.span.path}:{f.span.line}: {f.code} not fixed: {why}", err=True)
    if preview:
        text = "".join(out.diffs.values())
        if text:
            _echo(text, nl=False)
        n = out.fixed
        _echo(f"recipelint: would fix {n} finding{'s' if n != 1 else ''}{more}", err=True)
        raise typer.Exit(1 if text else 0)
    n, k = out.fixed, len(out.applied)
    _echo(f"recipelint: fixed {n} finding{'s' if n != 1 else ''} in {k} file{'s' if k != 1 else ''}{more}", err=True)
    if not n:
        return result
    try:
        return ws.lint(opts)
    except WorkspaceError as e:
        _fail(str(e))


def _write_ci_files(ws, result, sarif_file: Path | None, summary_file: Path | None, opts) -> None:
    """``--sarif-file`` (the whole tree's findings: code scanning takes an upload as the whole
    state of a branch; with ``--diff-base`` that costs an analysis of the whole work tree, which
    the diff itself does not need) and ``--summary-file`` (appended: the reported findings and,
    with ``--diff-base``, what the change does to the serve commands, as ``recipelint changes``
    lists it, from the analyses the run made)."""
    from recipelint.lint.workspace import WorkspaceError

    diff_base = ws.diff_base
    everything = result.all_findings
    whole_count: int | None = len(everything)
    if diff_base and sarif_file is not None:
        try:
            everything = ws.whole_tree(opts).all_findings
        except WorkspaceError as e:
            _fail(str(e))
        whole_count = len(everything)
    elif diff_base:
        whole_count = None  # (only what the change can affect was analysed)
    if sarif_file is not None:
        from recipelint.report.sarif import render_sarif

        try:
            write_output(sarif_file, render_sarif(everything))
        except OSError as e:
            _fail(f"{sarif_file}: {write_error(e)}")
    if summary_file is not None:
        from recipelint.report.summary import render_summary

        text = render_summary(result.findings, result.file_count, whole_count, diff_base, result.scope_note)
        if diff_base:
            from recipelint.report.changes import render_markdown

            analysed = {str(r.path.resolve()): r for r in [*result.files, *result.base_files]}
            try:
                text += render_markdown(*ws.changes(diff_base, analysed=analysed, options=opts))
            except WorkspaceError as e:  # the check itself compared with the base: this is not expected
                text += f"### Serve commands changed\n\nNot compared: {e}\n\n"
        try:
            write_output(summary_file, text, append=True)
        except OSError as e:
            _fail(f"{summary_file}: {write_error(e)}")


@app.command()
def sweep(
    script: Path = typer.Argument(..., help="A recipe run by master-config entries.", show_default=False),
    point: Optional[int] = typer.Option(
        None, "--point", "-p", help="Render the launch of this sweep point (its number in the list)."
    ),
    config: list[Path] = typer.Option(
        [],
        "--master-config",
        "--config",
        help="A master config, *-master.yaml (repeatable; --config is an alias). Default: configs/*-master.yaml above the script.",
    ),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
    env: list[str] = typer.Option([], "--env", "-e", help="Also set this variable at every point (KEY=VALUE; repeatable)."),
    arg: list[str] = typer.Option([], "--arg", "-a", help="A positional parameter for the script ($1, $2, ...; repeatable)."),
):
    """List the master-config sweep points that run a recipe, with the launch each one makes."""
    from recipelint.lint.analysis import FileResult
    from recipelint.lint.workspace import Workspace, WorkspaceError
    from recipelint.report.launches import render_json, render_text

    if fmt not in ("text", "json"):
        _fail(f"--format must be text or json, got '{fmt}'")
    if not script.is_file():
        _fail(f"{script}: no such file")
    try:
        ws = Workspace.open([script], master_configs=list(config))
        pts, problems = ws.sweep_points(script)
    except WorkspaceError as e:
        _fail(str(e))
    for p in problems:
        _echo(f"recipelint: {p.span.path}:{p.span.line}:{p.span.col}: {p.message}", err=True)
    if not pts:
        _fail(f"{script}: no master-config entry runs this recipe")
    if point is not None and not 1 <= point <= len(pts):
        _fail(f"--point must be between 1 and {len(pts)}")
    chosen = [pts[point - 1]] if point is not None else pts
    overrides = _parse_env(env)
    if overrides or arg:
        from dataclasses import replace

        from recipelint.evaluate.values import ARGV

        extra: dict = {**overrides, **({ARGV: tuple(arg)} if arg else {})}
        chosen = [replace(p, env={**p.env, **extra}) for p in chosen]
    try:
        res = ws.analyse(script, chosen)
    except WorkspaceError as e:
        _fail(str(e))
    if fmt == "json":
        out = []
        for i, pr in enumerate(res.points, 1):
            one = FileResult(res.path, res.display, res.source, None, res.problems, [pr])
            out.append(dict(index=point or i, **render_json(one), origin=str(pr.point.origin)))
        _echo(json.dumps(out, indent=2))
        return
    if point is not None:
        pr = res.points[0]
        _echo(
            f"sweep point {point}: {pr.point.config_key}  {pr.point.describe()}  ({_rel(pr.point.origin.path)}:{pr.point.origin.line})"
        )
        render_text(res, color=_colour("auto"))
        return
    for i, pr in enumerate(res.points, 1):
        lcs = pr.launches
        if lcs:
            what = "; ".join(f"{lc.engine} at line {lc.loc.real().span.line}" for lc in lcs)
        else:
            exits = [p.exit for p in pr.paths if p.exit is not None]
            what = f"stops: exit {exits[0].code} at line {exits[0].loc.real().span.line}" if exits else "no launch"
        origin = pr.point.origin
        _echo(f"{i:3d}  {pr.point.config_key}  {pr.point.describe()}  [{_rel(origin.path)}:{origin.line}]  -> {what}")


@app.command("changes")
def changes_cmd(
    paths: list[Path] = typer.Argument(None, help="Recipes or directories. Default: the current directory.", show_default=False),
    base: str = typer.Option(..., "--base", help="The revision to compare with (its merge base with HEAD; A...B accepted)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not reuse cached trees and base exports."),
):
    """What a change does to the serve commands: per recipe and group of sweep points, the flags
    added, removed and changed between the merge base and the working tree."""
    from recipelint.lint.workspace import Workspace, WorkspaceError
    from recipelint.report.changes import render

    if not base.strip():
        _fail("--base: empty revision")
    # (the run's settings are not read: `changes` compares the launches as the master configs make them)
    ws = Workspace.bare(list(paths or [Path(".")]), cache=not no_cache)
    try:
        commit, found = ws.changes(base, option="--base")
    except WorkspaceError as e:
        _fail(str(e))
    sys.stdout.write(printable(render(commit, found)))


@app.command("server")
def server_cmd():
    """Run the language server (LSP over stdin/stdout) for an editor: diagnostics of the unsaved
    buffer, the value of a flag at each sweep point on hover, fixes and suppressions as code actions."""
    try:
        from recipelint.server import main as serve
    except ImportError as e:  # (pygls is a dependency: a broken install)
        _fail(f"server: cannot load the language server ({e}); pip install 'pygls>=2,<3'")
    serve()


@app.command("rule")
def rule_doc(
    code: Optional[str] = typer.Argument(None, help="A rule code (RL101) or name (dp-attention-per-rank-limit)."),
    show_all: bool = typer.Option(False, "--all", help="Print every rule's documentation."),
):
    """Print a rule's documentation."""
    from recipelint.lint.registry import all_rules, by_code

    if show_all:
        for r in all_rules():
            _echo(f"# {r.code} {r.name} ({r.severity})\n\n{r.doc()}\n")
        return
    if not code:
        for r in all_rules():
            _echo(f"{r.code}  {r.name:36s} {r.severity:8s} {r.summary()}")
        return
    r = by_code(code)
    if r is None:
        _fail(f"unknown rule '{code}' (see `recipelint rule --all`)")
    _echo(f"# {r.code} {r.name} ({r.severity})\n\n{r.doc()}")


#: garbage-collection thresholds for a run: evaluation allocates millions of short-lived objects
#: and few cycles; the default first threshold (700) spends ~18% of a cold run scanning them
GC_THRESHOLDS = (50_000, 20, 100)


def main() -> None:
    from recipelint.stack import roomy

    gc.set_threshold(*GC_THRESHOLDS)
    code = roomy(_run)  # (the evaluator's recursion in one frame-stack chunk: recipelint.stack)
    # the report is written: leave without tearing the heap down object by object (~40 ms of a
    # one-recipe run); standard streams are flushed first
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, OSError, ValueError):  # `recipelint check ... | head`; the language server closed stdout
        pass
    os._exit(code)


def _holds_master_configs(p: Path) -> bool:
    """Whether a path named is, or directly holds, master configs (``configs/*-master.yaml``): a
    run over them checks the configs even with no recipe."""
    try:
        if p.is_file():
            return p.name.endswith(("-master.yaml", "-master.yml"))
        return any(p.glob("*-master.y*ml")) or any((p / "configs").glob("*-master.y*ml"))
    except OSError:
        return False


def _quiet_stdout() -> None:
    """stdout's reader has gone: what is still buffered goes nowhere (not into a second error)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _run() -> int:
    """Run the command line; the exit status (never a traceback)."""
    try:
        app()
        return 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        _echo(str(e.code), err=True)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # stdout closed (`recipelint check ... | head -1`): nothing more to say
        _quiet_stdout()
        return 141
    except RecursionError:
        _echo("recipelint: internal error: input nested too deeply", err=True)
        return 2
    except Exception as e:
        where = ""
        tb = e.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        if tb is not None:
            where = f" ({tb.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno})"
        _echo(f"recipelint: internal error: {type(e).__name__}: {e}{where}", err=True)
        return 2


if __name__ == "__main__":
    main()
