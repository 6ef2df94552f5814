"""The architecture stays visible: subpackages by concern in one order of layers, no import
circle between them (function-level imports included), no import of another subpackage's
private names, no use of another object's private names, package faces that only re-export
(short, no import hooks, never imported from inside their own package), the rules engine knows
nothing of RL, agents see no hidden state, no public signature takes more than four positional
parameters and records are built by field name."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "tt_env"

# The layers, lowest first: a module may import only from its own layer or a lower one.
LAYERS = (
    "util",
    "game",
    "encoding",
    "text",
    "valuation",
    "learned",
    "agents",
    "env",
    "three_thirteen_v0",
    "vector",
    "cli",
    "replay",
    "arena",
    "play",
    "train",
)
RL_PACKAGES = {"gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib", "ray"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
# The compiled kernels: each ``_c*.c`` beside the modules is built into the module of its name.
EXTENSIONS = {module_name(p) for p in sorted(PACKAGE.rglob("*.c"))}
FACE_LINES = 150  # a package's __init__ re-exports: it stays under this many lines


@cache
def imports_of(name: str) -> tuple[tuple[str, str, int], ...]:
    """The imports of tt_env module ``name`` (:func:`imports_in`)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    return imports_in(path.read_text(encoding="utf-8"), package)


def imports_in(source: str, package: str) -> tuple[tuple[str, str, int], ...]:
    """(module imported, name imported or "", line) of every import of a module of
    ``package``, at module level or in a function, outside ``if TYPE_CHECKING:`` blocks (never
    run). A ``from P import x`` where ``P.x`` is a module imports that module."""
    tree = ast.parse(source)
    typing_only = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            typing_only.update(id(n) for n in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            found += [(alias.name, "", node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                submodule = f"{module}.{alias.name}"
                if submodule in MODULES or submodule in EXTENSIONS:
                    found.append((submodule, "", node.lineno))
                else:
                    found.append((module, alias.name, node.lineno))
    return tuple(found)


def layer_of(name: str) -> str:
    """The subpackage (or top-level module) of a tt_env module; "" for the package itself."""
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else ""


def internal_edges() -> list[tuple[str, str, int]]:
    """(importer, imported, line) between two tt_env modules, to the package root left out
    (its names load lazily) and to a module's own parent packages left out (importing a
    sibling runs them anyway)."""
    edges = []
    for name in MODULES:
        for module, _, line in imports_of(name):
            if module not in MODULES or module == "tt_env" or name.startswith(module + "."):
                continue
            edges.append((name, module, line))
    return edges


def test_every_subpackage_and_top_level_module_has_a_layer():
    assert {layer_of(name) for name in MODULES} - {""} == set(LAYERS)


def test_imports_go_down_the_layers_only():
    """No import circle between subpackages is possible: every import (function-level
    included) goes to the same layer or a lower one."""
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    upward = [
        f"{a}:{line} imports {b}"
        for a, b, line in internal_edges()
        if layer_of(a) and rank[layer_of(b)] > rank[layer_of(a)]
    ]
    assert not upward, "\n".join(upward)


def test_no_import_circle_between_modules_of_a_subpackage():
    """Inside a subpackage too, the modules import one another in one direction."""
    graph: dict[str, set[str]] = {}
    for a, b, _ in internal_edges():
        graph.setdefault(a, set()).add(b)
    state: dict[str, int] = {}
    circles = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                circles.append(" -> ".join(path[path.index(nxt) :] + [nxt]))
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert not circles, "\n".join(circles)


def test_no_module_imports_another_subpackages_private_names():
    """Each subpackage's public face is what the others use: no ``_name`` of another
    subpackage, neither a private module nor a private object."""
    private = [line for name in MODULES for line in private_imports(name, imports_of(name))]
    assert not private, "\n".join(private)


def private_imports(name: str, imports) -> list[str]:
    """The imports of module ``name`` that reach another subpackage's private names."""
    private = []
    for module, imported, line in imports:
        if not module.startswith("tt_env.") or layer_of(module) == layer_of(name):
            continue
        parts = module.split(".")[1:] + ([imported] if imported else [])
        if any(p.startswith("_") and not p.endswith("__") for p in parts):  # __doc__ is public
            private.append(f"{name}:{line} imports {module} {imported}".rstrip())
    return private


def test_the_private_names_check_catches_what_it_should():
    source = (
        "from tt_env.game.melds._config import solver_config\n"  # a private module
        "def f():\n"
        "    from tt_env.game.melds import _kernel_of\n"  # a private name, in a function
        "    import tt_env.learned._cfeatures\n"
        "from tt_env.game.melds import solve\n"  # public: fine
        "from tt_env.valuation._crule import Rule\n"  # own subpackage: fine
    )
    found = private_imports("tt_env.valuation.x", imports_in(source, "tt_env.valuation"))
    assert [f.split(" imports ")[1] for f in found] == [
        "tt_env.game.melds._config solver_config",
        "tt_env.game.melds _kernel_of",
        "tt_env.learned._cfeatures",
    ]


# Names that begin with "_" and are public all the same: a library's documented convention.
PUBLIC_BY_CONVENTION = {
    # collections.namedtuple's methods and attributes: the underscore keeps them apart from
    # the field names, the docs say so ("To prevent conflicts with field names...").
    "_replace": "namedtuple: a copy with some fields replaced",
    "_asdict": "namedtuple: the fields as a dict",
    "_fields": "namedtuple: the field names",
    "_make": "namedtuple: an instance from an iterable",
    "_field_defaults": "namedtuple: the fields' default values",
}
OWN = ("self", "cls")  # and super(): an object's private names are its own to use
BY_NAME = ("getattr", "setattr", "hasattr", "delattr")


def reach_throughs(source: str) -> list[tuple[int, str]]:
    """(line, expression) of each use in ``source`` of another object's private name: ``x._name``
    (read or written, a module's ``_name`` included) or ``getattr(x, "_name")`` and its kin,
    where ``x`` is not ``self``, ``cls`` or ``super()``. Dunders and
    :data:`PUBLIC_BY_CONVENTION` are public."""

    def private(name: str) -> bool:
        dunder = name.startswith("__") and name.endswith("__")
        return name.startswith("_") and not dunder and name not in PUBLIC_BY_CONVENTION

    def own(node: ast.expr) -> bool:
        if isinstance(node, ast.Name):
            return node.id in OWN
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "super"
        )

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            if private(node.attr) and not own(node.value):
                found.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in BY_NAME
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and private(node.args[1].value)
            and not own(node.args[0])
        ):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def test_no_module_reaches_into_another_objects_private_names():
    """An object's ``_name`` is its own: what another object needs, the owner offers as a public
    method or property (STYLE.md: no reach-throughs such as ``tables[i]._done = ...``)."""
    found = [
        f"{name}:{line} {expression}"
        for name, path in MODULES.items()
        for line, expression in reach_throughs(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_the_reach_through_check_catches_what_it_should():
    source = (
        "class Table:\n"
        "    def step(self, tables, env, point, model):\n"
        "        self._done = cls._count = super()._reset()\n"  # its own: fine
        "        tables[0]._done = True\n"  # another object's, written
        "        reward = env._cumulative_rewards['player_0']\n"  # read
        "        parser = argparse._SubParsersAction\n"  # a module's private name
        "        if getattr(model, '_logger', None) is None:\n"  # by name
        "            setattr(self, '_seen', True)\n"  # by name, its own: fine
        "        moved = point._replace(x=1)._asdict()\n"  # namedtuple's convention: fine
        "        return env.__class__, env.__dict__, env.rewards, env.__secret\n"
    )
    assert [expression for _, expression in reach_throughs(source)] == [
        "tables[0]._done",
        "env._cumulative_rewards",
        "argparse._SubParsersAction",
        "getattr(model, '_logger', None)",
        "env.__secret",  # name-mangled, not a dunder: private too
    ]


@pytest.mark.parametrize(
    "name", sorted(n for n in MODULES if layer_of(n) == "game"), ids=lambda n: n[7:]
)
def test_the_engine_imports_no_rl_package(name):
    """The rules engine (tt_env.game) knows nothing of RL: no RL package, and of tt_env only
    its own modules and the plumbing below it."""
    for module, _, line in imports_of(name):
        top = module.split(".")[0]
        assert top not in RL_PACKAGES, f"{name}:{line} imports {module}"
        if top == "tt_env" and module != "tt_env":
            assert layer_of(module) in ("game", "util"), f"{name}:{line} imports {module}"


def test_agents_do_not_import_the_engine_state():
    for name in MODULES:
        if layer_of(name) != "agents":
            continue
        for module, imported, line in imports_of(name):
            assert not (module.endswith("engine") or imported in ("Game", "engine")), (
                f"{name}:{line} imports the engine: {module} {imported}"
            )


def test_no_agent_imports_another_agent():
    """The shared pieces live below the agents, in tt_env.valuation and tt_env.learned."""
    own = {
        n.rpartition(".")[2]
        for n in MODULES
        if layer_of(n) == "agents" and n.count(".") == 2 and not n.rpartition(".")[2][0] == "_"
    } - {"base", "specs"}  # not agents: what the agents share, and the specs that name them
    for name in MODULES:
        if layer_of(name) != "agents" or name == "tt_env.agents":
            continue
        me = name.rpartition(".")[2].lstrip("_")
        for module, _, line in imports_of(name):
            if module.startswith("tt_env.agents."):
                other = module.rpartition(".")[2]
                assert other not in own - {me}, f"{name}:{line} imports the agent {other}"


def test_playing_needs_no_torch():
    """Agents, model files, features, the arena, the terminal game and the replays import no
    training package: a trained model plays with the core dependencies (tt_env.learned.network
    and tt_env.train train; tt_env.vector.sb3 is the batch as an SB3 VecEnv)."""
    training_only = {"torch", "stable_baselines3", "sb3_contrib", "tensorboard"}
    for name in MODULES:
        if layer_of(name) in ("train",) or name in ("tt_env.learned.network", "tt_env.vector.sb3"):
            continue
        for module, _, line in imports_of(name):
            assert module.split(".")[0] not in training_only, f"{name}:{line} imports {module}"
            assert module != "tt_env.learned.network" and layer_of(module) != "train", (
                f"{name}:{line} imports the training code"
            )


def test_no_source_file_is_over_a_thousand_lines_unless_it_says_why():
    """A file over ~1,000 lines says in its docstring why its concern earns it."""
    for name, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") > 1000:
            doc = ast.get_docstring(ast.parse(text)) or ""
            assert "one file" in doc, f"{name} has {text.count(chr(10))} lines"


# A public function takes at most this many positional parameters (self and cls aside); the
# rest are keyword-only, so a call reads as what it sets and a new parameter breaks no caller.
MAX_POSITIONAL = 4
# Methods whose signature an outside API fixes, and which API: they are let off the limit.
OUTSIDE_API = {
    "step": "Gymnasium / PettingZoo env.step",
    "reset": "Gymnasium / PettingZoo env.reset",
    "step_async": "SB3 VecEnv",
    "step_wait": "SB3 VecEnv",
    "env_method": "SB3 VecEnv",
    "get_attr": "SB3 VecEnv",
    "set_attr": "SB3 VecEnv",
    "env_is_wrapped": "SB3 VecEnv",
}
# Other dunders (__exit__, __getitem__...) have the shape Python's protocols give them.
PUBLIC_DUNDERS = {"__init__", "__new__", "__call__"}


def wide_signatures(source: str, module: str) -> list[str]:
    """The public functions and methods of ``source`` with more than :data:`MAX_POSITIONAL`
    positional parameters besides self / cls: those of a public class or the module whose
    name has no leading underscore (``__init__``, ``__new__``, ``__call__`` included)."""
    found = []

    def visit(body, prefix: str, in_class: bool) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                visit(node.body, f"{prefix}{node.name}.", True)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.startswith("_") and node.name not in PUBLIC_DUNDERS:
                    continue
                if in_class and node.name in OUTSIDE_API:
                    continue
                params = node.args.posonlyargs + node.args.args
                decorators = {ast.unparse(d) for d in node.decorator_list}
                if in_class and "staticmethod" not in decorators and params:
                    params = params[1:]  # self or cls
                if len(params) > MAX_POSITIONAL:
                    found.append(
                        f"{module}:{node.lineno} {prefix}{node.name} takes {len(params)} "
                        f"positional parameters ({', '.join(p.arg for p in params)})"
                    )

    visit(ast.parse(source).body, "", False)
    return found


def test_no_public_signature_takes_more_than_four_positional_parameters():
    """Past four, parameters are keyword-only (``*``): ``run_tournament(specs, rules, games,
    seed, workers=2)``, never a row of bare values to count."""
    wide = [
        line
        for name, path in MODULES.items()
        for line in wide_signatures(path.read_text(encoding="utf-8"), name)
    ]
    assert not wide, "\n".join(wide)


def test_the_signature_check_catches_what_it_should():
    source = (
        "def wide(a, b, c, d, e): ...\n"  # caught
        "def fine(a, b, c, d, *, e, f): ...\n"
        "def _private(a, b, c, d, e): ...\n"
        "class Agent:\n"
        "    def __init__(self, a, b, c, d, e): ...\n"  # caught
        "    def act(self, a, b, c, d): ...\n"  # self aside: four
        "    @staticmethod\n"
        "    def make(a, b, c, d, e): ...\n"  # caught: no self
        "    @classmethod\n"
        "    def build(cls, a, b, c, d, e=0): ...\n"  # caught
        "    def __exit__(self, a, b, c, d, e): ...\n"  # fixed by Python
        "    def step(self, a, b, c, d, e): ...\n"  # fixed by Gymnasium
        "class _Private:\n"
        "    def method(self, a, b, c, d, e): ...\n"
    )
    assert [f.split(" ")[1] for f in wide_signatures(source, "m")] == [
        "wide",
        "Agent.__init__",
        "Agent.make",
        "Agent.build",
    ]


def records_in(source: str) -> dict[str, int]:
    """The record classes of ``source`` (NamedTuples and dataclasses) and their field counts."""
    records = {}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        named_tuple = any(ast.unparse(b).endswith("NamedTuple") for b in node.bases)
        dataclass = any("dataclass" in ast.unparse(d) for d in node.decorator_list)
        if named_tuple or dataclass:
            records[node.name] = sum(
                isinstance(s, ast.AnnAssign) and "ClassVar" not in ast.unparse(s.annotation)
                for s in node.body
            )
    return records


def positional_records(source: str, module: str, records: dict[str, int]) -> list[str]:
    """The calls in ``source`` that build a record of more than two fields from positional
    arguments."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
        if records.get(name, 0) > 2:
            found.append(f"{module}:{node.lineno} {name} from {len(node.args)} positional values")
    return found


def test_records_of_more_than_two_fields_are_built_by_field_name():
    """``Outcome(move=move, seat=seat, ..., rebuilt=False)``, not a row of 13 bare values whose
    meaning is their place."""
    sources = {name: path.read_text(encoding="utf-8") for name, path in MODULES.items()}
    records = {k: v for source in sources.values() for k, v in records_in(source).items()}
    assert records["Outcome"] == 13 and records["TableMeld"] == 3  # the scan sees them
    found = [
        line for name, src in sources.items() for line in positional_records(src, name, records)
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    "name", sorted(n for n, p in MODULES.items() if p.name == "__init__.py"), ids=str
)
def test_every_package_face_is_short(name):
    """A package's ``__init__`` is its public face: it re-exports, and the logic lives in
    modules named for it; so it stays short."""
    lines = MODULES[name].read_text(encoding="utf-8").count("\n")
    assert lines < FACE_LINES, f"{name} (__init__.py) has {lines} lines"


def import_machinery(source: str) -> list[str]:
    """``line: code`` of what in ``source`` reaches the import system's hooks: ``sys.meta_path``,
    ``sys.path_hooks``, ``sys.path_importer_cache``, ``builtins.__import__``, the finders and
    loaders of ``importlib.abc`` and ``importlib.machinery`` (importing a module by its name,
    ``importlib.import_module``, is fine)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            code = ast.unparse(node)
            if node.attr in IMPORT_HOOKS or code in IMPORT_MODULES:
                found.add((node.lineno, code))
        elif isinstance(node, ast.Import):
            found.update((node.lineno, a.name) for a in node.names if a.name in IMPORT_MODULES)
        elif isinstance(node, ast.ImportFrom):
            names = {a.name for a in node.names}
            if node.module in IMPORT_MODULES or names & (IMPORT_HOOKS | {"abc", "machinery"}):
                found.add((node.lineno, f"from {node.module} import {', '.join(sorted(names))}"))
    return [f"{line}: {code}" for line, code in sorted(found)]


IMPORT_HOOKS = {"meta_path", "path_hooks", "path_importer_cache", "__import__"}
IMPORT_MODULES = {"importlib.abc", "importlib.machinery"}


def test_no_module_changes_the_import_machinery():
    """Importing tt_env imports what it names and nothing else changes: no finder or loader
    slipped into ``sys.meta_path``, no import hook (the Gymnasium id is registered by
    :mod:`tt_env.env` when it is imported)."""
    found = [
        f"{name}:{hit}"
        for name, path in MODULES.items()
        for hit in import_machinery(path.read_text(encoding="utf-8"))
    ]
    assert not found, "\n".join(found)


def test_the_record_check_catches_what_it_should():
    source = (
        "class Pair(NamedTuple):\n    a: int\n    b: int\n"
        "@dataclass(frozen=True)\nclass Three:\n    a: int\n    b: int\n    c: ClassVar[int]\n"
        "    d: int\n"
        "Pair(1, 2)\n"  # two fields: fine
        "Three(a=1, b=2, d=3)\n"
        "x.Three(1, b=2, d=3)\n"  # caught
        "Three(*values)\n"  # caught
    )
    records = records_in(source)
    assert records == {"Pair": 2, "Three": 3}
    assert [f.split(" ")[0] for f in positional_records(source, "m", records)] == ["m:12", "m:13"]


def test_the_import_machinery_check_catches_what_it_should():
    source = (
        "import importlib.abc, sys\n"
        "class Finder(importlib.abc.MetaPathFinder):\n"
        "    pass\n"
        "sys.meta_path.insert(0, Finder())\n"
        "def f():\n"
        "    from importlib.machinery import PathFinder\n"
        "    sys.path_hooks.append(None)\n"
        "from importlib import abc\n"
        "import importlib\n"  # importing a module by its name: fine
        "importlib.import_module('json')\n"
        "x = __import__('json')\n"
    )
    lines = [hit.split(":")[0] for hit in import_machinery(source)]
    assert lines == ["1", "2", "4", "6", "7", "8"]


def enclosing_packages(name: str) -> list[str]:
    """The packages that hold tt_env module ``name``, below the root ``tt_env`` (whose names
    load lazily from the subpackages: :data:`tt_env.__version__` is all it holds)."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts))]


def own_face_imports(name: str, imports) -> list[str]:
    """The imports of module ``name`` that take a name from the face (``__init__``) of a
    package holding it: a circle through the face (which imports the module's siblings), and
    the name's home left unsaid. A submodule imported through its package is fine."""
    own = enclosing_packages(name)
    return [
        f"{name}:{line} imports {module} {imported}".rstrip()
        for module, imported, line in imports
        if module in own
    ]


def test_no_module_imports_from_its_own_packages_face():
    """Inside a package, modules import from the module that defines a name, never from the
    package's ``__init__`` (function-level imports included): the face is for the others."""
    found = [line for name in MODULES for line in own_face_imports(name, imports_of(name))]
    assert not found, "\n".join(found)


def test_the_own_face_check_catches_what_it_should():
    source = (
        "from tt_env.agents import make_agent\n"  # the own package's face
        "def f():\n"
        "    from . import spec_label\n"  # relative, in a function
        "    import tt_env.agents\n"  # the whole face
        "from tt_env.agents import base, _csearch\n"  # submodules (one compiled): fine
        "from tt_env.agents.base import BaseAgent\n"  # the defining module: fine
        "from tt_env.game import Rules\n"  # another package's face: fine
    )
    found = own_face_imports("tt_env.agents.x", imports_in(source, "tt_env.agents"))
    assert [f.split(" imports ")[1] for f in found] == [
        "tt_env.agents make_agent",
        "tt_env.agents spec_label",
        "tt_env.agents",
    ]
    inner = imports_in("from tt_env.game import Rules\n", "tt_env.game.melds")
    assert own_face_imports("tt_env.game.melds.api", inner) == [
        "tt_env.game.melds.api:1 imports tt_env.game Rules"
    ]
