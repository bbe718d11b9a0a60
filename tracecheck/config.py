"""Guard settings: defaults, then a config file, then the command line.

File: ``[tool.tracecheck]`` in ``pyproject.toml`` or a ``tracecheck.toml`` (top level),
the nearest one found walking up from the working directory, or ``--config FILE``::

    select = ["P", "R001"]          # codes, prefixes, names, or "ALL"
    ignore = ["P003"]
    labels = "regressions/labels.json"   # the --labels file, relative to this config file
    [guards.P001]                   # by code or name; [tool.tracecheck.guards.P001] in pyproject
    containment = 0.75
    tokenizer = "jieba"

Command line: ``--select``, ``--ignore`` and ``--set P001.threshold=3`` (repeatable).
An unknown guard, option or a bad value is a ``TracecheckError`` naming it (exit 2).

``labels`` is no guard setting: ``configured_labels`` reads it for the commands that
read traces (``--labels FILE`` wins, ``--no-labels`` leaves it out). It holds whatever
preset the command line picks, since it describes the traces, not the guards.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from .dataclass_lite import mutable_dataclass
from .guards import (
    GUARD_CODES,
    Guard,
    all_guards,
    guard_by_code,
    guard_by_key,
    guard_keys,
)
from .guards.base import GuardOptions
from .input.diagnostics import TracecheckError
from .input.side_files import read_toml
from .text.suggest import did_you_mean


class GuardOptionsByCode(dict):
    """Every guard's options, by code: a guard's defaults are made (and its module
    imported) when they are first asked for, so that settings for a run import only the
    guards it runs or configures. ``in`` answers for every registered guard; two of them
    are equal when every guard's options are."""

    def __missing__(self, code: str) -> GuardOptions:
        guard = guard_by_code(code) if isinstance(code, str) else None
        if guard is None:
            raise KeyError(code)
        options = self[code] = guard.Options()
        return options

    def __contains__(self, code: object) -> bool:
        return dict.__contains__(self, code) or code in GUARD_CODES

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, dict):
            return NotImplemented
        return dict(self.complete()) == dict(other.complete() if isinstance(other, GuardOptionsByCode) else other)

    __hash__ = None  # type: ignore[assignment]

    def complete(self) -> GuardOptionsByCode:
        """Every registered guard's options made (every guard module imported)."""
        for guard in all_guards():
            self[guard.code]  # noqa: B018 - made on first access
        return self

    def copy(self) -> GuardOptionsByCode:
        return GuardOptionsByCode(self)


@mutable_dataclass
class Settings:
    """Options of every guard (by code) and which guards are selected."""

    options: dict[str, GuardOptions] = field(default_factory=dict)
    selected: set[str] = field(default_factory=set)
    source: str | None = None  # the config file read, if any
    preset: str | None = None  # the preset the settings start from, if any
    config_skipped: str | None = None  # a config file left out: it customises another preset
    # What loading did that the command line may not expect (a guard --set turned on, a
    # --set or [guards.X] table for a guard that does not run), for the commands to say.
    notes: list[str] = field(default_factory=list)

    @classmethod
    def defaults(cls) -> Settings:
        return cls(options=GuardOptionsByCode(), selected=set(GUARD_CODES))

    def enabled(self) -> list[type[Guard]]:
        """The guards that run, in registry order (only their modules are imported)."""
        selected = [g for g in map(guard_by_code, (c for c in GUARD_CODES if c in self.selected)) if g is not None]
        return [g for g in selected if not g.is_off(self.options[g.code])]

    def build(self) -> list[Guard]:
        """Fresh guard objects for one replay, in registry order."""
        return [g(self.options[g.code]) for g in self.enabled()]

    def asked_for(self, code: str, name: str, value: Any) -> Settings:
        """``with_option``, and the guard runs: setting one of its options (``--set``, a
        sweep's grid, a monitor's ``options``) is asking for it — except ``enabled=false``."""
        settings = self.with_option(code, name, value)
        if code not in settings.selected and not (name == "enabled" and value is False):
            settings.selected = settings.selected | {code}
            if name != "enabled":
                settings = settings.with_option(code, "enabled", True)
        return settings

    def with_option(self, code: str, name: str, value: Any) -> Settings:
        options = GuardOptionsByCode(self.options)
        options[code] = dataclasses.replace(options[code], **{name: value})
        return Settings(
            options=options,
            selected=set(self.selected),
            source=self.source,
            preset=self.preset,
            config_skipped=self.config_skipped,
            notes=list(self.notes),
        )


