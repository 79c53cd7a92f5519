"""Imported last by the workers' fork server (:func:`~.executor.worker_context`): the libraries of the practitioner
protocol's methods and the forests' engine, which a run imports on first use, so that every worker, a fork of the
server, starts with them loaded. One that fails to import (not installed, or broken) is left to the runs that need
it, whose records say why.
"""

import contextlib
import importlib

from .methods import default_registry


def practitioner_modules() -> list[str]:
    """The modules the practitioner protocol's methods import: the forests' engine, then each method's library."""
    registry = default_registry()
    specs = [registry.get(name) for name in registry.names()]
    return ["mddf.forests", *sorted({spec.requires[0] for spec in specs if spec.practitioner})]


for _module in practitioner_modules():
    with contextlib.suppress(Exception):
        importlib.import_module(_module)
