import subprocess
import sys

from mddf.experiments._estimator_imports import practitioner_modules

BROKEN = """
import sys
sys.path.insert(0, sys.argv[1])
import mddf.experiments._estimator_imports
print("xgboost" in sys.modules, "mddf.forests" in sys.modules)
"""


def test_the_server_loads_the_forests_engine_and_the_practitioner_methods_libraries():
    modules = practitioner_modules()
    assert modules[0] == "mddf.forests"
    assert {"sklearn.ensemble", "xgboost"} <= set(modules)


def test_a_library_that_fails_to_import_is_left_to_the_runs_that_need_it(tmp_path):
    (tmp_path / "xgboost.py").write_text("raise OSError('libgomp.so.1: cannot open shared object file')\n")
    done = subprocess.run([sys.executable, "-c", BROKEN, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True"]  # the broken one not loaded, the others are
