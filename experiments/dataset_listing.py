"""The datasets the command line knows, and whether their files are on this machine (``mddf datasets``)."""

from __future__ import annotations

from pathlib import Path

from mddf.datasets import list_datasets

from .exit_status import EXIT_OK


def availability(name: str) -> tuple[str, str]:
    """``(group, state)``: ``"bundled"``, ``"files present"`` or ``"missing: <files>"`` (nothing read or verified)."""
    from mddf.datasets.bundled import BUNDLED_NAMES
    from mddf.datasets.fetch import resolve_cache_dir, resolve_data_home
    from mddf.datasets.loader import validate_options
    from mddf.datasets.registry import get_spec

    if name in BUNDLED_NAMES:
        return "bundled", "bundled with scikit-learn"
    spec = get_spec(name)
    data_home, cache_dir = resolve_data_home(), resolve_cache_dir()
    missing = []
    for rf in spec.needed_files(validate_options(spec, {})).values():
        places = [home / rf.dataset / rf.name for home in (data_home, cache_dir) if home is not None]
        if not any(Path(p).is_file() for p in places):
            missing.append(rf.key)
    return spec.group, "files present" if not missing else f"missing: {', '.join(missing)}"


def run(args, *, command: str) -> int:
    """``mddf datasets``: a line per dataset of ``args.group`` (all by default), its name, group and files."""
    print(f"{'dataset':<16}{'group':<11}files")
    for name in list_datasets(args.group):
        kind, state = availability(name)
        print(f"{name:<16}{kind:<11}{state}")
    print("Missing files: add --download to the subcommand that uses them, or point --data-home / $MDDF_DATA at "
          "local copies. A table of your own: --data PATH --target COLUMN.")  # fmt: skip
    return EXIT_OK
