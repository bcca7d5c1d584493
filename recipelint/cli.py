"""Command-line interface: ``recipelint render`` (and, from the rules layer, ``check``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from . import __version__

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Static linter for LLM-serving benchmark launch scripts (vLLM / SGLang / TRT-LLM bash recipes).",
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


def _fail(msg: str, code: int = 2) -> None:
    typer.echo(f"recipelint: {msg}", err=True)
    raise typer.Exit(code)


def _version(value: bool):
    if value:
        typer.echo(f"recipelint {__version__}")
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
    env: list[str] = typer.Option([], "--env", "-e", help="Set a variable for the evaluation (KEY=VALUE; repeatable). Without --env, the default environment matrix is used."),
    fmt: str = typer.Option("text", "--format", "-f", help="text or json."),
):
    """Print the serve launches a recipe would run: the shell-quoted command and each flag with its source line."""
    from .analysis import Analyzer
    from .points import default_points, point_from_overrides
    from .render import render_json, render_text

    if fmt not in ("text", "json"):
        _fail(f"--format must be text or json, got '{fmt}'")
    if not script.exists():
        _fail(f"{script}: no such file")
    if script.is_dir():
        _fail(f"{script}: is a directory (render takes one script)")
    overrides = _parse_env(env)
    display = str(script)
    points = [point_from_overrides(display, overrides)] if overrides else default_points(display)
    res = Analyzer().analyze(script, display, points)
    if res.error:
        _fail(res.error)
    if fmt == "json":
        typer.echo(json.dumps(render_json(res), indent=2))
    else:
        render_text(res)
    if not res.launches:
        typer.echo(f"recipelint: {display}: no serve launch found", err=True)
        raise typer.Exit(2)


def main() -> None:
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)


if __name__ == "__main__":
    main()
