"""Architecture rules of mvsim_ros, read from the source with `ast` (nothing is imported):

- layers: every module belongs to a unit (its folder under mvsim_ros/; tracking/nodes/ is a unit of its own) with
  a rank (RANKS). A module imports from its own unit or from units of lower rank only; units of the same rank do
  not import each other (except the pairs in SIBLINGS_ALLOWED). Every import counts, inside functions too.
- ROS: rclpy and the message packages (ROS_PACKAGES, *_msgs, *_srvs, *_interfaces) are imported only by the
  modules of ROS_ALLOWED (the ROS adapters, the teleop tool and the benchmarks that drive a node).
- no import circle between modules: imports at module and class level, those under `if TYPE_CHECKING:` included
  (a type-only import is still a dependency), form a graph without cycles; imports inside functions do not count.
- private attributes stay private: no module reads or writes an underscore attribute of another object
  (`other._x`, `self.part._x`, `module._x`; only `self._x` and `cls._x`), nor imports an underscore name from
  another module. Names that libraries make public with a leading underscore (PUBLIC_UNDERSCORE_NAMES) are fine.
- no module-level mutable state in the ROS adapters (ros/): no `global` statement, and no module-level container
  changed by a function (per-session state lives in objects the session creates).
- sizes: no module over MAX_LINES lines, no folder with more than MAX_MODULES_PER_FOLDER modules side by side.

Each failure lists every violation as `path:line: what`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "mvsim_ros"

#: Rank of each unit: a module may import units of lower rank (and its own unit).
RANKS = {"core": 0, "world": 1, "physics": 2, "sensors": 3, "runtime": 4, "output": 5, "viewer": 5, "tracking": 5,
         "ros": 6, "cli": 7, "tracking.nodes": 7, "compare": 7, "report": 6, "bench": 8, "gym": 5,
         "sweep": 5}
#: (importing unit, imported unit) pairs of the same rank that may import each other's modules.
SIBLINGS_ALLOWED: frozenset[tuple[str, str]] = frozenset()
#: Top-level ROS packages (besides every *_msgs, *_srvs and *_interfaces package).
ROS_PACKAGES = {"rclpy", "rosidl_runtime_py", "rosgraph_msgs", "builtin_interfaces", "simulation_interfaces",
                "ackermann_msgs", "tf2_ros"}
#: Modules that may import ROS packages: whole subtrees (name + ".*") or single modules.
ROS_ALLOWED = ("mvsim_ros.ros.*", "mvsim_ros.tracking.nodes.*", "mvsim_ros.cli.teleop", "mvsim_ros.bench.cli",
               "mvsim_ros.bench.physics", "mvsim_ros.bench.node_rtf", "mvsim_ros.bench.edits")
MAX_LINES = 600
MAX_MODULES_PER_FOLDER = 15
#: Folders not walked (third-party files shipped with the package, caches).
SKIPPED_FOLDERS = {"node_modules", "__pycache__"}


@dataclass(frozen=True)
class Import:
    """One imported name: the module that imports it, where, and what (a module name, resolved)."""

    module: str
    path: Path
    line: int
    target: str
    at_load: bool  # executed when the module is loaded (not in a function, not under TYPE_CHECKING)
    in_function: bool = False  # inside a function body (runs when called, not a dependency of the module's load)


def module_files(root: Path, package: str = PACKAGE) -> dict[str, Path]:
    """Module name -> file of every module of the package rooted at `root` (the package's own folder)."""
    modules = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if SKIPPED_FOLDERS & set(relative.parts[:-1]):
            continue
        parts = [package, *relative.parts[:-1]]
        if relative.name != "__init__.py":
            parts.append(relative.stem)
        modules[".".join(parts)] = path
    return modules


class _ImportVisitor(ast.NodeVisitor):
    """Collects the import statements of one module with their line and whether they run at load time."""

    def __init__(self) -> None:
        self.found: list[tuple[ast.Import | ast.ImportFrom, bool, bool]] = []
        self._deferred = 0  # depth of function bodies and TYPE_CHECKING blocks around the current node
        self._functions = 0  # depth of function bodies around the current node

    def _defer(self, node: ast.AST) -> None:
        self._deferred += 1
        self._functions += 1
        self.generic_visit(node)
        self._functions -= 1
        self._deferred -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _defer

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        if (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
                isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"):
            self._deferred += 1
            for child in node.body:
                self.visit(child)
            self._deferred -= 1
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.found.append((node, self._deferred == 0, self._functions > 0))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self.found.append((node, self._deferred == 0, self._functions > 0))


def _package_of(module: str, path: Path) -> str:
    """The package a module's relative imports start from."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> list[Import]:
    """Every name `module` imports, resolved to a module: `from a import b` is a.b when that is a module, else a."""
    visitor = _ImportVisitor()
    visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    result = []
    for node, at_load, in_function in visitor.found:
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            base = node.module or ""
            if node.level:
                package = _package_of(module, path)
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        result += [Import(module, path, node.lineno, target, at_load, in_function)
                   for target in dict.fromkeys(targets)]
    return result


def all_imports(root: Path, package: str = PACKAGE) -> tuple[dict[str, Path], list[Import]]:
    """The package's modules and every import of theirs."""
    modules = module_files(root, package)
    return modules, [imp for name, path in modules.items() for imp in imports_of(name, path, modules)]


def unit_of(module: str) -> str | None:
    """The layer unit of a module of the package (None: the package's root module)."""
    parts = module.split(".")
    if len(parts) < 2:
        return None
    if parts[1] == "tracking" and len(parts) > 2 and parts[2] == "nodes":
        return "tracking.nodes"
    return parts[1]


def _internal(target: str, modules: dict[str, Path]) -> str | None:
    """The package's module a target names (the longest known prefix), or None for a module outside it."""
    parts = target.split(".")
    while parts:
        name = ".".join(parts)
        if name in modules:
            return name
        parts.pop()
    return None


def _where(imp: Import, root: Path) -> str:
    return f"{imp.path.relative_to(root.parent)}:{imp.line}"


def layer_violations(root: Path, package: str = PACKAGE) -> list[str]:
    """Imports of a unit of higher or equal rank (siblings not allowed), and modules outside the rank table."""
    modules, imports = all_imports(root, package)
    unranked: dict[str, Path] = {}
    for name, path in modules.items():
        unit = unit_of(name)
        if unit is not None and unit not in RANKS:
            unranked.setdefault(unit, path.parent)
    found = [f"{folder.relative_to(root.parent)}/: unit {unit!r} has no rank in RANKS"
             for unit, folder in sorted(unranked.items())]
    for imp in imports:
        target = _internal(imp.target, modules)
        source_unit, target_unit = unit_of(imp.module), unit_of(target) if target else None
        if target is None or source_unit is None or target_unit is None or source_unit == target_unit:
            continue
        if source_unit not in RANKS or target_unit not in RANKS:
            continue  # reported above
        source_rank, target_rank = RANKS[source_unit], RANKS[target_unit]
        if target_rank > source_rank:
            found.append(f"{_where(imp, root)}: {imp.module} ({source_unit}, rank {source_rank}) imports {target} "
                         f"({target_unit}, rank {target_rank}): a higher layer")
        elif target_rank == source_rank and (source_unit, target_unit) not in SIBLINGS_ALLOWED:
            found.append(f"{_where(imp, root)}: {imp.module} ({source_unit}) imports {target} ({target_unit}): "
                         f"a sibling of the same rank {source_rank}")
    return found


def is_ros_package(target: str) -> bool:
    """Whether an imported module belongs to ROS (rclpy, a message or interface package, ...)."""
    top = target.split(".")[0]
    return top in ROS_PACKAGES or top.endswith(("_msgs", "_srvs", "_interfaces"))


def _matches(pattern: str, module: str) -> bool:
    """Whether a ROS_ALLOWED entry (a module, or a subtree 'name.*') covers `module`."""
    return module.startswith(pattern[:-1]) if pattern.endswith(".*") else module == pattern


def ros_allowed(module: str) -> bool:
    """Whether a module may import ROS packages (ROS_ALLOWED)."""
    return any(_matches(pattern, module) for pattern in ROS_ALLOWED)


def ros_violations(root: Path, package: str = PACKAGE) -> list[str]:
    """Imports of ROS packages by modules not in ROS_ALLOWED."""
    _, imports = all_imports(root, package)
    return [f"{_where(imp, root)}: {imp.module} imports {imp.target} (ROS) but is not in ROS_ALLOWED"
            for imp in imports if is_ros_package(imp.target) and not ros_allowed(imp.module)]


def import_cycles(root: Path, package: str = PACKAGE) -> list[list[Import]]:
    """The import circles among modules depending on each other (module- and class-level imports, TYPE_CHECKING
    ones included): per strongly connected component of more than one module (or a module importing itself), its
    imports within the component."""
    modules, imports = all_imports(root, package)
    edges: dict[str, list[Import]] = {name: [] for name in modules}
    for imp in imports:
        target = _internal(imp.target, modules)
        if not imp.in_function and target is not None:
            edges[imp.module].append(Import(imp.module, imp.path, imp.line, target, True))
    # Tarjan's strongly connected components, iterative (no recursion limit).
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in modules:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, child = work.pop()
            if child == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            out = edges[node]
            if child < len(out):
                work.append((node, child + 1))
                target = out[child].target
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    cycles = []
    for component in components:
        members = set(component)
        inside = [imp for name in sorted(members) for imp in edges[name] if imp.target in members]
        if len(members) > 1 or inside:
            cycles.append(inside)
    return cycles


def cycle_violations(root: Path, package: str = PACKAGE) -> list[str]:
    """One line per import of each circle."""
    return [f"{_where(imp, root)}: {imp.module} imports {imp.target} (circle {k + 1}: "
            f"{', '.join(sorted({i.module for i in cycle}))})"
            for k, cycle in enumerate(import_cycles(root, package)) for imp in cycle]


def size_violations(root: Path, package: str = PACKAGE) -> list[str]:
    """Modules over MAX_LINES lines; folders with more than MAX_MODULES_PER_FOLDER modules (not counting
    __init__.py)."""
    modules = module_files(root, package)
    found = []
    folders: dict[Path, int] = {}
    for path in modules.values():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            found.append(f"{path.relative_to(root.parent)}:{MAX_LINES + 1}: {lines} lines (most: {MAX_LINES})")
        if path.name != "__init__.py":
            folders[path.parent] = folders.get(path.parent, 0) + 1
    found += [f"{folder.relative_to(root.parent)}/: {count} modules side by side (most: {MAX_MODULES_PER_FOLDER})"
              for folder, count in sorted(folders.items()) if count > MAX_MODULES_PER_FOLDER]
    return found


#: Attribute names with a leading underscore that their libraries document as public API.
PUBLIC_UNDERSCORE_NAMES = {
    "_replace", "_asdict", "_fields", "_make", "_field_defaults",  # collections.namedtuple / typing.NamedTuple
    "_exit",  # os._exit: leave a forked child without running the parent's exit handlers
}
#: Methods that change a list, dict, set or deque in place.
MUTATING_METHODS = {"append", "extend", "insert", "pop", "popitem", "remove", "clear", "update", "setdefault",
                    "add", "discard", "appendleft", "extendleft", "popleft", "sort", "reverse"}
#: Calls that make a mutable container.
CONTAINER_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque", "Counter"}


def _is_private(name: str) -> bool:
    """A single-underscore name that is not a library's public one (dunders and ctypes' _sunder_ names are not
    private)."""
    return (name.startswith("_") and not name.startswith("__") and not name.endswith("_")
            and name not in PUBLIC_UNDERSCORE_NAMES)


def private_access_violations(root: Path, package: str = PACKAGE) -> list[str]:
    """Reads or writes of another object's underscore attributes, and imports of another module's underscore
    names."""
    found = []
    for path in module_files(root, package).values():
        where = path.relative_to(root.parent)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Attribute) and _is_private(node.attr):
                owner = node.value
                if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                    found.append(f"{where}:{node.lineno}: {ast.unparse(owner)}.{node.attr}: another object's "
                                 f"private attribute")
            elif isinstance(node, ast.ImportFrom):
                found += [f"{where}:{node.lineno}: imports {alias.name} from {node.module or '.'}: another module's "
                          f"private name" for alias in node.names if _is_private(alias.name)]
    return found


def _makes_container(value: ast.AST) -> bool:
    """Whether an expression builds a mutable container (a literal, a comprehension or a container call)."""
    if isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        return name in CONTAINER_CALLS
    return False


def module_state_violations(root: Path, package: str = PACKAGE, folder: str = "ros") -> list[str]:
    """In the modules under `folder`: `global` statements, and module-level containers that a function changes
    (a mutating method call, an item assignment or deletion)."""
    found = []
    for name, path in module_files(root, package).items():
        if unit_of(name) != folder:
            continue
        where = path.relative_to(root.parent)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        containers = set()
        for statement in tree.body:
            targets = statement.targets if isinstance(statement, ast.Assign) else (
                [statement.target] if isinstance(statement, ast.AnnAssign) and statement.value else [])
            if targets and _makes_container(statement.value):
                containers |= {t.id for t in targets if isinstance(t, ast.Name)}
        functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for function in functions:
            for node in ast.walk(function):
                if isinstance(node, ast.Global):
                    found.append(f"{where}:{node.lineno}: global {', '.join(node.names)}: module state set after "
                                 f"import")
                elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                      and node.func.attr in MUTATING_METHODS and isinstance(node.func.value, ast.Name)
                      and node.func.value.id in containers):
                    found.append(f"{where}:{node.lineno}: {node.func.value.id}.{node.func.attr}(): module-level "
                                 f"container changed by a function")
                elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del))
                      and isinstance(node.value, ast.Name) and node.value.id in containers):
                    found.append(f"{where}:{node.lineno}: {node.value.id}[...] assigned: module-level container "
                                 f"changed by a function")
    return sorted(set(found))


