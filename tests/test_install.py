"""The project installs one import name, ``mddf``, beside distributions that own ``datasets`` and ``baselines``.

Each scenario is a fresh virtual environment with no network. Two tiny local distributions are built
and installed first: one owns the top-level package ``datasets`` (as Hugging Face's does), the other
``baselines`` (as OpenAI's does). Then the project is installed (from its sdist, which also builds its
wheel, or editable from a copy of the checkout), both sides are imported and used, the project is
uninstalled, and the other distributions' files must be byte-identical to what they were before.

The environments see this test run's own dependencies (numpy, scikit-learn, pip, setuptools...) through
a ``.pth`` file pointing at links to them, minus every trace of mddf, so nothing is downloaded and the
only mddf an environment can import is the one installed into it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

#: These tests build environments, start clusters or spawn and signal processes: the slow loop only.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
# The version the checkout builds (single-sourced in mddf/__init__.py), read without importing mddf.
VERSION = re.search(r'^__version__ = "([^"]+)"$', (ROOT / "mddf" / "__init__.py").read_text(), re.MULTILINE)[1]
FAKES = {
    "datasets": "def load_dataset(name):\n    return f'fake datasets loaded {name}'\n",
    "baselines": "def run(env):\n    return f'fake baselines ran {env}'\n",
}
# What an installed mddf must be usable for: every subpackage imports from the one name, and a model fits.
USE_MDDF = textwrap.dedent(
    """
    import mddf, mddf.baselines, mddf.datasets, mddf.experiments, mddf.experiments.protocols
    from mddf.datasets import load_dataset
    from mddf.baselines import DeepBoostClassifier
    ds = load_dataset("iris")
    clf = mddf.MDDFClassifier(n_estimators=5, max_layers=2, random_state=0).fit(ds.X_train, ds.y_train)
    assert clf.score(ds.X_test, ds.y_test) > 0.8
    y = ds.y_train == 0
    assert DeepBoostClassifier(n_iter=3).fit(ds.X_train, y).score(ds.X_train, y) > 0.9
    print(mddf.__file__)
    """
)
#: The scripts the README names: thin front ends of the command line (and of the results publisher).
README_SCRIPTS = {
    "export_features.py",
    "plot_layers.py",
    "plot_tsne.py",
    "publish_results.py",
    "run_uci.py",
    "small_sample.py",
}
#: The entry points the wheel of these tests holds built ahead of time (``MDDF_AOT_ENTRIES``).
AHEAD_OF_TIME = ("alias_table", "write_class_words")
#: Lines of the installed mddf/experiments: not a study's line (those are in benchmarks/). 6.8k is the bar, held once
#: the studies left it; issues 80 and 81 took it to 8.2k, issue 91 back to 7.17k. The debt left to 6.8k was paid
#: without removing anything users see: small modules sharing one job merged (the protocols, the --out lock, the
#: suites, the bindings, the model summary, the worker pool, the environment), docstrings cut to their contract, a few
#: helpers shared instead of copied, help texts said shorter.
EXPERIMENTS_LINE_BUDGET = 6_796
USE_FAKES = (
    "import datasets, baselines; "
    "print(datasets.load_dataset('iris')); print(baselines.run('x')); print(datasets.__file__, baselines.__file__)"
)


#: Prints the names of the console scripts the installed distribution recorded outside site-packages.
CONSOLE_SCRIPTS = (
    "import importlib.metadata as md; "
    "print(' '.join(f.name for f in md.distribution('mddf').files if f.parts[0] == '..'))"
)


def run(args, **kwargs):
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, args))} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def tracked_copy(dest: Path) -> Path:
    """The checkout's tracked files (what a fresh clone has), copied to ``dest``."""
    files = run(["git", "ls-files", "-z"], cwd=ROOT).split("\0")
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    return dest


