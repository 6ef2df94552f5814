"""Agent specs: the strings that name agents (the table of :mod:`tt_env.agents`), the
registries behind them, and :func:`make_agent`, which builds the agent a spec names.

- :data:`BUILTIN_AGENTS`: the built-in agents by name; each lists itself (:func:`builtin_agent`);
- :func:`register_model_loader`: the loaders of saved models (:mod:`tt_env.agents.learned`
  registers the loader of model files when it is imported, which happens on the first spec
  that names no built-in agent); :func:`model_dirs` and :func:`model_names`: where a model's
  name is looked up;
- :func:`split_specs`, :func:`spec_label`: a list of specs, a spec's short label.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import os
import re
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tt_env.game.rules import Rules

BUILTIN_NAMES = ("random", "greedy", "counting", "search", "llm")
"""The names of the built-in agents, in the order they are listed."""

BUILTIN_AGENTS: dict[str, type] = {}
"""name -> class of each built-in agent, in the order of :data:`BUILTIN_NAMES`: each agent's
module lists it with :func:`builtin_agent` (``tt_env.agents`` imports them all)."""


def builtin_agent(cls: type) -> type:
    """Class decorator: list ``cls`` in :data:`BUILTIN_AGENTS` under its ``name`` (one of
    :data:`BUILTIN_NAMES`). The agents list themselves, so that an agent whose options are agent
    specs (``search``'s ``prior``, ``llm``'s fallback) builds them with :func:`make_agent`
    without an import circle."""
    if cls.name not in BUILTIN_NAMES:
        raise ValueError(f"{cls.__name__}.name is {cls.name!r}, not one of {BUILTIN_NAMES}")
    listed = {**BUILTIN_AGENTS, cls.name: cls}
    BUILTIN_AGENTS.clear()  # the same dict, filled again in the order of BUILTIN_NAMES
    BUILTIN_AGENTS.update((name, listed[name]) for name in BUILTIN_NAMES if name in listed)
    return cls


ModelLoader = Callable[[str, int, Rules, "int | None"], Any]
"""``loader(spec, num_players, rules, seed)``: an agent for the model ``spec`` (a path, or a name in
``models/``), or ``None`` if this loader does not recognise it. It raises a clear error for a
missing or corrupt file, or a model trained for other rules or another number of players."""

_MODEL_LOADERS: list[ModelLoader] = []
# Modules that register a loader when imported; they are tried lazily, when a spec is not a
# built-in agent.
_LOADER_MODULES = ("tt_env.agents.learned",)
_loader_modules_tried = False
_loader_import_errors: list[str] = []

NO_LOADER_MESSAGE = "no model loader is registered (see tt_env.agents.register_model_loader)"
_PACKAGE_MODELS = Path(__file__).resolve().parents[2] / "models"


def register_model_loader(loader: ModelLoader) -> ModelLoader:
    """Register a loader of saved models for :func:`make_agent` (usable as a decorator)."""
    if loader not in _MODEL_LOADERS:
        _MODEL_LOADERS.append(loader)
    return loader


def _load_loader_modules() -> None:
    global _loader_modules_tried
    if _loader_modules_tried:
        return
    _loader_modules_tried = True
    for name in _LOADER_MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # the module exists but one of its dependencies is missing
                _loader_import_errors.append(f"{name}: {exc}")


_SET_BY_THE_GAME = ("num_players", "rules", "seed")
_OPTIONS = re.compile(r"^\s*([A-Za-z][\w-]*)\s*\((.*)\)\s*$", re.S)
# module.path:ClassName, with options in parentheses or not
_CLASS_SPEC = re.compile(r"^\s*([^\s:()]+):([^\s:()]+)\s*(?:\((.*)\))?\s*$", re.S)


def _builtin_options(text: str) -> tuple[type, dict[str, Any]] | None:
    """``(class, keyword arguments)`` of a spec ``"search(samples=256, rollout=counting)"``
    naming a built-in agent with options; None when ``text`` is not of that form."""
    match = _OPTIONS.match(text)
    if match is None or match.group(1).lower() not in BUILTIN_AGENTS:
        return None
    cls = BUILTIN_AGENTS[match.group(1).lower()]
    options = _parse_options(text, match.group(2))
    _check_options(text, match.group(1).lower(), options, _agent_options(cls))
    return cls, options


def _parse_options(text: str, body: str) -> dict[str, Any]:
    """The ``name=value`` options of the spec ``text`` (``body``: what its parentheses hold)."""
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in body.strip().split(","))):
        key, eq, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if not eq or not key.isidentifier() or not raw:
            raise ValueError(f"agent {text!r}: options are name=value pairs, got {item!r}")
        options[key] = _option_value(raw)
    return options


def _check_options(text: str, who: str, options: dict[str, Any], valid: list[str]) -> None:
    """A :class:`ValueError` naming the first of ``options`` that is not one of ``valid``."""
    for key in options:
        if key not in valid:
            close = difflib.get_close_matches(key, valid, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            if key in _SET_BY_THE_GAME:
                hint = " (the game sets it)"
            takes = f"takes {', '.join(valid)}" if valid else "takes no options"
            raise ValueError(f"agent {text!r}: unknown option {key!r}{hint}; {who} {takes}")


def _agent_options(cls: type) -> list[str]:
    """The options of a built-in agent: its constructor's keyword arguments, less those that
    the game sets (``num_players``, ``rules``, ``seed``)."""
    params = inspect.signature(cls).parameters.values()
    return [
        p.name
        for p in params
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name not in _SET_BY_THE_GAME
    ]


def _option_value(raw: str) -> Any:
    """An option's value: an int, a float, true/false/none, else the text (quotes dropped)."""
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            pass
    return raw.strip("'\"")