def _report(violations: list[str]) -> str:
    return f"{len(violations)} violation(s):\n" + "\n".join(violations)


def test_layers():
    violations = layer_violations(REPO / PACKAGE)
    assert not violations, _report(violations)


def test_ros_only_in_the_ros_adapters():
    modules = module_files(REPO / PACKAGE)
    violations = [f"ROS_ALLOWED: {pattern} names no module" for pattern in ROS_ALLOWED
                  if not any(_matches(pattern, name) for name in modules)]
    violations += ros_violations(REPO / PACKAGE)
    assert not violations, _report(violations)


def test_no_import_circles():
    violations = cycle_violations(REPO / PACKAGE)
    assert not violations, _report(violations)


def test_module_and_folder_sizes():
    violations = size_violations(REPO / PACKAGE)
    assert not violations, _report(violations)


def test_no_private_attribute_of_another_object():
    violations = private_access_violations(REPO / PACKAGE)
    assert not violations, _report(violations)


def test_no_module_level_state_in_the_ros_adapters():
    violations = module_state_violations(REPO / PACKAGE)
    assert not violations, _report(violations)


# -- the checks themselves, on a small package written for them ----------------------------------------------------

@pytest.fixture
def toy(tmp_path) -> Path:
    """A package `mvsim_ros` with one violation of each kind (and imports that are fine)."""
    root = tmp_path / PACKAGE
    files = {
        "__init__.py": "",
        "core/__init__.py": "",
        "core/a.py": "import math\nfrom mvsim_ros.core import b\n",
        "core/b.py": "from . import a\n",  # circle a <-> b
        "world/__init__.py": "",
        "world/w.py": "from mvsim_ros.core.a import x\n\n\ndef f():\n    from ..physics import p\n",  # higher layer
        "physics/__init__.py": "",
        "physics/p.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from mvsim_ros.physics import q\n",
        "physics/q.py": "from mvsim_ros.physics import p, r\n",  # circle with p, whose import is type-only
        "physics/r.py": "def f():\n    from mvsim_ros.physics import q\n",  # no circle: imported when f runs
        "ros/s.py": ("from mvsim_ros.output.o import _hidden\n_seen = []\nCACHE = dict()\nLIMITS = {'a': 1}\n\n\n"
                     "class A:\n    def __init__(self, other):\n        self._x = 1\n        other._y = 2\n"
                     "        self.part._z = 3\n\n    def f(self, row):\n        global _count\n"
                     "        _seen.append(1)\n        CACHE['k'] = 2\n        return LIMITS['a'] + self._x + "
                     "row._replace().__class__\n"),
        "output/__init__.py": "",
        "output/o.py": "import mvsim_ros.viewer.v\n",  # sibling
        "viewer/__init__.py": "",
        "viewer/v.py": "def g():\n    import rclpy\n",  # ROS outside the adapters
        "ros/__init__.py": "",
        "ros/r.py": "import rclpy\nfrom geometry_msgs.msg import Twist\nfrom mvsim_ros.output import o\n",
        "misc/__init__.py": "",  # a unit without a rank
        "tracking/__init__.py": "",
        "tracking/t.py": "from mvsim_ros.tracking.nodes import n\n",  # tracking (5) -> tracking.nodes (7)
        "tracking/nodes/__init__.py": "",
        "tracking/nodes/n.py": "from mvsim_ros.tracking import t\nimport nav_msgs.msg\n",
    }
    files.update({f"big/m{k}.py": "" for k in range(MAX_MODULES_PER_FOLDER + 1)})
    files["big/__init__.py"] = "x = 1\n" * (MAX_LINES + 1)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_the_checks_find_each_kind_of_violation(toy):
    layers = layer_violations(toy)
    assert any(v.startswith("mvsim_ros/world/w.py:5:") and "higher layer" in v for v in layers), layers
    assert any(v.startswith("mvsim_ros/output/o.py:1:") and "sibling" in v for v in layers), layers
    assert any(v.startswith("mvsim_ros/tracking/t.py:1:") and "higher layer" in v for v in layers), layers
    assert any("'misc'" in v for v in layers) and any("'big'" in v for v in layers), layers
    assert not any(v.startswith(("mvsim_ros/ros/", "mvsim_ros/tracking/nodes/", "mvsim_ros/core/")) for v in layers)
    assert len(layers) == 5, layers
    assert ros_violations(toy) == ["mvsim_ros/viewer/v.py:2: mvsim_ros.viewer.v imports rclpy (ROS) but is not in "
                                   "ROS_ALLOWED"]
    cycles = sorted(sorted((i.module, i.target) for i in cycle) for cycle in import_cycles(toy))
    assert cycles == [
        [("mvsim_ros.core.a", "mvsim_ros.core.b"), ("mvsim_ros.core.b", "mvsim_ros.core.a")],
        [("mvsim_ros.physics.p", "mvsim_ros.physics.q"), ("mvsim_ros.physics.q", "mvsim_ros.physics.p")],
        [("mvsim_ros.tracking.nodes.n", "mvsim_ros.tracking.t"),
         ("mvsim_ros.tracking.t", "mvsim_ros.tracking.nodes.n")],
    ], cycles
    private = private_access_violations(toy)
    assert private == ["mvsim_ros/ros/s.py:1: imports _hidden from mvsim_ros.output.o: another module's private name",
                       "mvsim_ros/ros/s.py:10: other._y: another object's private attribute",
                       "mvsim_ros/ros/s.py:11: self.part._z: another object's private attribute"], private
    state = module_state_violations(toy)
    assert state == ["mvsim_ros/ros/s.py:14: global _count: module state set after import",
                     "mvsim_ros/ros/s.py:15: _seen.append(): module-level container changed by a function",
                     "mvsim_ros/ros/s.py:16: CACHE[...] assigned: module-level container changed by a function"], state
    sizes = size_violations(toy)
    assert sizes == [f"mvsim_ros/big/__init__.py:{MAX_LINES + 1}: {MAX_LINES + 1} lines (most: {MAX_LINES})",
                     f"mvsim_ros/big/: {MAX_MODULES_PER_FOLDER + 1} modules side by side (most: "
                     f"{MAX_MODULES_PER_FOLDER})"], sizes


