"""The package imports under its one name and the README's commands are what CI runs."""

import importlib
import importlib.metadata
import inspect
import re
from pathlib import Path

import pytest
from sklearn.base import BaseEstimator

import mddf
import mddf.baselines

ROOT = Path(__file__).resolve().parents[1]


def test_subpackages_import_under_mddf():
    import mddf.baselines
    import mddf.datasets
    import mddf.experiments.protocols

    assert "digits" in mddf.datasets.list_datasets()
    assert hasattr(mddf.baselines, "DeepBoostClassifier")
    assert hasattr(mddf.experiments.protocols, "deepboost_folds")


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    test_lines = [line.strip() for line in ci.splitlines() if "pytest" in line and not line.startswith("#")]
    assert len(test_lines) == 1
    assert test_lines[0] in readme


def test_the_checkouts_folders_are_not_importable_under_their_own_names():
    # tests/conftest.py: a stale top-level import fails here as it fails for every user
    with pytest.raises(ModuleNotFoundError, match="mddf.experiments"):
        importlib.import_module("experiments")


def test_the_version_is_single_sourced():
    # pyproject.toml reads the version from mddf/__init__.py, so the installed metadata agrees with it
    assert mddf.__version__ == importlib.metadata.version("mddf")
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r"^dynamic = \[\"version\"\]$", pyproject, re.MULTILINE)
    assert not re.search(r"^version = \"", pyproject, re.MULTILINE)


def test_the_license_file_is_the_license_the_metadata_declares():
    assert importlib.metadata.metadata("mddf")["License"] == "BSD-3-Clause"
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License\n")
    assert "Neither the name of the copyright holder nor the names of its" in text  # the third clause


def test_pandas_is_a_base_dependency():
    # DataFrame input and set_output(transform="pandas") must work after a plain `pip install mddf`
    base = [r for r in importlib.metadata.requires("mddf") if "extra ==" not in r]
    assert any(re.match(r"pandas\b", r) for r in base), base


def public_estimators():
    """Every estimator class exported by ``mddf`` and ``mddf.baselines``."""
    exported = [getattr(module, name) for module in (mddf, mddf.baselines) for name in module.__all__]
    return [obj for obj in exported if inspect.isclass(obj) and issubclass(obj, BaseEstimator)]


def test_the_public_estimators_are_all_checked():
    names = {cls.__name__ for cls in public_estimators()}
    expected = {"MDDFClassifier", "CascadeForestRegressor", "MDDFGridSearch", "QuadBoostClassifier", "PCAFeatures"}
    assert expected | {"PairFeatures"} <= names
    assert len(names) == 10  # each runs scikit-learn's estimator checks in its own test module


@pytest.mark.parametrize("cls", public_estimators(), ids=lambda cls: cls.__name__)
def test_every_constructor_parameter_is_keyword_only(cls):
    # scikit-learn's convention: MDDFClassifier(n_estimators=10), never MDDFClassifier(10)
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    assert params
    positional = [p.name for p in params if p.kind is not inspect.Parameter.KEYWORD_ONLY]
    assert positional == [], f"{cls.__name__}.__init__ takes {positional} positionally"
    with pytest.raises(TypeError):
        cls(params[0].default)


def _api_reference_entries(module):
    """The names the API reference (docs/api/index.rst) documents under ``.. currentmodule:: module``."""
    names, current = set(), None
    for line in (ROOT / "docs" / "api" / "index.rst").read_text().splitlines():
        if match := re.match(r"\.\. currentmodule:: (\S+)$", line):
            current = match.group(1)
        elif current == module:
            if match := re.match(r"\.\. auto(?:data|function|class):: (\S+)$", line):
                names.add(match.group(1))
            elif match := re.match(r" {3}~?([A-Za-z_][\w.]*)$", line):  # an autosummary entry
                names.add(match.group(1))
    return names


def test_mddf_exports_the_estimators_and_the_papers_equations_and_no_implementation_class():
    assert {"MDDFClassifier", "CascadeForestRegressor", "MDDFGridSearch", "ModelFileError"} <= set(mddf.__all__)
    assert {"margins", "margin_distribution_loss", "sample_distribution", "solve_layer_share"} <= set(mddf.__all__)
    assert "ForestBlock" not in mddf.__all__ and not hasattr(mddf, "ForestBlock")
    assert sorted(mddf.__all__) == sorted(set(mddf.__all__)) and all(hasattr(mddf, name) for name in mddf.__all__)


def test_the_api_reference_documents_exactly_what_mddf_exports():
    assert _api_reference_entries("mddf") == set(mddf.__all__)


@pytest.mark.parametrize("name", ["mddf.forests", "mddf.trees", "mddf.utils"])
def test_the_api_reference_documents_every_class_and_function_a_public_package_exports(name):
    module = importlib.import_module(name)
    exported = {attr for attr in module.__all__ if callable(getattr(module, attr))}
    assert exported <= _api_reference_entries(name) <= set(module.__all__)


def test_the_implementation_lives_in_the_layer_packages_and_mddf_exports_it():
    # scikit-learn's layout: sklearn/ensemble/_hist_gradient_boosting/grower.py, and sklearn.ensemble exports the
    # estimators; here the layers are packages (tests/test_imports.py) and mddf exports what users need of them
    package = ROOT / "mddf"
    public = sorted(p.name for p in package.glob("*.py") if not p.name.startswith("_"))
    assert public == [], "public-named modules directly in mddf/ (rename them with a leading _): " + ", ".join(public)
    exported = [getattr(mddf, n) for n in mddf.__all__ if callable(getattr(mddf, n))]
    assert all(obj.__module__.count(".") == 2 for obj in exported), [obj.__module__ for obj in exported]


@pytest.mark.parametrize("system", ["Linux", "Windows", "Darwin", "FreeBSD"])
def test_xgboost_is_required_by_its_own_name_everywhere_never_as_its_cpu_only_twin(system):
    # xgboost-cpu installs the same files as xgboost: pip would put it over a user's own xgboost (docs/install.md)
    from packaging.requirements import Requirement

    pyproject = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text()
    dependencies = re.search(r"^dependencies = \[\n(.*?)^\]", pyproject, re.S | re.M)[1]
    quoted = [line.strip().rstrip(",")[1:-1] for line in dependencies.splitlines() if line.strip()[:1] in ('"', "'")]
    listed = [r for r in map(Requirement, quoted) if r.name.startswith("xgboost")]
    environment = {"platform_system": system}
    assert [r.name for r in listed if r.marker is None or r.marker.evaluate(environment)] == ["xgboost"]
