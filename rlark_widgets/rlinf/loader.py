"""Read RLinf configs exactly as RLinf's entry points do: Hydra 1.1 composition and OmegaConf.

RLinf's launchers call ``@hydra.main(version_base="1.1", config_path=DIR, config_name=NAME)``
with overrides; defaults lists pull groups such as ``env/...@env.train`` and searchpaths are
written as ``file://${oc.env:EMBODIED_PATH}/config/``. We compose the same way, keep every
intermediate (raw text, overrides, composed and resolved config) for the run record, and turn
every failure into a :class:`ConfigLoadError` that names the field and the fix.
"""

from __future__ import annotations

import os
import re
import threading
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import yaml
from omegaconf import DictConfig, ListConfig, Node, OmegaConf

from ..findings import Finding, Severity
from ..i18n import Text
from ..input_files import InputFileError, read_input_text
from ..safe_yaml import (
    INPUT_LIMIT_FIX,
    YamlStructureError,
    check_structure,
    input_limit_bytes,
    repeated_key_error,
)
from .errors import ConfigLoadError, MissingVariableError
from .interpolation_budget import InterpolationBudget
from .overrides import check_overrides
from .resolvers import register_rlinf_resolvers
from .yaml_traps import sexagesimal_findings

#: Where RLinf's launch scripts point each searchpath variable, relative to the RLinf checkout.
RLINF_PATH_VARIABLES = {
    "REPO_PATH": ".",
    "EMBODIED_PATH": "examples/embodiment",
    "DIFFUSION_PATH": "examples/diffusion",
    "REWARD_PATH": "examples/reward",
}
_HYDRA_LOCK = threading.Lock()  # Hydra keeps global state; one composition at a time
_ENV_MISSING = re.compile(r"Environment variable '([^']+)' not found")
_MISSING_GROUP = re.compile(r"Could not (?:find|load) '([^']+)'")


@dataclass(frozen=True)
class UnresolvedValue:
    """An interpolation that could not be resolved (kept as written, reported, not fatal)."""

    path: str
    expression: str
    reason: Text | str  # OmegaConf's own words stay as it says them (English)


@dataclass(frozen=True)
class RLinfConfig:
    """An RLinf config as composed by Hydra, with what the run record needs to reproduce it."""

    source: str
    raw_text: str
    overrides: tuple[str, ...]
    composed: DictConfig
    resolved: dict[str, Any]
    unresolved: tuple[UnresolvedValue, ...] = ()
    findings: tuple[Finding, ...] = ()
    config_dir: str | None = None
    config_name: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)

    def get(self, path: str, default: Any = None) -> Any:
        """A resolved value by dotted path (``runner.task_type``), or ``default``."""
        node: Any = self.resolved
        for part in path.split("."):
            if not isinstance(node, Mapping) or part not in node:
                return default
            node = node[part]
        return default if node is None else node

    @property
    def task_type(self) -> str | None:
        value = self.get("runner.task_type")
        return str(value) if value is not None else None

    @property
    def cluster_section(self) -> Any:
        return self.resolved.get("cluster")

    @property
    def name(self) -> str:
        return self.config_name or Path(self.source).stem


def rlinf_repo_env(repo: str | os.PathLike[str]) -> dict[str, str]:
    """The searchpath variables RLinf's launch scripts set for a checkout at ``repo``."""
    root = Path(repo).resolve()
    return {name: str((root / rel).resolve()) for name, rel in RLINF_PATH_VARIABLES.items()}


def load_config(
    path: str | os.PathLike[str],
    overrides: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    max_bytes: int | None = None,
    compose: bool = True,
) -> RLinfConfig:
    """Load a single YAML file; its directory is the config directory, as RLinf launches it.

    With ``compose=False`` the file is read alone with OmegaConf (its defaults list ignored).
    """
    file = Path(path)
    if file.suffix not in (".yaml", ".yml") or not file.exists():
        raise ConfigLoadError(
            Text("No RLinf config file at {file}.", file=file),
            str(file),
            Text("Give the path of a .yaml config, or --config-dir DIR --config-name NAME."),
        )
    if not compose:
        return load_text(_read_text(file, max_bytes), str(file), overrides)
    return compose_config(file.parent, file.stem, overrides, env, max_bytes=max_bytes)


