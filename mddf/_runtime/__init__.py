"""What the compiled code and the threads of mddf run on: the lowest layer, importing nothing of mddf.

- :mod:`.compile_cache`: numba's on-disk cache of mddf's compiled code, stamped with the digest of its sources;
- :mod:`.dispatch`: each entry point of the compiled code runs the module built ahead of time when it was built
  from these sources (``python -m mddf._ahead_of_time.build``), numba's JIT otherwise;
- :mod:`.threads`: one OpenMP (and BLAS) thread for each model a cascade runs in its joblib threads.
"""