def pip(python, command, *args, **kwargs):
    """``python -m pip command *args``; nothing is ever fetched from an index."""
    offline = ["--no-index"] if command in ("install", "wheel") else []
    return run([python, "-m", "pip", "--disable-pip-version-check", "--no-input", command, *offline, *args], **kwargs)


def fake_distribution(tmp: Path, package: str) -> Path:
    """Build a wheel of a tiny distribution named ``package`` that owns the top-level package ``package``."""
    src = tmp / f"fake-{package}"
    (src / package).mkdir(parents=True)
    (src / package / "__init__.py").write_text(FAKES[package])
    (src / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""
            [build-system]
            requires = ["setuptools"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "{package}"
            version = "99.0"

            [tool.setuptools]
            packages = ["{package}"]
            """
        )
    )
    pip(sys.executable, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", tmp / "wheels", src)
    return next((tmp / "wheels").glob(f"{package}-99.0-*.whl"))


def environment(path: Path, deps: Path) -> Path:
    """A fresh virtual environment (no pip of its own) that sees ``deps``; returns its python."""
    venv.create(path, with_pip=False, clear=True)
    python = path / "bin" / "python"
    purelib = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).strip())
    (purelib / "test-dependencies.pth").write_text(f"{deps}\n")
    return python


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    """Everything the scenarios share: the fake wheels, the project's sdist and wheel, the dependency links."""
    tmp = tmp_path_factory.mktemp("install")
    # This run's dependencies, without any mddf (installed here editable or not) or fake package.
    deps = tmp / "deps"
    deps.mkdir()
    site = Path(sysconfig.get_path("purelib"))
    for entry in site.iterdir():
        name = entry.name.lower()
        if name.startswith(("mddf", "__editable__", "datasets", "baselines")) or name.endswith(".pth"):
            continue
        (deps / entry.name).symlink_to(entry)
    source = tracked_copy(tmp / "source")
    dist = tmp / "dist"
    sdist = run(
        [sys.executable, "-c", "import sys, setuptools.build_meta as b; print(b.build_sdist(sys.argv[1]))", dist],
        cwd=source,
    ).split()[-1]
    # the wheel holds tree code built ahead of time (a few small entry points: the build of all takes minutes)
    aot = {**os.environ, "MDDF_AOT": "1", "MDDF_AOT_ENTRIES": ",".join(AHEAD_OF_TIME)}
    pip(sys.executable, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", dist, source, env=aot)
    return {
        "tmp": tmp,
        "deps": deps,
        "source": source,
        "sdist": dist / sdist,
        "wheel": next(dist.glob("mddf-*.whl")),
        "fakes": [fake_distribution(tmp, package) for package in FAKES],
    }


def owned_files(python) -> dict[str, str]:
    """sha256 of every file of the fake distributions in ``python``'s environment."""
    code = textwrap.dedent(
        """
        import hashlib, importlib.metadata as md
        for name in ("datasets", "baselines"):
            for f in md.distribution(name).files:
                p = f.locate()
                print(f, hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "missing")
        """
    )
    return dict(line.rsplit(" ", 1) for line in run([python, "-c", code]).splitlines())


def check_fakes_work(python, cwd):
    out = run([python, "-c", USE_FAKES], cwd=cwd)
    assert "fake datasets loaded iris" in out and "fake baselines ran x" in out


@pytest.mark.parametrize("mode", ["sdist", "editable"])
def test_the_project_installs_beside_distributions_owning_datasets_and_baselines(build, mode, tmp_path):
    python = environment(tmp_path / "env", build["deps"])
    pip(python, "install", "--no-deps", "-q", *build["fakes"])
    before = owned_files(python)
    assert before and "missing" not in before.values()
    elsewhere = tmp_path / "elsewhere"  # a working directory that is not the checkout
    elsewhere.mkdir()
    check_fakes_work(python, elsewhere)

    target = ["-e", build["source"]] if mode == "editable" else [build["sdist"]]
    pip(python, "install", "--no-deps", "--no-build-isolation", "-q", *target)

    assert owned_files(python) == before
    check_fakes_work(python, elsewhere)
    where = run([python, "-c", USE_MDDF], cwd=elsewhere).strip().splitlines()[-1]
    expected = build["source"] / "mddf" if mode == "editable" else tmp_path / "env"
    assert Path(where).is_relative_to(expected)
    top_level = run(
        [
            python,
            "-c",
            "import importlib.metadata as md; print(sorted({f.parts[0] for f in md.distribution('mddf').files}))",
        ],
        cwd=elsewhere,
    )
    installed = {name.strip("' ") for name in top_level.strip("[]\n").split(",")}
    # Files outside site-packages (recorded as ../../../bin/...) are the console script, not importable.
    assert "mddf" in run([python, "-c", CONSOLE_SCRIPTS], cwd=elsewhere).split()
    installed.discard("..")
    assert {name for name in installed if not name.endswith((".dist-info", ".pth", ".py"))} <= {"mddf", "__pycache__"}
    assert f"mddf-{VERSION}.dist-info" in installed

    pip(python, "uninstall", "-y", "-q", "mddf")
    assert owned_files(python) == before
    check_fakes_work(python, elsewhere)
    # numba writes its compiled-function cache next to the modules at run time (mddf/trees/__pycache__,
    # mddf/baselines/__pycache__); pip does not know those files, and the folders they keep make `mddf` an
    # empty namespace package: no code of the project may remain importable
    gone = subprocess.run(
        [python, "-c", "from mddf.baselines import DeepBoostClassifier"], capture_output=True, text=True, cwd=elsewhere
    )
    assert gone.returncode != 0, gone.stdout
    assert "No module named 'mddf" in gone.stderr or "cannot import name 'DeepBoostClassifier'" in gone.stderr, (
        gone.stderr
    )
    code = subprocess.run(
        [python, "-c", "import mddf; print(mddf.__file__)"], capture_output=True, text=True, cwd=elsewhere
    )
    assert code.returncode != 0 or code.stdout.strip() == "None", code.stdout
    purelib = Path(run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).strip())
    left = [f for f in (purelib / "mddf").rglob("*") if f.is_file()] if (purelib / "mddf").exists() else []
    assert all(f.suffix in (".nbi", ".nbc") and f.parent.name == "__pycache__" for f in left), left


def test_the_wheel_and_the_sdist_hold_one_top_level_package_with_every_subpackage(build):
    with zipfile.ZipFile(build["wheel"]) as wheel:
        names = wheel.namelist()
    assert {n.split("/")[0] for n in names} == {"mddf", f"{build['wheel'].name.split('-')[0]}-{VERSION}.dist-info"}
    for module in (
        "mddf/cascade/classifier.py",
        "mddf/forests/growing.py",
        "mddf/trees/criterion.py",
        "mddf/utils/_tabular.py",
        "mddf/baselines/deepboost.py",
        "mddf/datasets/loader.py",
        "mddf/experiments/runner.py",
        "mddf/experiments/protocols.py",
    ):
        assert module in names
    # the tree code built ahead of time, with the record of what it was built from, in a wheel for this platform
    built = [n for n in names if n.startswith("mddf/_runtime/_kernels.")]
    assert sorted(Path(n).suffix for n in built) == [".json", ".so"]
    assert not build["wheel"].name.endswith("-none-any.whl")
    with tarfile.open(build["sdist"]) as sdist:
        members = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    for folder in ("mddf", "baselines", "datasets", "experiments"):
        assert f"{folder}/__init__.py" in members
    # the wheel holds exactly the package folders' modules, each under its mapped name
    mapped = {"baselines/": "mddf/baselines/", "datasets/": "mddf/datasets/", "experiments/": "mddf/experiments/"}
    expected = {
        next((w + m[len(s) :] for s, w in mapped.items() if m.startswith(s)), m)
        for m in members
        if m.endswith(".py") and m.split("/")[0] in ("mddf", "baselines", "datasets", "experiments")
    }
    assert {n for n in names if n.endswith(".py")} == expected
    tracked = run(["git", "ls-files", "mddf", "baselines", "datasets", "experiments"], cwd=ROOT).split()
    assert {t for t in tracked if t.endswith(".py")} <= members


def test_the_wheel_ships_the_library_without_its_lab(build):
    """No study (``benchmarks/``, beside the package) is in the wheel, and the installed experiments stay within
    half the lines they held while the studies shipped in them (13.5k)."""
    with zipfile.ZipFile(build["wheel"]) as wheel:
        names = wheel.namelist()
        experiments = {
            n: wheel.read(n).decode() for n in names if n.startswith("mddf/experiments/") and n.endswith(".py")
        }
    folder = build["source"] / "benchmarks"
    studies = {p.stem for p in folder.glob("*.py")} - {"__init__"} | {
        p.parent.name for p in folder.glob("*/__init__.py")
    }
    assert {"harness", "mixed", "stopping", "scale"} <= studies  # the studies are where the checkout keeps them
    assert not [n for n in names if n.split("/")[0] == "benchmarks" or "/bench/" in n]
    assert "mddf/experiments/cost_model.json" in names  # the cost model, package data read at use
    assert not [n for n in experiments if n.count("/") == 2 and Path(n).stem in studies]  # mddf/experiments/<study>.py
    imports_a_study = re.compile(r"^\s*(?:from|import)\s+benchmarks\b", re.MULTILINE)
    assert not [n for n, text in experiments.items() if imports_a_study.search(text)]
    lines = sum(text.count("\n") for text in experiments.values())
    assert 2_000 < lines <= EXPERIMENTS_LINE_BUDGET, f"mddf/experiments holds {lines} lines"


def test_every_script_runs_from_a_plain_install_and_the_studies_beside_it(build, tmp_path):
    python = environment(tmp_path / "env", build["deps"])
    pip(python, "install", "--no-deps", "-q", build["wheel"])
    scripts = sorted((build["source"] / "scripts").glob("*.py"))
    assert {s.name for s in scripts} == README_SCRIPTS
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    state = "from mddf.utils import compiled_tree_code; print(compiled_tree_code())"
    assert run([python, "-c", state], cwd=tmp_path, env=env).strip() == "built ahead of time"
    for script in scripts:
        out = run([python, script, "--help"], cwd=tmp_path, env=env)
        assert "usage:" in out, script.name
    # the studies run against the installed package (mddf_fit fits in fresh child processes), from a folder that
    # holds benchmarks/ but not the checkout's mddf/, which would shadow the installed one
    beside = tmp_path / "beside"
    beside.mkdir()
    (beside / "benchmarks").symlink_to(build["source"] / "benchmarks", target_is_directory=True)
    for study, expected in (("mddf_fit", "| iris |"), ("boosting", "wrote ")):
        out_dir = tmp_path / study
        out = run([python, "-m", f"benchmarks.{study}", "--quick", "--out", out_dir], cwd=beside, env=env)
        assert expected in out and out_dir.exists(), out[-2000:]


def test_this_environment_resolves_no_top_level_name_of_the_project_but_mddf(tmp_path):
    # The environment running the tests has the project installed (editable in CI): outside the checkout,
    # datasets, baselines and experiments must not lead into it, whatever else provides them.
    code = (
        "import importlib.util as u\n"
        "for n in ('mddf', 'datasets', 'baselines', 'experiments'):\n"
        "    s = u.find_spec(n)\n"
        "    print(n, s.origin if s and s.origin else (list(s.submodule_search_locations) if s else None))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    found = dict(line.split(" ", 1) for line in run([sys.executable, "-c", code], cwd=tmp_path, env=env).splitlines())
    assert found.pop("mddf") != "None"
    for name, origin in found.items():
        assert str(ROOT) not in origin, f"{name} resolves into the checkout: {origin}"
