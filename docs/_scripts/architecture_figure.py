"""Draw the layer packages of mddf/ and the imports between them, read from the code, for docs/architecture.md.

Each box is a package of ``mddf/`` (the modules directly in it are the box ``mddf``), its height the lines it
holds; an arrow A -> B says that a module of A imports one of B (imports inside functions included), read from the
sources with ``ast`` as ``tests/test_imports.py`` reads them. The boxes stand on floors: a package stands one floor
above the highest package it imports, so every arrow points down. Run from the repository root::

    python docs/_scripts/architecture_figure.py            # writes docs/architecture.png
    python docs/_scripts/architecture_figure.py --out other.png

The PNG is committed, so the page shows it on GitHub too; ``tests/test_docs_figures.py`` checks that the committed
file has the drawing's size and that the arrows drawn are the code's.
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "docs" / "architecture.png"
#: Figure size (inches) and resolution: the committed PNG is 1500 x 1020 pixels.
SIZE = (12.5, 8.5)
DPI = 120
#: Half the width of a package's box (data units; the figure is 12.5 wide).
HALF_WIDTH = 1.2
#: What each package holds, in a few words (the box's second line).
ROLES = {
    "mddf": "exported names, PAPER_CONFIG",
    "mddf._ahead_of_time": "build of the compiled code",
    "mddf.cascade": "engine, policies, estimators",
    "mddf.blocks": "one cross-fitted layer",
    "mddf.features": "pairs, principal directions",
    "mddf.forests": "forests, draws, storage",
    "mddf.trees": "one binned tree (numba)",
    "mddf.margin": "eqs. 46-48, Algorithm 2's state",
    "mddf.storage": "saved models, model_dir's files",
    "mddf.utils": "checks, tables, stopping, save()",
    "mddf._runtime": "compile cache, dispatch, threads",
}


def package_of(module: str) -> str:
    """The package box of a module name of mddf: ``mddf.<package>``, or ``mddf`` for a module directly in it."""
    parts = module.split(".")
    if len(parts) > 1 and (ROOT / "mddf" / parts[1]).is_dir():
        return f"mddf.{parts[1]}"
    return "mddf"


def _module(path: Path) -> tuple[str, bool]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def _imported(tree, name: str, is_package: bool):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join(package + ([node.module] if node.module else []))
            yield base


def package_graph() -> tuple[dict, dict]:
    """``(lines per package, {package: set of packages it imports})`` of mddf/, read from the sources."""
    lines, edges = {}, {}
    for path in sorted((ROOT / "mddf").rglob("*.py")):
        name, is_package = _module(path)
        source = path.read_text()
        package = package_of(name)
        lines[package] = lines.get(package, 0) + source.count("\n")
        targets = edges.setdefault(package, set())
        for target in _imported(ast.parse(source), name, is_package):
            if target == "mddf" or target.startswith("mddf."):
                targets.add(package_of(target))
        targets.discard(package)
    return lines, edges


def floors(edges: dict) -> dict:
    """A package's floor: just below the lowest package that imports it (the top floor for one that none imports),
    so that an arrow is as short as the imports allow and always points down."""
    importers = {p: {a for a, targets in edges.items() if p in targets} for p in edges}
    found = {}

    def floor(package, seen=()):
        if package not in found:
            if package in seen:
                raise ValueError(f"the packages import each other in a loop through {package}")
            above = [floor(a, (*seen, package)) for a in importers[package]]
            found[package] = min(above) - 1 if above else 0
        return found[package]

    for package in edges:
        floor(package)
    lowest = min(found.values())
    return {package: f - lowest for package, f in found.items()}


def _placed(by_floor: dict, edges: dict) -> dict:
    """``{package: x}``: each floor from the top, its packages in the order of the mean x of their importers."""
    x, width = {}, 12.5
    for f in sorted(by_floor, reverse=True):
        packages = by_floor[f]

        def mean_x(package):
            above = [x[a] for a, targets in edges.items() if package in targets and a in x]
            return sum(above) / len(above) if above else width / 2

        packages.sort(key=lambda p: (mean_x(p), p))
        step = width / len(packages)
        x.update({p: step * (i + 0.5) for i, p in enumerate(packages)})
    return x


#: The bends an arrow may take (matplotlib's ``arc3`` radius), tried in turn until it passes no other box.
BENDS = (0.0, 0.15, -0.15, 0.3, -0.3, 0.45, -0.45, 0.6, -0.6, 0.8, -0.8, 1.0, -1.0)


def _bend(start, end, boxes):
    """The first bend of :data:`BENDS` whose curve from ``start`` to ``end`` misses every box of ``boxes``
    (``(x, y, half width, half height)``); when none does, the one that passes the fewest."""
    (x0, y0), (x1, y1) = start, end
    hits = {}
    for rad in BENDS:
        cx, cy = (x0 + x1) / 2 + rad * (y1 - y0), (y0 + y1) / 2 - rad * (x1 - x0)  # arc3's control point
        points = [
            ((1 - t) ** 2 * x0 + 2 * (1 - t) * t * cx + t**2 * x1, (1 - t) ** 2 * y0 + 2 * (1 - t) * t * cy + t**2 * y1)
            for t in (i / 40 for i in range(2, 39))
        ]
        hits[rad] = sum(
            any(abs(px - bx) < w + 0.08 and abs(py - by) < h + 0.08 for px, py in points) for bx, by, w, h in boxes
        )
        if hits[rad] == 0:
            return rad
    return min(BENDS, key=hits.get)


def draw(out: Path = OUT) -> Path:
    lines, edges = package_graph()
    level = floors(edges)
    by_floor = {}
    for package in sorted(level):
        by_floor.setdefault(level[package], []).append(package)
    xs = _placed(by_floor, edges)
    fig, ax = plt.subplots(figsize=SIZE)
    ax.set_xlim(0, 12.5)
    ax.set_ylim(-0.4, max(by_floor) * 1.15 + 1.2)
    ax.axis("off")
    where, biggest = {}, max(lines.values())
    for f, packages in by_floor.items():
        for package in packages:
            x, y = xs[package], f * 1.15 + 0.4
            height = 0.42 + 0.38 * lines[package] / biggest
            where[package] = (x, y, height)
            box = FancyBboxPatch(
                (x - HALF_WIDTH, y - height / 2),
                2 * HALF_WIDTH,
                height,
                boxstyle="round,pad=0.04",
                fc="#e8eef7",
                ec="#34506f",
                zorder=3,
            )
            ax.add_patch(box)
            label = package.replace("mddf.", "") + "/" if package != "mddf" else "mddf/*.py"
            ax.text(x, y + 0.07, label, ha="center", va="center", fontsize=11, fontweight="bold", zorder=4)
            ax.text(
                x, y - 0.15, f"{ROLES.get(package, '')} ({lines[package]:,} lines)", ha="center", fontsize=8, zorder=4
            )
    for package, targets in edges.items():
        x0, y0, h0 = where[package]
        for target in sorted(targets):
            x1, y1, h1 = where[target]
            start, end = (x0, y0 - h0 / 2 - 0.04), (x1, y1 + h1 / 2 + 0.04)
            others = [(x, y, HALF_WIDTH, h / 2) for p, (x, y, h) in where.items() if p not in (package, target)]
            arrow = FancyArrowPatch(
                start,
                end,
                arrowstyle="-|>",
                mutation_scale=10,
                color="#7a8da3",
                lw=0.8,
                alpha=0.8,
                connectionstyle=f"arc3,rad={_bend(start, end, others)}",
                zorder=1,
            )
            ax.add_patch(arrow)
    ax.set_title("mddf's layer packages: an arrow A -> B is an import of B by A (read from the code)", fontsize=11)
    fig.tight_layout()
    fig.savefig(out, dpi=DPI)
    plt.close(fig)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT)
    print(draw(parser.parse_args(argv).out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