def split_specs(text: str) -> list[str]:
    """Agent specs separated by commas (``"greedy, search(samples=16, confidence=1)"``): commas
    inside parentheses belong to a spec's options."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return [s.strip() for s in out if s.strip()]


def spec_label(spec: str) -> str:
    """A short label for an agent spec: ``"greedy"``, ``"MyAgent"``, ``"ppo_2p"``,
    ``"search(samples=16)"``, ``"MyAgent(depth=2)"``."""
    spec = str(spec).strip()
    if spec.lower() in BUILTIN_AGENTS:
        return spec.lower()
    match = _OPTIONS.match(spec)
    if match and match.group(1).lower() in BUILTIN_AGENTS:
        return _with_options(match.group(1), match.group(2))
    if ":" in spec and not os.path.exists(spec):
        match = _CLASS_SPEC.match(spec)
        if match and match.group(3) is not None:
            return _with_options(match.group(2), match.group(3))
        return match.group(2) if match else spec.rsplit(":", 1)[1]
    base = os.path.basename(spec.rstrip("/\\")) or spec
    for ext in (".npz", ".zip", ".pt", ".pth", ".onnx"):
        if base.endswith(ext):
            return base[: -len(ext)]
    return base


def _with_options(name: str, body: str) -> str:
    options = [_short_option(item) for item in body.split(",") if item.strip()]
    return f"{name}({','.join(options)})"


def _short_option(item: str) -> str:
    """``name=value`` of an option in a label: a URL by its host, a path by its file's stem
    (``prior=runs/r/exit/net_003.npz`` -> ``prior=net_003``), without spaces."""
    key, eq, value = (part.strip() for part in item.partition("="))
    if "://" in value:
        value = urllib.parse.urlsplit(value).netloc or value
    elif "/" in value or os.sep in value:
        value = spec_label(value)
    return re.sub(r"\s+", "", f"{key}{eq}{value}")


def _from_module(text: str, num_players: int, rules: Rules, seed: int | None) -> Any:
    """The agent of a spec ``"module.path:ClassName"`` or ``"module.path:ClassName(depth=2)"``:
    the class (or factory) called with those of ``num_players``, ``rules``, ``seed`` it accepts
    and the spec's options as keyword arguments."""
    match = _CLASS_SPEC.match(text)
    if match is None:
        raise ValueError(
            f"agent {text!r}: expected module.path:ClassName, with any options in parentheses: "
            "module.path:ClassName(name=value, ...)"
        )
    module_name, attr, body = match.groups()
    options = _parse_options(text, body or "")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"agent {text!r}: cannot import module {module_name!r}: {exc}") from None
    factory = getattr(module, attr, None)
    if factory is None or not callable(factory):
        raise ValueError(f"agent {text!r}: module {module_name!r} has no class {attr!r}")
    kwargs = _arguments(text, factory, attr, options, num_players, rules, seed)
    try:
        agent = factory(**kwargs)
    except Exception as exc:  # the user's constructor: say whose it was (--debug: the traceback)
        raise ValueError(f"agent {text!r}: {attr}() raised {type(exc).__name__}: {exc}") from exc
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"agent {text!r} has no act(observation, action_mask) method")
    if not hasattr(agent, "name"):
        try:
            agent.name = spec_label(text)
        except AttributeError:
            pass
    return agent


