"""``tracecheck init``: what a project needs to gate CI on its agent's regression traces.

It writes a commented settings file, a ``regressions/`` folder with one labelled loop and
one healthy run (each saying inline what the policy must do with it), a GitHub workflow
running the Action on that folder, and a pre-commit configuration running the hook on
it. A file that exists is never written over: it is left alone and reported, with the
snippet to add by hand where that is the point of the file.
"""

from __future__ import annotations

import re
import tomllib
from importlib import resources
from pathlib import Path

from ..dataclass_lite import frozen_dataclass
from ..input.diagnostics import TracecheckError

PLACEHOLDER_SOURCE = "OWNER/tracecheck@REF"
REGRESSIONS = "regressions"
WORKFLOW = ".github/workflows/tracecheck.yml"
PRE_COMMIT = ".pre-commit-config.yaml"


@frozen_dataclass
class Step:
    """One file ``init`` wrote, or left alone, and why."""

    path: str  # relative to the project folder, with forward slashes
    written: bool
    note: str = ""
    snippet: str = ""  # what to add by hand to a file that was left alone


def _template(name: str) -> str:
    return resources.files(__package__).joinpath("files", name).read_text(encoding="utf-8")


def _regression_files() -> list[str]:
    folder = resources.files(__package__).joinpath("files", REGRESSIONS)
    return sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".jsonl"))


def split_source(source: str) -> tuple[str, str]:
    """``OWNER/NAME@REF`` (or a URL ``…/OWNER/NAME@REF``) as the pre-commit repo URL and rev."""
    match = re.fullmatch(r"(?P<repo>[^@\s]+)@(?P<rev>[^@\s]+)", source)
    if match is None:
        raise TracecheckError(f"--source {source!r}: expected OWNER/NAME@REF, for example {PLACEHOLDER_SOURCE}")
    repo = match["repo"]
    url = repo if "://" in repo else f"https://github.com/{repo}"
    return url, match["rev"]


def _action_reference(source: str) -> str:
    url, rev = split_source(source)
    repo = re.sub(r"^https?://github\.com/", "", url).removesuffix(".git")
    return f"{repo}@{rev}"


def pyproject_section(text: str) -> str:
    """The settings file as a ``[tool.tracecheck]`` section of pyproject.toml."""
    body = text.replace("[guards.", "[tool.tracecheck.guards.")
    head, sep, rest = body.partition("\npreset = ")
    return f"{head}\n[tool.tracecheck]{sep}{rest}" if sep else f"[tool.tracecheck]\n{body}"


def init_project(folder: str | Path = ".", *, source: str = PLACEHOLDER_SOURCE, pyproject: bool = False) -> list[Step]:
    """Write the starting files into ``folder``; return what was written or left alone."""
    root = Path(folder)
    if root.exists() and not root.is_dir():
        raise TracecheckError(f"{folder}: not a folder")
    url, rev = split_source(source)
    steps = [_settings(root, pyproject)]
    for name in _regression_files():
        steps.append(_write(root, f"{REGRESSIONS}/{name}", _template(f"{REGRESSIONS}/{name}")))
    workflow = _template("workflow.yml").replace("{repository}", _action_reference(source))
    steps.append(_write(root, WORKFLOW, workflow))
    hook = _template("pre-commit-config.yaml").replace("{repo_url}", url).replace("{rev}", rev)
    steps.append(_write(root, PRE_COMMIT, hook, snippet=hook.split("repos:\n", 1)[1]))
    return steps


def _settings(root: Path, pyproject: bool) -> Step:
    text = _template("tracecheck.toml")
    own = root / "tracecheck.toml"
    project = root / "pyproject.toml"
    table = None
    if project.is_file():
        try:
            table = tomllib.loads(project.read_text(encoding="utf-8")).get("tool", {}).get("tracecheck")
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise TracecheckError(f"{project}: not valid TOML: {exc}") from None
    if table is not None:
        return Step("pyproject.toml", False, "has a [tool.tracecheck] section already: left alone")
    if own.exists():
        return Step("tracecheck.toml", False, "exists: left alone")
    if not pyproject:
        return _write(root, "tracecheck.toml", text)
    if not project.is_file():
        raise TracecheckError(f"--pyproject: there is no {project}")
    current = project.read_text(encoding="utf-8")
    separator = "" if current.endswith("\n\n") or not current else ("\n" if current.endswith("\n") else "\n\n")
    _replace(project, current + separator + pyproject_section(text))
    return Step("pyproject.toml", True, "added a [tool.tracecheck] section")


def _write(root: Path, relative: str, text: str, snippet: str = "") -> Step:
    path = root / relative
    if path.exists():
        # Only say what to add when the file does not hold it yet.
        wanted = snippet if snippet and "tracecheck-check" not in path.read_text(encoding="utf-8", errors="replace") else ""
        return Step(relative, False, "exists: left alone", wanted)
    path.parent.mkdir(parents=True, exist_ok=True)
    _replace(path, text)
    return Step(relative, True)


def _replace(path: Path, text: str) -> None:
    from ..input.output_files import open_output

    with open_output(str(path)) as out:
        out.write(text.encode("utf-8"))