def unknown_guard(key: str, where: str = "") -> TracecheckError:
    prefix = f"{where}: " if where else ""
    return TracecheckError(f"{prefix}unknown guard {key!r}{did_you_mean(key, guard_keys())} (see 'tracecheck guards')")


def unknown_preset(name: Any, where: str = "") -> TracecheckError:
    from .presets import PRESETS

    prefix = f"{where}: " if where else ""
    hint = did_you_mean(name, PRESETS) if isinstance(name, str) else ""
    return TracecheckError(f"{prefix}unknown preset {name!r}{hint}; choose one of: {', '.join(PRESETS)}")


def match_selector(selector: str) -> list[str]:
    """Codes of the guards a selector names: ALL, a code, a code prefix, or a name."""
    key = selector.strip()
    if key.upper() == "ALL":
        return [g.code for g in all_guards()]
    exact = guard_by_key(key)
    if exact is not None:
        return [exact.code]
    prefixed = [code for code in GUARD_CODES if code.startswith(key.upper()) and key[:1].isalpha() and guard_by_code(code) is not None]
    if prefixed:
        return prefixed
    raise unknown_guard(selector)


def _selection(items: Iterable[str]) -> set[str]:
    chosen: set[str] = set()
    for item in items:
        for part in str(item).split(","):
            if part.strip():
                chosen.update(match_selector(part))
    return chosen


def codes_named_exactly(items: Iterable[str]) -> set[str]:
    """Codes of the guards named by code or name (not by ALL or a prefix) in ``items``."""
    named: set[str] = set()
    for item in items:
        for part in str(item).split(","):
            guard = guard_by_key(part.strip()) if part.strip() else None
            if guard is not None:
                named.add(guard.code)
    return named


def select_guards(settings: Settings, items: Iterable[str], add: bool = False) -> Settings:
    """Run exactly the guards ``items`` select (with ``add``: these as well). A guard
    named by its code or name runs even if it is off by default (naming it is asking
    for it); ALL and prefixes select only the guards that are on."""
    items = list(items)
    settings.selected = (settings.selected | _selection(items)) if add else _selection(items)
    for code in codes_named_exactly(items):
        settings = settings.with_option(code, "enabled", True)
    return settings


def option_field(guard: type[Guard], name: str) -> dataclasses.Field:
    """The declaration of a guard's option, or an error naming the options it has."""
    for f in dataclasses.fields(guard.Options):
        if f.name == name:
            return f
    known = ", ".join(f.name for f in dataclasses.fields(guard.Options))
    hint = did_you_mean(name, [f.name for f in dataclasses.fields(guard.Options)])
    raise TracecheckError(f"{guard.code} has no option {name!r}{hint} (options: {known})")