def _arguments(
    text: str,
    factory: Callable[..., Any],
    attr: str,
    options: dict[str, Any],
    num_players: int,
    rules: Rules,
    seed: int | None,
) -> dict[str, Any]:
    """The keyword arguments of ``factory``: those of ``num_players``, ``rules``, ``seed`` it
    accepts, and the spec's ``options``; a :class:`ValueError` in one line for an option it does
    not take or an argument it needs and the spec does not give."""
    offered = {"num_players": num_players, "rules": rules, "seed": seed}
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # no signature to read (a builtin): the options as given
        return dict(options)
    if any(p.kind == p.VAR_KEYWORD for p in params.values()):
        return {**offered, **options}
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    valid = [p.name for p in params.values() if p.kind in named and p.name not in _SET_BY_THE_GAME]
    _check_options(text, attr, options, valid)
    kwargs = {**{k: v for k, v in offered.items() if k in params}, **options}
    missing = [
        p.name
        for p in params.values()
        if p.default is p.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        and p.name not in kwargs
    ]
    if missing:
        base = text.split("(", 1)[0].strip()
        example = ", ".join(f"{name}=..." for name in missing)
        raise ValueError(
            f"agent {text!r}: {attr}() needs {', '.join(missing)}, which the game does not "
            f"give: pass it in the spec, as in '{base}({example})'"
        )
    return kwargs


def make_agent(
    spec: str | Any, num_players: int = 2, rules: Rules | None = None, seed: int | None = None
) -> Any:
    """Build the agent named by ``spec`` for games of ``num_players`` under ``rules``.

    ``spec`` is ``"random"``, ``"greedy"``, ``"counting"``, ``"search"``, a built-in agent with
    options (``"search(samples=256, rollout=counting)"``: its keyword arguments),
    ``"module.path:ClassName"`` (a class or factory taking any of ``num_players``, ``rules``,
    ``seed``; options in parentheses, ``"module.path:ClassName(depth=2)"``, are more keyword
    arguments), the path or name of a saved
    model (handed to the registered model loaders), or already an agent object (returned as is).
    """
    if rules is None:
        rules = Rules(num_players=num_players)
    if rules.num_players != num_players:
        raise ValueError(f"rules are for {rules.num_players} players, not {num_players}")
    if not isinstance(spec, str):
        if callable(getattr(spec, "act", None)):
            return spec
        raise TypeError(f"an agent spec is a string or an agent object, got {spec!r}")
    text = spec.strip()
    builtin = BUILTIN_AGENTS.get(text.lower())
    if builtin is not None:
        return builtin(num_players=num_players, rules=rules, seed=seed)
    with_options = _builtin_options(text)
    if with_options is not None:
        cls, options = with_options
        try:
            agent = cls(num_players=num_players, rules=rules, seed=seed, **options)
        except TypeError as exc:  # an unknown option
            raise ValueError(f"agent {text!r}: {exc}") from None
        agent.name = spec_label(text)
        return agent
    if ":" in text and not os.path.exists(text):
        return _from_module(text, num_players, rules, seed)
    _load_loader_modules()
    for loader in _MODEL_LOADERS:
        agent = loader(text, num_players, rules, seed)
        if agent is not None:
            return agent
    looks_like_model = os.path.exists(text) or os.sep in text or "/" in text or "." in text
    if looks_like_model and not _MODEL_LOADERS:
        detail = f" ({'; '.join(_loader_import_errors)})" if _loader_import_errors else ""
        raise ValueError(f"agent {text!r}: {NO_LOADER_MESSAGE}{detail}")
    if looks_like_model and not os.path.exists(text):
        raise ValueError(f"agent {text!r}: no such model file")
    known = ", ".join(BUILTIN_AGENTS)
    models = model_names()
    named = f", a model name ({', '.join(models)})" if models else ", a model name (none found)"
    raise ValueError(
        f"unknown agent {text!r}: expected one of {known}{named}, 'module.path:ClassName', "
        "or the path of a saved model"
    )


def model_dirs() -> list[Path]:
    """Where model names are looked up, in order."""
    dirs = [Path(p) for p in os.environ.get("TT_ENV_MODELS", "").split(os.pathsep) if p]
    dirs += [Path("models"), _PACKAGE_MODELS]
    return list(dict.fromkeys(dirs))


def model_names() -> list[str]:
    """The names a model can be given by: the ``.npz`` files of :func:`model_dirs`."""
    try:
        from tt_env.learned.model import MODEL_SUFFIX
    except ImportError:  # nor can the model files' loader be there: no names to give
        return []
    names = []
    for folder in model_dirs():
        if folder.is_dir():
            names += [path.stem for path in sorted(folder.glob(f"*{MODEL_SUFFIX}"))]
    return list(dict.fromkeys(names))


__all__ = [
    "BUILTIN_AGENTS",
    "BUILTIN_NAMES",
    "NO_LOADER_MESSAGE",
    "ModelLoader",
    "builtin_agent",
    "make_agent",
    "model_dirs",
    "model_names",
    "register_model_loader",
    "spec_label",
    "split_specs",
]