def load_text(text: str, source: str = "<uploaded>", overrides: Sequence[str] = ()) -> RLinfConfig:
    """Read config text with OmegaConf alone: for uploads that come without their directory."""
    limit = input_limit_bytes()
    if len(text.encode("utf-8", "replace")) > limit:
        raise ConfigLoadError(
            Text("The config is larger than {size} MB.", size=f"{limit / 1e6:.1f}"),
            source,
            INPUT_LIMIT_FIX,
        )
    _check_yaml_syntax(text, Path(source))
    check_overrides(overrides)
    register_rlinf_resolvers()
    try:
        loaded = OmegaConf.create(text)
        if overrides:
            loaded = OmegaConf.merge(loaded, OmegaConf.from_dotlist(list(overrides)))
    except Exception as exc:
        raise ConfigLoadError(
            Text("OmegaConf cannot read the config: {reason}", reason=exc),
            source,
            Text("Check the YAML and the overrides (key=value)."),
        ) from None
    if not isinstance(loaded, DictConfig):
        raise ConfigLoadError(
            Text("The config must be a YAML mapping at the top level."),
            source,
            Text("Start the file with keys such as cluster: and runner:."),
        )
    unresolved: list[UnresolvedValue] = []
    resolved = _resolve_all(loaded, unresolved)
    findings = sexagesimal_findings(text) + [_unresolved_finding(u) for u in unresolved]
    if "defaults" in resolved:
        findings.append(
            Finding(
                "CFG-NOT-COMPOSED",
                Severity.WARNING,
                "defaults",
                Text(
                    "The defaults list was not composed (the config was read on its own), so "
                    "values that come from config groups are missing."
                ),
                Text("Import it from its config directory so Hydra can compose the defaults list."),
                "Hydra defaults lists as used by RLinf entry points",
            )
        )
    return RLinfConfig(
        source, text, tuple(overrides), loaded, resolved, tuple(unresolved), tuple(findings)
    )


def compose_config(
    config_dir: str | os.PathLike[str],
    config_name: str,
    overrides: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    max_bytes: int | None = None,
) -> RLinfConfig:
    """Compose ``config_name`` from ``config_dir`` with Hydra, as ``@hydra.main`` would."""
    directory = Path(config_dir).resolve()
    name = config_name.removesuffix(".yaml")
    file = directory / f"{name}.yaml"
    raw_text = _read_text(file, max_bytes)
    _check_yaml_syntax(raw_text, file)
    check_overrides(overrides)
    register_rlinf_resolvers()
    env = dict(env or {})
    guessed: list[Finding] = []
    while True:  # each round sets one more searchpath variable, so at most one per variable
        try:
            composed, unresolved, resolved = _compose(directory, name, file, overrides, env)
            break
        except MissingVariableError as exc:
            if exc.guess is None or exc.variable in env:
                raise
            env[exc.variable] = exc.guess
            guessed.append(_guessed_finding(exc.variable, exc.guess))
    findings = [
        *guessed,
        *sexagesimal_findings(raw_text),
        *(_unresolved_finding(u) for u in unresolved),
    ]
    return RLinfConfig(
        source=str(file),
        raw_text=raw_text,
        overrides=tuple(overrides),
        composed=composed,
        resolved=resolved,
        unresolved=tuple(unresolved),
        findings=tuple(findings),
        config_dir=str(directory),
        config_name=name,
        env=env,
    )


def _read_text(file: Path, max_bytes: int | None) -> str:
    if not file.exists():
        raise ConfigLoadError(
            Text("Config '{name}' not found in {folder}.", name=file.name, folder=file.parent),
            str(file),
            Text("Check --config-dir and --config-name (the name is the file stem)."),
        )
    try:
        return read_input_text(file, max_bytes)
    except InputFileError as exc:
        raise ConfigLoadError(exc.text, str(file), exc.fix_text) from None