# -- the benchmarks: case modules over shared ones ----------------------------------------------------------------

#: Benchmark modules every case may import (vehicles and worlds, node rows, node processes, the node's measured
#: real-time factor, paths).
BENCH_SHARED = {"vehicles", "node", "node_process", "paths", "node_rtf"}
#: Benchmark case modules: imported by the command line only.
BENCH_CASES = {"physics", "sensors", "viewer", "edits", "recording", "gym_steps", "sweep_throughput", "rendered"}


def test_bench_cases_import_only_the_shared_modules():
    modules, imports = all_imports(REPO / PACKAGE)
    bench = {name.rpartition(".")[2] for name in modules if name.startswith("mvsim_ros.bench.")}
    assert bench == BENCH_SHARED | BENCH_CASES | {"cli", "__main__"}, bench
    allowed = {"cli": BENCH_SHARED | BENCH_CASES, "__main__": {"cli"}}
    violations = []
    for imp in imports:
        target = _internal(imp.target, modules)
        if not (imp.module.startswith("mvsim_ros.bench.") and target and target.startswith("mvsim_ros.bench.")):
            continue
        source, name = imp.module.rpartition(".")[2], target.rpartition(".")[2]
        if name not in allowed.get(source, BENCH_SHARED):
            violations.append(f"{_where(imp, REPO / PACKAGE)}: {imp.module} imports {target}")
    assert not violations, _report(violations)