def option_default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    return f.default_factory()  # type: ignore[misc]


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def coerce_option(guard: type[Guard], name: str, value: Any, where: str = "") -> Any:
    """Convert a value (from TOML, or a command-line string) to the option's type and
    check its constraints."""
    f = option_field(guard, name)
    default = option_default(f)
    label = f"{guard.code}.{name}" + (f" in {where}" if where else "")
    try:
        if isinstance(default, bool):
            if isinstance(value, str):
                lowered = value.strip().lower()
                if lowered not in _TRUE | _FALSE:
                    raise ValueError
                value = lowered in _TRUE
            elif not isinstance(value, bool):
                raise ValueError
        elif isinstance(default, int):
            if isinstance(value, bool):
                raise ValueError
            value = int(value) if isinstance(value, str) else value
            if not isinstance(value, int):
                raise ValueError
        elif isinstance(default, float):
            if isinstance(value, bool):
                raise ValueError
            try:
                value = float(value) if isinstance(value, (str, int)) else value
            except OverflowError:  # an integer beyond any float
                raise ValueError from None
            if not isinstance(value, float) or not math.isfinite(value):
                raise ValueError
        elif isinstance(default, list):
            if isinstance(value, str) and value.strip().startswith("["):
                # The form `tracecheck guard` prints (a TOML/JSON list) means a list too.
                import json

                try:
                    value = json.loads(value)
                except json.JSONDecodeError:
                    raise ValueError from None
            elif isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError
        elif isinstance(default, dict):
            # A table of str -> str (messages): only the config file can write one.
            if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
                raise ValueError
            value = dict(value)
        elif isinstance(default, str):
            if not isinstance(value, str):
                raise ValueError
    except ValueError:
        kind = {list: "list of strings", dict: "table of strings ([guards.CODE.NAME] in the config file)"}.get(
            type(default), type(default).__name__
        )
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        raise TracecheckError(f"{label}: {shown} is not a valid {kind}") from None
    if name == "messages":
        problem = guard.message_problem(value)
        if problem is not None:
            raise TracecheckError(f"{label}: {problem}")
    problem = guard.option_problem(name, value)
    if problem is not None:
        raise TracecheckError(f"{label}: {problem}")
    meta = f.metadata
    if name.endswith("_patterns"):
        # Regular expressions: a bad one is a config error now, not a crash mid-replay.
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise TracecheckError(f"{label}: {pattern!r} is not a valid regular expression: {exc}") from None
    if "choices" in meta and value not in meta["choices"]:
        raise TracecheckError(f"{label}: {value!r} is not one of {', '.join(meta['choices'])}")
    if "minimum" in meta and value < meta["minimum"]:
        raise TracecheckError(f"{label}: {value!r} is below the minimum {meta['minimum']}")
    if "maximum" in meta and value > meta["maximum"]:
        raise TracecheckError(f"{label}: {value!r} is above the maximum {meta['maximum']}")
    return value


