"""The build hook of ``MDDF_AOT=1``: the wheel then holds the tree code compiled ahead of time.

Everything else about the build is in pyproject.toml. Without ``MDDF_AOT`` the build is the pure-Python one and
the tree code is compiled by numba on first use. With it, ``build_py`` runs ``python -m
mddf._ahead_of_time.build`` on the built package (a C compiler and mddf's dependencies are needed, so build
without isolation: ``MDDF_AOT=1 pip wheel --no-build-isolation --no-deps .``) and the wheel is tagged for this
platform. ``MDDF_AOT=host`` builds for this machine's CPU instead of a generic one; ``MDDF_AOT_ENTRIES`` (comma
separated) builds only those entry points (the install tests build a small module).
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

AOT = os.environ.get("MDDF_AOT", "").strip()


class BuildWithKernels(build_py):
    """``build_py``, then (``MDDF_AOT``) the kernels compiled into the built package."""

    def run(self):
        super().run()
        if AOT and AOT != "0":
            built = Path(self.build_lib).resolve()
            cpu = "host" if AOT == "host" else ""
            command = [sys.executable, "-m", "mddf._ahead_of_time.build", "--target-cpu", cpu]
            command += ["--entries", os.environ.get("MDDF_AOT_ENTRIES", "")]
            # run on the built package (its layout is the installed one); numba's cache of the JIT compiles the
            # build makes on the way goes to a temporary folder, not into the wheel
            with tempfile.TemporaryDirectory() as cache:
                env = {**os.environ, "PYTHONPATH": str(built), "NUMBA_CACHE_DIR": cache}
                subprocess.run(command, check=True, cwd=built, env=env)


class PlatformDistribution(Distribution):
    """A distribution with compiled code: its wheel is tagged for the platform, not ``py3-none-any``."""

    def has_ext_modules(self):
        return True


setup(
    cmdclass={"build_py": BuildWithKernels},
    distclass=PlatformDistribution if AOT and AOT != "0" else Distribution,
)