def _check_yaml_syntax(text: str, file: Path) -> None:
    try:
        check_structure(text)
        twice = repeated_key_error(yaml.compose(text, Loader=yaml.SafeLoader))
        if twice is not None:  # Hydra would say "while constructing a mapping", naming nothing
            raise twice
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        if mark:
            message = Text(
                "{name} is not valid YAML at line {line}, column {column}: {problem}.",
                name=file.name,
                line=mark.line + 1,
                column=mark.column + 1,
                problem=exc.problem,
            )
        else:
            message = Text(
                "{name} is not valid YAML: {problem}.", name=file.name, problem=exc.problem
            )
        raise ConfigLoadError(
            message,
            str(file),
            Text("Fix the YAML syntax there (indentation, a missing ':' or an unclosed quote)."),
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigLoadError(
            Text("{name} is not valid YAML: {problem}.", name=file.name, problem=exc), str(file)
        ) from None
    except YamlStructureError as exc:
        raise ConfigLoadError(
            Text("{config_file}: {alias_error}", config_file=file.name, alias_error=exc.text),
            str(file),
            exc.fix_text,
        ) from None


@contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _error_chain_text(exc: BaseException) -> str:
    texts: list[str] = []
    current: BaseException | None = exc
    while current is not None and len(texts) < 8:
        texts.append(str(current))
        current = current.__cause__ or current.__context__
    return "\n".join(texts)


def _compose(
    directory: Path, name: str, file: Path, overrides: Sequence[str], env: Mapping[str, str]
) -> tuple[DictConfig, list[UnresolvedValue], dict[str, Any]]:
    """Hydra's composition of ``name`` under ``env``, resolved as far as it can be here."""
    from hydra import compose, initialize_config_dir

    with _HYDRA_LOCK, _environment(env), warnings.catch_warnings():
        # Hydra warns about version_base=1.1 and implicit _self_; RLinf relies on exactly that.
        warnings.simplefilter("ignore")
        try:
            with initialize_config_dir(config_dir=str(directory), version_base="1.1"):
                composed = compose(config_name=name, overrides=list(overrides))
        except Exception as exc:  # Hydra raises many types; each becomes one clear message
            raise _composition_error(exc, file, overrides) from None
        OmegaConf.set_struct(composed, False)
        unresolved: list[UnresolvedValue] = []
        resolved = _resolve_all(composed, unresolved)
    return composed, unresolved, resolved


def _guessed_finding(name: str, value: str) -> Finding:
    """The searchpath variable that was not set and the value used for it, said, never hidden."""
    return Finding(
        "CFG-ENV-GUESSED",
        Severity.INFO,
        "hydra.searchpath",
        Text(
            "{name} was not set; this file sits in an RLinf checkout, so {name}={value} was "
            "used, as RLinf's launch scripts set it.",
            name=name,
            value=value,
        ),
        Text(
            "Nothing to do if that is the checkout you launch from; otherwise set {name} to "
            "the right folder.",
            name=name,
        ),
        "RLinf launch scripts (the searchpath variables they export)",
    )


def _composition_error(exc: Exception, file: Path, overrides: Sequence[str]) -> ConfigLoadError:
    text = _error_chain_text(exc)
    missing_env = _ENV_MISSING.search(text)
    if missing_env:
        return _missing_variable(missing_env.group(1), file)
    missing_group = _MISSING_GROUP.search(text)
    if missing_group or "MissingConfigException" in type(exc).__name__:
        group = missing_group.group(1) if missing_group else text.splitlines()[0]
        return ConfigLoadError(
            Text(
                "Hydra cannot find the config group option '{group}' named in the defaults list "
                "of {name} (searched {folder} and the hydra.searchpath entries).",
                group=group,
                name=file.name,
                folder=file.parent,
            ),
            "defaults",
            Text(
                "Check that '{group}' exists under the config directory or a searchpath, and "
                "that the searchpath variables (EMBODIED_PATH, REPO_PATH, ...) point at your "
                "RLinf checkout.",
                group=group,
            ),
        )
    if "override" in text.lower() and overrides:
        return ConfigLoadError(
            Text("An override could not be applied: {reason}", reason=text.splitlines()[0]),
            "overrides",
            Text(
                "Write overrides as key=value (e.g. cluster.num_nodes=4); "
                "use +key=value to add a key."
            ),
        )
    first_line = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return ConfigLoadError(
        Text("Hydra could not compose {name}: {reason}", name=file.name, reason=first_line),
        str(file),
        Text("Check the defaults list and overrides."),
    )


def _missing_variable(name: str, file: Path) -> MissingVariableError:
    """The variable is unset; with a ``guess`` (the file sits in an RLinf checkout)
    :func:`compose_config` uses it and says so, so only an error without one is shown."""
    fix = Text(
        "Set {name} before importing: pass --env {name}=DIR (or --rlinf-repo /path/to/RLinf), "
        "or export {name}=DIR.",
        name=name,
    )
    return MissingVariableError(
        Text(
            "The config's hydra.searchpath uses {expression}, but the environment variable "
            "{name} is not set.",
            expression=f"${{oc.env:{name}}}",
            name=name,
        ),
        "hydra.searchpath",
        fix,
        name,
        _guess_variable(name, file),
    )


def _guess_variable(name: str, file: Path) -> str | None:
    rel = RLINF_PATH_VARIABLES.get(name)
    if rel is None:
        return None
    for parent in file.resolve().parents:
        if (parent / "examples").is_dir() and (parent / rel).is_dir():
            return str((parent / rel).resolve())
    return None


def _as_written(container: DictConfig | ListConfig, key: Any) -> Any:
    """A value as the config writes it (an interpolation that failed to resolve)."""
    child = container._get_node(key)  # noqa: SLF001 - OmegaConf keeps the expression here
    return child._value() if isinstance(child, Node) else None


def _resolve_all(config: DictConfig, unresolved: list[UnresolvedValue]) -> dict[str, Any]:
    """Resolve every value within the interpolation budget; nesting too deep for Python's
    stack (from a config group file our depth check did not read) is one clear error."""
    try:
        return cast(
            dict[str, Any], _resolve(config, (), "", unresolved, InterpolationBudget(config))
        )
    except RecursionError:
        raise ConfigLoadError(
            Text("The config nests too deep to read (Python's recursion limit)."),
            "",
            Text("Flatten the nesting; configs nest a dozen levels at most."),
        ) from None


def _is_interpolation(raw: Any) -> bool:
    return isinstance(raw, str) and "${" in raw


def _resolve(
    node: Any,
    where: tuple[str, ...],
    path: str,
    unresolved: list[UnresolvedValue],
    budget: InterpolationBudget,
) -> Any:
    """Resolve every value we can; keep failing or too costly interpolations as written and
    report them (CFG-UNRESOLVED with the reason)."""
    if isinstance(node, DictConfig | ListConfig):
        keys = list(node) if isinstance(node, DictConfig) else range(len(node))
        out: dict[str, Any] = {}
        for key in keys:
            child_where = (*where, str(key))
            raw = _as_written(node, key)
            child_path = (
                f"{path}[{key}]"
                if isinstance(node, ListConfig)
                else f"{path}.{key}"
                if path
                else str(key)
            )
            reason: Text | str | None = (
                budget.refusal(child_where) if _is_interpolation(raw) else None
            )
            if reason is None:
                try:
                    child = node[key]
                except Exception as exc:
                    reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
                else:
                    spent = budget.spend(child, child_where) if _is_interpolation(raw) else None
                    if spent is None:
                        inner = budget.alias(child_where, raw)
                        out[str(key)] = _resolve(child, inner, child_path, unresolved, budget)
                        continue
                    reason = spent
            unresolved.append(UnresolvedValue(child_path, str(raw), reason or ""))
            out[str(key)] = raw
        return out if isinstance(node, DictConfig) else list(out.values())
    return node


def _unresolved_finding(value: UnresolvedValue) -> Finding:
    return Finding(
        "CFG-UNRESOLVED",
        Severity.WARNING,
        value.path,
        Text(
            "{expression} cannot be resolved here ({reason}); RLinf resolves it at run "
            "time, so check it holds there.",
            expression=value.expression,
            reason=value.reason,
        ),
        Text("Set the environment variable or value it needs, or pass an override."),
        "OmegaConf interpolation as RLinf resolves it",
    )