def parse_assignment(text: str) -> tuple[type[Guard], str, str]:
    """``P001.threshold=3`` -> (guard, option, raw value)."""
    target, sep, raw = text.partition("=")
    guard_key, dot, name = target.strip().partition(".")
    if not sep or not dot or not name:
        raise TracecheckError(f"--set expects GUARD.OPTION=VALUE, got {text!r}")
    guard = guard_by_key(guard_key)
    if guard is None:
        raise unknown_guard(guard_key, f"--set {text!r}")
    option_field(guard, name.strip())
    return guard, name.strip(), raw.strip()


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The nearest tracecheck.toml, or pyproject.toml with a [tool.tracecheck] table."""
    for folder in (start, *start.parents):
        own = folder / "tracecheck.toml"
        if own.is_file():
            return own, read_toml(own)
        pyproject = folder / "pyproject.toml"
        if pyproject.is_file():
            table = _tracecheck_table(read_toml(pyproject), pyproject)
            if table is not None:
                return pyproject, table
    return None


def _tracecheck_table(data: Mapping[str, Any], path: Path) -> dict[str, Any] | None:
    """A pyproject.toml's [tool.tracecheck] table, None when it has none; a ``tool`` or
    ``tool.tracecheck`` that is not a table is an error naming its line."""
    tool = data.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise _table_error(path, "tool", "'tool' must be a table ([tool.tracecheck] holds tracecheck's settings)")
    table = tool.get("tracecheck")
    if table is not None and not isinstance(table, dict):
        raise _table_error(path, "tracecheck", "[tool] 'tracecheck' must be a table: write [tool.tracecheck]")
    return table


def _table_error(path: Path, key: str, reason: str) -> TracecheckError:
    from .input.side_files import SIDE_FILE_LIMIT, key_line
    from .input.sources import display_name

    shown = display_name(str(path))
    try:
        with open(path, "rb") as handle:
            line = key_line(handle.read(SIDE_FILE_LIMIT).decode("utf-8", "replace"), key)
    except OSError:
        line = None
    return TracecheckError(f"{shown}:{line}: {reason}" if line else f"{shown}: {reason}")


# sweep: read by tracecheck sweep; labels: by the commands that read traces (configured_labels)
_TOP_KEYS = {"preset", "extend-preset", "select", "ignore", "guards", "sweep", "labels"}


def apply_table(settings: Settings, table: Mapping[str, Any], where: str) -> Settings:
    unknown = set(table) - _TOP_KEYS
    if unknown:
        raise TracecheckError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} (allowed: {', '.join(sorted(_TOP_KEYS))})")
    _labels_value(table, where)
    if "preset" in table and "extend-preset" in table:
        raise TracecheckError(f"{where}: use either 'preset' or 'extend-preset', not both")
    if "select" in table:
        # Extending a preset adds guards to it; otherwise 'select' says which run.
        settings = select_guards(settings, _as_list(table["select"], "select", where), add="extend-preset" in table)
    if "ignore" in table:
        settings.selected -= _selection(_as_list(table["ignore"], "ignore", where))
    guards_table = table.get("guards", {})
    if not isinstance(guards_table, dict):
        raise TracecheckError(f"{where}: 'guards' must be a table of guard option tables")
    for key, values in guards_table.items():
        guard = guard_by_key(key)
        if guard is None:
            raise unknown_guard(key, f"{where} [guards]")
        if not isinstance(values, dict):
            raise TracecheckError(f"{where}: [guards.{key}] must be a table of options")
        for name, value in values.items():
            settings = settings.with_option(guard.code, name, coerce_option(guard, name, value, where))
    return settings


def apply_preset(settings: Settings, name: str, where: str) -> Settings:
    """Select a preset's guards with its options (on top of each guard's defaults)."""
    from .presets import preset_by_name

    preset = preset_by_name(name) if isinstance(name, str) else None
    if preset is None:
        raise unknown_preset(name, where)
    settings.selected = set(preset.guards)
    for code, values in preset.guards.items():
        guard = guard_by_key(code)
        # A preset runs its guards, also those that are off until one enables them.
        for option_name, value in {"enabled": True, **values}.items():
            settings = settings.with_option(code, option_name, coerce_option(guard, option_name, value, f"preset {preset.name}"))
    settings.preset = preset.name
    return settings


def _labels_value(table: Mapping[str, Any], where: str) -> str | None:
    """The config's ``labels`` as written (a path), checked to be one."""
    value = table.get("labels")
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise TracecheckError(f"{where}: 'labels' must be the path of a labels file (a string), not {value!r}")
    return value


def read_config(config: str | None = None, cwd: Path | None = None) -> tuple[Mapping[str, Any], str]:
    """The tracecheck table of ``config`` (``--config FILE``), else of the nearest config
    file above ``cwd``, and that file's name; ``({}, "")`` when there is none."""
    if config is not None:
        path = Path(config)
        if not path.exists():
            raise TracecheckError(f"config file {config!r} not found")
        data = read_toml(path)
        table = (_tracecheck_table(data, path) or {}) if path.name == "pyproject.toml" else data
        return table, str(path)
    found = find_config(cwd or Path.cwd())
    return (found[1], str(found[0])) if found is not None else ({}, "")


def configured_labels(config: str | None = None, cwd: Path | None = None) -> tuple[str, str] | None:
    """The labels file the config names (``labels = "PATH"``), resolved against the config
    file's folder (not the working directory: a hook or CI job may run anywhere below it),
    and the config file; None when it names none. A file that is not there is an error
    naming both, not a run that quietly drops its expectations."""
    table, where = read_config(config, cwd)
    value = _labels_value(table, where)
    if value is None:
        return None
    path = Path(where).parent / value  # an absolute value stays as it is
    if not path.is_file():
        from .input.sources import display_name

        raise TracecheckError(f"{where}: labels = {value!r}: no labels file at {display_name(str(path))}")
    return str(path), where


