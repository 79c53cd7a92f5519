#!/usr/bin/env bash
# Create the DF21 reference environment used by the DF21 study, benchmarks/df21.py (a study-only dependency).
#
# DF21 (the deep-forest package, https://github.com/LAMDA-NJU/Deep-Forest) publishes wheels of its last
# release, 0.1.7, for Python up to 3.9 only, so it runs in a virtual environment of its own:
#
#   Python 3.9, numpy 1.23.5, scikit-learn 1.5.2, deep-forest 0.1.7 (and scipy 1.13.1, joblib 1.5.3;
#   binary wheels only)
#
# Usage (from the repository root):
#
#   bash benchmarks/setup_df21_env.sh                 # creates .df21-venv/ in the repository root
#   MDDF_DF21_PYTHON=/opt/df21/bin/python bash benchmarks/setup_df21_env.sh   # creates /opt/df21/
#   PYTHON39=/usr/bin/python3.9 bash benchmarks/setup_df21_env.sh            # which Python 3.9 to build it from
#
# The study looks for the environment's interpreter at $MDDF_DF21_PYTHON, else at
# .df21-venv/bin/python (or takes --df21-python). The environment folder is the parent of the interpreter's
# bin/ folder. Without PYTHON39 the script uses the first of: python3.9 on PATH, pyenv's newest 3.9.
#
# Without a Python 3.9, DF21 0.1.7 can be built from its source for Python 3.10 or 3.11 (the newest numpy 1.23.5
# has wheels for): DF21_SOURCE names the source, a checkout of its tag v0.1.7 or anything pip installs from
# (git+https://github.com/LAMDA-NJU/Deep-Forest@v0.1.7), and PYTHON the interpreter to build the environment from
# (default: python3). Its Cython extensions are compiled with the pinned build tools (setuptools<60, which still
# carries numpy.distutils, and Cython<3), so a C compiler is needed:
#
#   DF21_SOURCE=/path/to/Deep-Forest PYTHON=python3.11 bash benchmarks/setup_df21_env.sh
#
# Idempotent: when the environment already holds the pinned versions and DF21 fits a tiny problem, it only
# says so; otherwise it (re)installs the pinned versions into it. Needs network access to PyPI (or a
# configured index/mirror: pip's own settings apply).
set -euo pipefail

NUMPY_VERSION=1.23.5
SKLEARN_VERSION=1.5.2
DEEPFOREST_VERSION=0.1.7
# Not pinned by the comparison itself, but pinned so that the environment is the same wherever it is built.
SCIPY_VERSION=1.13.1
JOBLIB_VERSION=1.5.3
# What DF21 runs on, installed from binary wheels whichever way DF21 itself is installed.
RUNTIME=("numpy==$NUMPY_VERSION" "scikit-learn==$SKLEARN_VERSION" "scipy==$SCIPY_VERSION" "joblib==$JOBLIB_VERSION")

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n "${MDDF_DF21_PYTHON:-}" ]]; then
  env_dir=$(dirname "$(dirname "$MDDF_DF21_PYTHON")")
else
  env_dir=$repo/.df21-venv
fi
python=$env_dir/bin/python

check() {
  # Exit status 0 when the pinned versions are installed and DF21 fits and predicts a tiny problem.
  "$python" - "$NUMPY_VERSION" "$SKLEARN_VERSION" "$DEEPFOREST_VERSION" "$SCIPY_VERSION" "$JOBLIB_VERSION" <<'EOF'
import sys
from importlib import metadata

import warnings

import numpy as np

warnings.simplefilter("ignore")  # DF21 warns about rows without out-of-bag predictions on tiny forests

wanted = dict(zip(("numpy", "scikit-learn", "deep-forest", "scipy", "joblib"), sys.argv[1:]))
found = {name: metadata.version(name) for name in wanted}
if found != wanted:
    sys.exit(f"versions {found} differ from the pinned {wanted}")
from deepforest import CascadeForestClassifier

rng = np.random.RandomState(0)
X = rng.normal(size=(200, 4))
y = (X[:, 0] + X[:, 1] > 0).astype(int)
model = CascadeForestClassifier(n_trees=10, max_layers=2, random_state=0, n_jobs=1, verbose=0)
model.fit(X, y)
accuracy = float(np.mean(model.predict(X) == y))
if accuracy < 0.8:
    sys.exit(f"DF21 fits the check problem badly (training accuracy {accuracy:.3f})")
print(f"DF21 environment OK: Python {sys.version.split()[0]}, " + ", ".join(f"{k} {v}" for k, v in found.items()))
print(f"interpreter: {sys.executable}")
EOF
}

if [[ -x "$python" ]] && check 2>/dev/null; then
  exit 0
fi

if [[ -n "${DF21_SOURCE:-}" ]]; then
  if [[ ! -x "$python" ]]; then
    base=${PYTHON:-python3}
    if ! "$base" -c 'import sys; sys.exit(not (3, 9) <= sys.version_info[:2] <= (3, 11))' 2>/dev/null; then
      echo "PYTHON=$base is not a Python 3.9-3.11, which numpy $NUMPY_VERSION needs" >&2
      exit 1
    fi
    echo "creating $env_dir from $base"
    "$base" -m venv "$env_dir"
  fi
  "$python" -m pip install --quiet "setuptools<60" wheel "cython<3"
  "$python" -m pip install --quiet --only-binary=:all: "${RUNTIME[@]}"
  "$python" -m pip install --quiet --no-build-isolation --no-deps "$DF21_SOURCE"
  check
  exit $?
fi

if [[ ! -x "$python" ]]; then
  base=${PYTHON39:-}
  if [[ -z "$base" ]]; then
    # The first candidate that runs and is a 3.9 (a pyenv shim on PATH may exist without a 3.9 selected).
    for candidate in "$(command -v python3.9 || true)" \
      $(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.9.*/bin/python3.9 2>/dev/null | sort -rV); do
      if [[ -n "$candidate" ]] && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 9))' 2>/dev/null
      then
        base=$candidate
        break
      fi
    done
  fi
  if [[ -z "$base" || ! -x "$base" ]]; then
    echo "no Python 3.9 found: set PYTHON39=/path/to/python3.9 (e.g. 'pyenv install 3.9')" >&2
    exit 1
  fi
  echo "creating $env_dir from $base"
  "$base" -m venv "$env_dir"
fi

"$python" -m pip install --quiet --upgrade pip
"$python" -m pip install --quiet --only-binary=:all: "${RUNTIME[@]}" "deep-forest==$DEEPFOREST_VERSION"
check
