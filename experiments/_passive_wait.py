"""Imported first by the fork server of workers whose OpenMP threads wait passively (:func:`~.executor.worker_context`).

Sets ``OMP_WAIT_POLICY=PASSIVE``, unless the user has set it, before any library loads the OpenMP runtime, which reads
it once when it loads (:func:`~.executor.worker_environment`).
"""

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