def _as_list(value: Any, key: str, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise TracecheckError(f"{where}: '{key}' must be a list of guard codes or names")


DEFAULT_PRESET = "default"


def _same_preset(a: Any, b: Any) -> bool:
    from .presets import preset_by_name

    found_a = preset_by_name(a) if isinstance(a, str) else None
    found_b = preset_by_name(b) if isinstance(b, str) else None
    return found_a is not None and found_a is found_b


def load_settings(
    config: str | None = None,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    sets: Sequence[str] = (),
    cwd: Path | None = None,
    tokenizer: str | None = None,
    preset: str | None = None,
) -> Settings:
    """A preset, then the config file, then the command line (``tokenizer``, as
    ``--tokenizer`` gives it, for every guard that tokenizes: P001). The preset is
    ``preset`` (the command line's), else the config file's ``preset`` (or
    ``extend-preset``) key, else ``default``.

    The file's other keys customise *its* preset (``default`` when it names none): they
    apply when that is the preset chosen, and are left out (``Settings.config_skipped``
    says so) when the command line picks another, which then runs as it is defined, so
    that "what would X do" is not mixed with this project's own tuning. ``--set`` on a
    guard the settings do not run adds it (setting an option is asking for the guard),
    except ``enabled=false``."""
    settings = Settings.defaults()
    table, where = read_config(config, cwd)
    file_base = table.get("preset", table.get("extend-preset")) or DEFAULT_PRESET
    # Nothing chosen: tracecheck's recommendation.
    settings = apply_preset(settings, file_base if preset is None else preset, "--preset" if preset is not None else where)
    if where and (preset is None or _same_preset(preset, file_base)):
        settings = apply_table(settings, table, where)
        settings.source = where
    elif where:
        settings.config_skipped = where
    if select:
        settings = select_guards(settings, select)
    ignored = _selection(ignore) if ignore else set()
    settings.selected -= ignored
    assignments = []
    for text in sets:
        guard, name, raw = parse_assignment(text)
        assignments.append((guard.code, name, coerce_option(guard, name, raw, "--set")))
    # An explicit no (--ignore X, or --set X.enabled=false anywhere on the line) wins over
    # the yes that setting one of X's options otherwise is.
    declined = ignored | {code for code, name, value in assignments if name == "enabled" and value is False}
    for code, name, value in assignments:
        running = code in settings.selected and settings.options[code].enabled
        if code in declined:
            settings = settings.with_option(code, name, value)
            if code in ignored and not (name == "enabled" and value is False):
                _note(settings, f"--set {code}.{name} changes nothing: {code} is ignored (--ignore)")
            continue
        settings = settings.asked_for(code, name, value)
        if not running and name != "enabled" and code in settings.selected and settings.options[code].enabled:
            _note(settings, f"--set {code}.{name} turns on {code}, which these settings did not run")
    if where and settings.source == where:
        # Options in the file for a guard that runs in neither the file's nor the command
        # line's selection do nothing: say so rather than let them pass for tuning.
        for key, values in (table.get("guards") or {}).items():
            guard = guard_by_key(key)
            if guard.code in settings.selected and settings.options[guard.code].enabled:
                continue
            if isinstance(values, dict) and values.get("enabled") is False or guard.code in ignored:
                continue
            _note(settings, f"{where}: [guards.{key}] sets options of {guard.code}, which these settings do not run (select it to run it)")
    if tokenizer is not None:
        for guard in tokenizing_guards():
            settings = settings.with_option(guard.code, "tokenizer", coerce_option(guard, "tokenizer", tokenizer, "--tokenizer"))
    return settings


def tokenizing_guards() -> list[type[Guard]]:
    """The guards that split text into tokens (their options declare a ``tokenizer``):
    the ones ``--tokenizer`` sets."""
    return [g for g in all_guards() if any(f.name == "tokenizer" for f in dataclasses.fields(g.Options))]


def _note(settings: Settings, text: str) -> None:
    if text not in settings.notes:
        settings.notes.append(text)


def write_winning_config(path: Path, table: Mapping[str, Any], inputs=()) -> None:
    """Put a sweep's winning settings (``{"preset": name?, "guards": {code: {option:
    value}}}``) into a config file, keeping everything else in it (comments too): under
    ``[tool.tracecheck]`` in a ``pyproject.toml``, at the top level otherwise. The file is
    replaced whole or not at all, and never when it is one of the inputs."""
    import os
    import tempfile
    import tomllib

    import tomlkit

    from .input.output_files import check_not_an_input

    path = Path(path)
    check_not_an_input(str(path), inputs)
    from .input.side_files import read_side_text

    shown = str(path)
    text = read_side_text(path, "config file", shown) if path.exists() else ""
    try:
        tomllib.loads(text)  # the reader's verdict first: what it refuses is not edited either
        document = tomlkit.parse(text)
    except tomllib.TOMLDecodeError as exc:
        raise TracecheckError(f"{shown}: cannot update it, not valid TOML: {exc}") from None
    except tomlkit.exceptions.TOMLKitError as exc:
        raise TracecheckError(f"{shown}:{getattr(exc, 'line', '?')}: cannot update it: {exc}") from None
    target = document
    if path.name == "pyproject.toml":
        tool = document.setdefault("tool", tomlkit.table(is_super_table=True))
        if not isinstance(tool, dict):
            raise _table_error(path, "tool", "cannot update it: 'tool' is not a table")
        target = tool.setdefault("tracecheck", tomlkit.table())
        if not isinstance(target, dict):
            raise _table_error(path, "tracecheck", "cannot update it: [tool] 'tracecheck' is not a table")
    for key, wanted in (("select", list), ("ignore", list), ("guards", dict), ("preset", str), ("extend-preset", str)):
        if key in target and not isinstance(target[key], wanted):
            raise _table_error(path, key, f"cannot update it: '{key}' is not a {'list' if wanted is list else 'table' if wanted is dict else 'string'}")
    for key in ("select", "ignore"):
        if key in target and not all(isinstance(item, str) for item in target[key]):
            raise _table_error(path, key, f"cannot update it: '{key}' holds something other than guard names")
    for code, section in (target.get("guards") or {}).items():
        if not isinstance(section, dict):
            raise _table_error(path, code, f"cannot update it: [guards.{code}] is not a table")
    codes = list(table.get("guards", {}))
    if "preset" in table:
        # A preset won: it, with the gridded options, and nothing of the old selection.
        for key in ("preset", "extend-preset", "select", "ignore"):
            target.pop(key, None)
        target["extend-preset"] = table["preset"]
        if codes:
            target["select"] = codes  # with extend-preset, select adds these guards
    elif codes:
        # The gridded guards must run as they did in the sweep.
        if "select" in target and "extend-preset" not in target:
            target["select"] = list(dict.fromkeys([*target["select"], *codes]))
        else:
            if "preset" in target:
                target["extend-preset"] = target.pop("preset")
            elif "extend-preset" not in target:
                target["extend-preset"] = DEFAULT_PRESET
            target["select"] = list(dict.fromkeys([*target.get("select", []), *codes]))
    if "ignore" in target and codes:
        target["ignore"] = [c for c in target["ignore"] if c not in codes]
    guards = target.setdefault("guards", tomlkit.table(is_super_table=True))
    for code, options in table.get("guards", {}).items():
        section = guards.setdefault(code, tomlkit.table())
        for option, value in options.items():
            section[option] = value
    folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tracecheck-tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(tomlkit.dumps(document))
        os.replace(temporary, path)
    except OSError as exc:
        raise TracecheckError(f"cannot write {path}: {exc.strerror or exc}") from None
