"""The guard reference: one page per guard, made from the guard's own metadata (as ruff
makes its rule pages), and an index.

Each page is what ``tracecheck guard CODE`` prints: the code and name, the summary,
where the guard comes from, what it fires on (the class docstring), its options with
their types and defaults, its messages for the model and its examples (which run as
tests). The index lists every guard with its summary and origin.

    python scripts/guard_docs.py            # list the pages that would be written
    python scripts/guard_docs.py --write    # write docs/guards/
    python scripts/guard_docs.py --check    # exit 1 if docs/guards/ is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tracecheck.guards import all_guards
from tracecheck.reports.explain import guard_markdown

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ROOT / "docs" / "guards"
NOTICE = "<!-- Made by scripts/guard_docs.py from the guards' metadata: edit the guard, then run it with --write. -->\n\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("@", "&#64;").replace("<", "&lt;")


def index() -> str:
    """docs/guards/README.md: every guard, what it does and where it comes from."""
    from tracecheck.config import load_settings

    from tracecheck.presets import preset_by_name

    running = {g.code for g in load_settings(preset="default").enabled()}
    listed = set(preset_by_name("default").guards)
    lines = [
        "# Guards",
        "",
        "Every guard tracecheck has, in the order reports list them. `tracecheck guard CODE` prints a page in the terminal;",
        "`tracecheck guards` lists them. **default**: whether the `default` preset runs the guard.",
        "",
        "| code | name | default | what it does | from |",
        "|---|---|---|---|---|",
    ]
    for guard in all_guards():
        lines.append(
            f"| [{guard.code}]({guard.code}.md) | {guard.name} | {'runs' if guard.code in running else 'off until set' if guard.code in listed else '-'} "
            f"| {_cell(guard.describe())} | {_cell(guard.origin)} |"
        )
    return NOTICE + "\n".join(lines) + "\n"


def pages() -> dict[str, str]:
    """File name → text of every page, the index included."""
    out = {f"{guard.code}.md": NOTICE + guard_markdown(guard) for guard in all_guards()}
    out["README.md"] = index()
    return out


def stale() -> list[str]:
    """The pages that differ from what the guards say now, or that no guard has any more."""
    wanted = pages()
    found = {p.name for p in FOLDER.glob("*.md")} if FOLDER.is_dir() else set()
    differ = [name for name, text in wanted.items() if not (FOLDER / name).is_file() or (FOLDER / name).read_text(encoding="utf-8") != text]
    return sorted(differ + [name for name in found - set(wanted)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="write docs/guards/")
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/guards/ is stale")
    args = parser.parse_args()
    if args.check:
        differ = stale()
        if differ:
            print(f"docs/guards/ is stale ({', '.join(differ)}): run python scripts/guard_docs.py --write", file=sys.stderr)
            return 1
        return 0
    if args.write:
        FOLDER.mkdir(parents=True, exist_ok=True)
        wanted = pages()
        for name, text in wanted.items():
            (FOLDER / name).write_text(text, encoding="utf-8")
        for old in FOLDER.glob("*.md"):
            if old.name not in wanted:
                old.unlink()
        return 0
    for name in pages():
        print(FOLDER.relative_to(ROOT) / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
