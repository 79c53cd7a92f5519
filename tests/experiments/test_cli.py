"""The mddf command: the three journeys on a user's CSV (categories, empty cells, text labels), bad input as
one line and exit 2, --version, and the installed console script."""

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from provenance_files import read_csv_rows, read_provenance

from mddf.experiments import cli, options

FAST = ["--quick", "--n-jobs", "1", "--quiet", "--isolation", "inline"]


def read(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_benchmark_on_a_users_csv_writes_tables_naming_the_file_and_its_hash(tmp_path, user_csv, capsys):
    out = tmp_path / "out"
    argv = ["benchmark", "--data", str(user_csv), "--target", "y", "--methods", "mdDF,RF-400", "--folds", "2"]
    assert cli.main([*argv, "--out", str(out), *FAST]) == 0
    captured = capsys.readouterr()
    # the practitioner protocol: the baseline added, 2 folds x 2 seeds (the default)
    assert "summary: 12 of 12 runs ok" in captured.err
    assert captured.out.startswith(
        "### my.csv: accuracy (%), practitioner protocol, 2-fold cross-validation x 2 seed(s)\n"
    )
    records = read(out / "results.jsonl")
    assert {(r["method"], r["seed"], r["fold"], r["status"]) for r in records} == {
        (m, s, f, "ok") for m in ("mdDF", "RF-400", "Baseline") for s in (0, 1) for f in (0, 1)
    }
    sha = records[0]["data_source"]["sha256"]
    assert all(r["data_source"]["path"] == str(user_csv) and r["n_test"] == 150 for r in records)
    assert all(r["data_sha256"] == sha and r["protocol"] == "practitioner" for r in records)
    assert all({"accuracy", "balanced_accuracy", "log_loss"} <= set(r) for r in records)
    assert {r["split"] for r in records} == {
        f"2-fold cross-validation of all 300 rows, stratified by class, shuffled with random_state={s}: test fold {f}"
        for s in (0, 1)
        for f in (0, 1)
    }
    for name in ("table.md", "table.csv"):
        prov = read_provenance((out / name).read_text())
        assert prov["command"] == "mddf " + " ".join([*argv, "--out", str(out), *FAST])
        assert prov["data"] == f"{user_csv} (sha256 {sha})"
    assert sorted(r["method"] for r in read_csv_rows(out / "table.csv")) == ["Baseline", "RF-400", "mdDF"]
    assert (out / "figure.png").stat().st_size > 0
    assert not (out / ".mddf-lock").exists()


@pytest.mark.slow
def test_small_sample_on_a_users_csv(tmp_path, user_csv, capsys):
    out = tmp_path / "small"
    argv = ["small-sample", "--data", str(user_csv), "--target", "y", "--methods", "mdDF,RF", "--protocol", "paper"]
    assert cli.main([*argv, "--fractions", "0.5,1", "--seeds", "2", "--out", str(out), *FAST]) == 0
    rows = read_csv_rows(out / "small_sample_my.csv")
    assert [(r["method"], float(r["fraction"]), r["n_seeds"]) for r in rows] == [
        ("mdDF", 0.5, "2"),
        ("mdDF", 1.0, "2"),
        ("RF", 0.5, "2"),
        ("RF", 1.0, "2"),
    ]
    assert [int(r["n_train"]) for r in rows] == [105, 210, 105, 210]  # 70% of 300 rows, then half of them
    assert read_provenance((out / "small_sample_my.csv").read_text())["data"].startswith(f"{user_csv} (sha256 ")
    assert (out / "small_sample_my.png").stat().st_size > 0
    assert "summary: 8 of 8 runs ok" in capsys.readouterr().err


def test_export_features_on_a_users_csv(tmp_path, user_csv, capsys):
    out = tmp_path / "features.npz"
    argv = ["export-features", "--data", str(user_csv), "--target", "y", "--quick", "--n-jobs", "1", "--quiet"]
    assert cli.main([*argv, "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"{out}\n"  # the path of the file written, alone on stdout
    z = np.load(out)
    T = z["layers"].shape[0]
    assert z["train_features"].shape == (T, 210, 3) and z["test_features"].shape == (T, 90, 3)
    assert z["classes"].tolist() == ["maybe", "no", "yes"]
    meta = json.loads(str(z["meta"]))
    assert meta["data_source"]["path"] == str(user_csv) and meta["feature_names"] == ["x1", "x2", "colour", "size"]
    assert meta["command"].startswith("mddf export-features --data ")
    assert meta["configuration"].startswith("the benchmark's mdDF (practitioner protocol")
    # every feature row names its row of the file: the features join back to it
    rows = np.concatenate([z["train_rows"], z["test_rows"]])
    assert sorted(rows.tolist()) == list(range(300)) and list(z["train_rows"]) == sorted(z["train_rows"])
    table = pd.read_csv(user_csv)
    assert table["y"].iloc[z["train_rows"]].tolist() == z["classes"][z["y_train"]].tolist()
    assert table["y"].iloc[z["test_rows"]].tolist() == z["classes"][z["y_test"]].tolist()


@pytest.mark.parametrize("command, stem", [("plot-layers", "layers_my"), ("plot-tsne", "tsne_my")])
@pytest.mark.slow
def test_figures_on_a_users_csv_name_the_file_in_their_provenance(tmp_path, user_csv, command, stem):
    argv = [command, "--data", str(user_csv), "--target", "y", "--quick", "--n-jobs", "1", "--quiet"]
    assert cli.main([*argv, "--out", str(tmp_path)]) == 0
    prov = read_provenance((tmp_path / f"{stem}.csv").read_text())
    assert prov["command"].startswith(f"mddf {command} --data ") and prov["data"].startswith(str(user_csv))
    from PIL import Image  # a matplotlib dependency

    with Image.open(tmp_path / f"{stem}.png") as image:
        assert image.text["Data"] == prov["data"] and image.text["Command"] == prov["command"]


@pytest.mark.slow
def test_the_installed_console_script_runs_the_benchmark(tmp_path, user_csv):
    script = Path(sys.executable).with_name("mddf")
    assert script.is_file(), f"the console script is not installed next to {sys.executable}: pip install -e ."
    out = tmp_path / "out"
    done = subprocess.run(
        [script, "benchmark", "--data", user_csv, "--target", "y", "--methods", "Baseline", "--folds", "2"]
        + ["--seeds", "1", "--out", out, *FAST],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    # stdout holds the table only: the notices, per-run lines and summary go to stderr
    assert done.stdout.startswith("### my.csv: accuracy (%), practitioner protocol")
    assert "summary: 2 of 2 runs ok" in done.stderr and "summary" not in done.stdout
    assert "| Baseline | 46.67 ± 0.00 |" in done.stdout  # the majority class, 'yes', is 140 of the 300 rows
    version = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0 and version.stdout == f"mddf {cli.version()}\n"


def test_version_is_the_packages(capsys):
    from importlib.metadata import version

    import mddf

    assert cli.main(["--version"]) == 0
    expected = getattr(mddf, "__version__", None) or version("mddf")
    assert capsys.readouterr().out == f"mddf {expected}\n"


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_load_neither_numba_nor_scikit_learn(flag):
    # what makes them answer at once: the subcommands' modules load when a subcommand runs
    code = (
        "import sys\n"
        "from mddf.experiments import cli\n"
        f"status = cli.main([{flag!r}])\n"
        "heavy = sorted({'numba', 'sklearn', 'scipy', 'pandas'} & set(sys.modules))\n"
        "print('loaded:', heavy, file=sys.stderr)\n"
        "sys.exit(status)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: mddf" if flag == "--help" else "mddf ")
    assert done.stderr.strip().endswith("loaded: []"), done.stderr


@pytest.mark.parametrize("command", ["benchmark", "small-sample"])
def test_a_runners_parser_loads_no_estimator_library_so_that_its_help_answers_at_once(command):
    code = (
        "import sys\n"
        "from mddf.experiments import cli\n"
        f"cli.COMMANDS[{command!r}].parser().parse_args(['--workers', '1'])\n"
        "print(sorted({'sklearn', 'scipy', 'pandas', 'matplotlib'} & set(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.slow
def test_the_package_imports_its_estimators_on_first_use():
    code = (
        "import sys\n"
        "import mddf\n"
        "assert 'numba' not in sys.modules and 'sklearn' not in sys.modules, 'import mddf loaded them'\n"
        "assert mddf.MDDFClassifier.__module__ == 'mddf.cascade.classifier'\n"
        "assert 'sklearn' in sys.modules and 'MDDFClassifier' in vars(mddf)\n"
        "assert set(mddf.__all__) <= set(dir(mddf))\n"
        "try:\n"
        "    mddf.NoSuchName\n"
        "except AttributeError as exc:\n"
        "    assert 'NoSuchName' in str(exc)\n"
        "else:\n"
        "    raise AssertionError('no AttributeError')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


def write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "case, message",
    [
        ("missing file", "mddf: error: --data {tmp}/absent.csv: no such file"),
        ("unknown target", "mddf: error: --target 'label' is not a column of my.csv (columns: x1, x2, colour, size"),
        ("one class", "mddf: error: --target column 'y' of one.csv has a single class ('a'); a classifier needs"),
        ("date column", "mddf: error: column 'when' of dates.csv holds dates (e.g. '2024-01-01'), neither numbers"),
        ("date column", "nor categories; convert it to numbers or leave it out with --drop when\n"),
        (
            "target with a space",
            "mddf: error: --target 'y' is not a column of space.csv (columns: x, y ); did you mean",
        ),
        ("target twice", "mddf: error: the header of twice.csv names a column more than once ('y' at columns 2 and 4)"),
        ("unknown drop", "mddf: error: --drop 'id': not a column of my.csv (columns: x1, x2, colour, size, y)"),
        ("wrong separator", "mddf: error: --sep ',' found 1 column in eu.csv; its first line holds ';': try --sep ';'"),
        ("damaged gzip", "mddf: error: my.csv.gz could not be decompressed ("),
        ("NUL bytes", "mddf: error: nul.csv is not a text table: it holds NUL bytes, or bytes that are not UTF-8"),
        ("random bytes", "mddf: error: noise.csv is not a text table: it holds NUL bytes, or bytes that are not"),
        ("values near 1e300", "mddf: error: column 'x1' of big.csv holds 1e+300, beyond the largest float32 number"),
        ("one row", "mddf: error: row.csv has a single row (besides its header): too few to learn from and test on\n"),
    ],
)
@pytest.mark.parametrize("command", ["benchmark", "small-sample", "export-features"])
def test_bad_input_is_one_line_and_exit_2(tmp_path, user_csv, capsys, case, message, command):
    data, target = user_csv, "y"
    if case == "missing file":
        data = tmp_path / "absent.csv"
    elif case == "unknown target":
        target = "label"
    elif case == "one class":
        data = write(tmp_path / "one.csv", "x,y\n1,a\n2,a\n,a\n")
    elif case == "target twice":
        data = write(tmp_path / "twice.csv", "a,y,b,y\n1,u,2,v\n3,v,4,u\n")
    elif case == "target with a space":
        data = write(tmp_path / "space.csv", "x,y \n1,a\n2,b\n")
    elif case == "date column":
        data = write(tmp_path / "dates.csv", "x,when,y\n1,2024-01-01,a\n2,2024-01-02,b\n")
    elif case == "wrong separator":
        data = write(tmp_path / "eu.csv", "x;y\n1,5;a\n2,5;b\n")
    elif case == "damaged gzip":
        data = tmp_path / "my.csv.gz"
        data.write_bytes(gzip.compress(user_csv.read_bytes())[:200])
    elif case == "NUL bytes":
        data = tmp_path / "nul.csv"
        data.write_bytes(user_csv.read_text().encode("utf-16"))
    elif case == "random bytes":
        data = tmp_path / "noise.csv"
        data.write_bytes(np.random.default_rng(5).bytes(20000))  # its first line holds a '|' but no ','
    elif case == "one row":  # was blamed on its target's "1 distinct integer values"
        data = write(tmp_path / "row.csv", "a,b,y\n1,2,3\n")
    elif case == "values near 1e300":
        header, first, *rest = user_csv.read_text().splitlines(keepends=True)
        data = write(tmp_path / "big.csv", header + "1e300" + first[first.index(",") :] + "".join(rest))
    extra = {"unknown drop": ["--drop", "id"], "wrong separator": ["--sep", ","]}.get(case, [])
    out = tmp_path / "out.npz"
    code = cli.main([command, "--data", str(data), "--target", target, *extra, "--out", str(out), "--quiet"])
    assert code == 2
    err = capsys.readouterr().err
    assert message.format(tmp=tmp_path) in err and err.startswith("mddf: error: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()  # nothing left on disk


@pytest.mark.parametrize("command", ["export-features", "explain", "plot-layers", "plot-tsne", "small-sample"])
def test_a_target_of_several_columns_is_refused_where_one_target_is_taken(tmp_path, user_csv, capsys, command):
    out = tmp_path / ("out.npz" if command == "export-features" else "out")
    assert cli.main([command, "--data", str(user_csv), "--target", "y,x1", "--out", str(out), "--quiet"]) == 2
    assert capsys.readouterr().err == (
        "mddf: error: --target 'y,x1' names 2 columns of my.csv, and this subcommand takes one target: give one of "
        "'y', 'x1' (mddf benchmark fits several targets at once)\n"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    "option, value, says",
    [
        ("--layers", "zz", "argument --layers: 'zz' is not a layer: give layer numbers (1, 2, ...) or 'last'"),
        ("--layers", "1,0", "argument --layers: '0' is not a layer"),
        ("--layers", "99", "--layers 99: layer 99 is beyond the 3 layers mdDF grows at most here (--max-layers)"),
        ("--margin-layers", "2,-1", "argument --margin-layers: '-1' is not a layer"),
        ("--margin-layers", "1,4", "--margin-layers 1,4: layer 4 is beyond the 3 layers mdDF grows at most here"),
    ],
)
def test_layers_that_are_no_layers_are_usage_errors_before_the_fit(
    tmp_path, user_csv, capsys, monkeypatch, option, value, says
):
    # they were tracebacks with exit status 1, '99' only after the whole fit
    from mddf import MDDFClassifier

    monkeypatch.setattr(MDDFClassifier, "fit", lambda *a, **k: pytest.fail("fitted"))
    command = "plot-tsne" if option == "--layers" else "plot-layers"
    out = tmp_path / "out"
    argv = [command, "--data", str(user_csv), "--target", "y", option, value, "--quick", "--out", str(out), "--quiet"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert f"mddf {command}: error: {says}" in err and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["small-sample", "--dataset", "mydata"], "mddf small-sample: error: unknown dataset 'mydata'"),
        (["export-features", "--dataset", "data.csv"], "(your own file? use --data PATH --target COLUMN)"),
        (["benchmark", "--data", "x.csv"], "mddf benchmark: error: --data needs --target COLUMN"),
        (["benchmark", "--target", "y"], "mddf benchmark: error: --target goes with --data PATH"),
        (["benchmark", "--data", "x.csv", "--target", "y", "--suite", "mddf"], "are alternatives: give one"),
        (["nosuch"], "invalid choice: 'nosuch'"),
        ([], "mddf: error: a subcommand is required"),
    ],
)
def test_usage_errors_exit_2_without_a_traceback(argv, message, capsys):
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["benchmark", "small-sample", "export-features", "plot-layers", "plot-tsne"])
def test_an_out_of_the_wrong_kind_is_one_line_and_exit_2(tmp_path, user_csv, capsys, command):
    out = tmp_path / ("folder" if command == "export-features" else "table.txt")
    out.mkdir() if command == "export-features" else out.write_text("mine")
    assert cli.main([command, "--data", str(user_csv), "--target", "y", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    kind = "a folder; give the path of the .npz file" if command == "export-features" else "a file; give a folder"
    assert err.startswith(f"mddf: error: --out {out} is {kind}") and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["my.csv", out.name])  # nothing else written


@pytest.mark.parametrize(
    "value, why", [("0", "would run nothing"), ("5000", "is beyond 1024 threads"), ("1025", "is beyond 1024 threads")]
)
@pytest.mark.parametrize("command", ["benchmark", "small-sample", "export-features"])
def test_n_jobs_0_or_absurd_is_refused_in_one_line_before_anything_runs(tmp_path, capsys, command, value, why):
    out = tmp_path / "out"
    assert cli.main([command, "--n-jobs", value, "--out", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"mddf: error: --n-jobs {value} {why}: give a number of threads (1 to 1024), or -1 for all cores\n"
    )
    assert not out.exists()


@pytest.mark.parametrize("command", ["benchmark", "small-sample"])
def test_workers_or_seeds_of_0_are_refused_before_anything_runs(tmp_path, user_csv, capsys, command):
    out = tmp_path / "out"
    argv = [command, "--data", str(user_csv), "--target", "y", "--out", str(out)]
    assert cli.main([*argv, "--workers", "0"]) == 2
    assert capsys.readouterr().err == "mddf: error: --workers 0 would run nothing: give 1 or more\n"
    assert cli.main([*argv, "--seeds", "0"]) == 2  # as argparse refuses a malformed value
    assert capsys.readouterr().err.endswith("error: argument --seeds: --seeds count must be at least 1, got 0\n")
    assert not out.exists()


@pytest.mark.parametrize("command", ["export-features", "plot-layers"])
def test_a_class_of_one_row_stops_a_single_fit_naming_its_label_as_the_benchmark_does(tmp_path, capsys, command):
    from user_csv import write_user_csv

    data = write_user_csv(tmp_path / "solo.csv")
    data.write_text(data.read_text().replace(",yes\n", ",alone\n", 1))
    out = tmp_path / ("f.npz" if command == "export-features" else "figures")
    argv = ["--data", str(data), "--target", "y", "--quick", "--out", str(out)]
    assert cli.main([command, *argv]) == 2
    single = "solo.csv: class 'alone' has a single row; training and testing need at least 2 rows of every class"
    err = capsys.readouterr().err
    assert err.startswith(f"mddf: error: {single}") and err.count("\n") == 1
    assert cli.main(["benchmark", *argv[:-1], str(tmp_path / "bench")]) == 2
    assert single in capsys.readouterr().err and not out.exists()


def test_a_class_of_two_rows_is_fitted_adapted_to_it_as_the_benchmarks_runs_are(tmp_path, capsys):
    from user_csv import write_user_csv

    data = write_user_csv(tmp_path / "pair.csv")
    data.write_text(data.read_text().replace(",yes\n", ",two\n", 2))
    argv = ["export-features", "--data", str(data), "--target", "y", "--quick", "--n-jobs", "1"]
    assert cli.main([*argv, "--out", str(tmp_path / "f.npz")]) == 0
    assert "  adapted to class 'two', of 1 training row(s): class_vectors='oob'" in capsys.readouterr().err


def test_export_features_refuses_an_existing_file_unless_forced_and_prints_the_path_it_writes(
    tmp_path, user_csv, capsys
):
    mine = tmp_path / "features.npz"
    mine.write_text("the user's own file")
    argv = ["export-features", "--data", str(user_csv), "--target", "y", "--quick", "--n-jobs", "1", "--quiet"]
    assert cli.main([*argv, "--out", str(mine)]) == 2  # one line, before the fit
    err = capsys.readouterr().err
    why = "not written by mddf here, or changed since"
    assert err == f"mddf: error: --out {mine} exists ({why}); pass --force to replace it, or give another --out\n"
    assert mine.read_text() == "the user's own file"
    assert cli.main([*argv, "--out", str(mine), "--force"]) == 0
    assert capsys.readouterr().out == f"{mine}\n" and np.load(mine)["layers"].size >= 1
    # numpy appends .npz to a name without it: the path printed is the file written, and nothing else is touched
    (tmp_path / "plain").write_text("mine too")
    assert cli.main([*argv, "--out", str(tmp_path / "plain")]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'plain.npz'}\n" and (tmp_path / "plain.npz").is_file()
    assert (tmp_path / "plain").read_text() == "mine too"


@pytest.mark.parametrize("kind", ["Classifier", "Regressor"])
def test_a_named_method_whose_package_is_missing_names_its_class_and_the_install(
    tmp_path, user_csv, capsys, monkeypatch, kind
):
    monkeypatch.setitem(sys.modules, "lightgbm", None)  # None in sys.modules: import lightgbm fails
    monkeypatch.setitem(sys.modules, "catboost", None)
    data = user_csv
    if kind == "Regressor":
        data = write(tmp_path / "prices.csv", "x,price\n" + "".join(f"{i % 7},{i * 1.5 + 0.25}\n" for i in range(40)))
    target = "y" if kind == "Classifier" else "price"
    argv = ["benchmark", "--data", str(data), "--target", target, "--out", str(tmp_path / "out"), "--quiet"]
    # CatBoost is the bench extra's; LightGBM a dependency of mddf (missing only from a broken environment)
    bench = '); install it with pip install -e ".[bench]"\n'
    for method, cls, end in (
        ("LightGBM-es", f"lightgbm.LGBM{kind}", ")\n"),
        ("CatBoost-es", f"catboost.CatBoost{kind}", bench),
    ):
        assert cli.main([*argv, "--methods", f"mdDF,{method}"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"mddf: error: --methods: {method} is not available: cannot import {cls} (")
        assert err.endswith(end) and "[bench]" not in err.replace(bench, "") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_a_usage_error_found_once_the_output_folder_is_held_leaves_no_folder(tmp_path, capsys):
    out = tmp_path / "deep" / "out"
    assert cli.main(["benchmark", "--datasets", "nosuch", "--out", str(out), "--quiet"]) == 2
    assert "unknown dataset 'nosuch'" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_datasets_lists_the_registry_with_availability(no_data, capsys):
    assert cli.main(["datasets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["dataset", "group", "files"]
    by_name = {line.split()[0]: line for line in lines[1:-1]}
    assert "bundled with scikit-learn" in by_name["iris"]
    assert by_name["yeast"].split(None, 2)[1:] == ["mddf", "missing: yeast/yeast.data"]
    (no_data / "yeast").mkdir()
    (no_data / "yeast" / "yeast.data").write_text("x")
    assert cli.main(["datasets", "--group", "mddf"]) == 0
    listed = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()[1:-1]}
    assert "files present" in listed["yeast"] and "iris" not in listed


def test_a_missing_builtin_dataset_is_explained_with_the_command_lines_options(no_data, tmp_path, capsys):
    assert cli.main(["export-features", "--dataset", "yeast", "--out", str(tmp_path / "f.npz"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nothing to run: dataset yeast is not available:\nyeast/yeast.data is missing")
    assert "(--download was not given)" in err and "allow downloading (--download)" in err
    assert "pass --data-home / set $MDDF_DATA" in err and "(--data-home or $MDDF_DATA)" in err
    assert "download=" not in err and "data_home" not in err


def test_benchmark_with_a_fixed_test_file_tests_every_seed_on_it(tmp_path, user_csv, capsys):
    from user_csv import write_user_csv

    test = write_user_csv(tmp_path / "holdout.csv", n_rows=40, seed=7)
    out = tmp_path / "out"
    argv = ["benchmark", "--data", str(user_csv), "--target", "y", "--test", str(test), "--methods", "RF-400"]
    options = ["--seeds", "2", "--out", str(out), "--quick", "--n-jobs", "1", "--isolation", "inline"]
    assert cli.main([*argv, *options]) == 0
    records = read(out / "results.jsonl")
    assert [(r["n_train"], r["n_test"], r["split"]) for r in records] == [(300, 40, "fixed test file holdout.csv")] * 4
    assert {r["test_sha256"] for r in records} == {records[0]["data_source"]["test_sha256"]}
    assert records[0]["data_source"]["test_path"] == str(test)
    assert f"test file {test} (sha256 " in read_provenance((out / "table.md").read_text())["data"]
    err = capsys.readouterr().err
    assert f"read {user_csv}: 340 rows, 4 features (categorical: colour), 3 classes: yes 46%, maybe 32%, no 22%" in err


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_every_subcommand_documents_itself(name, capsys):
    assert cli.main([name, "--help"]) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: mddf {name} ") and "exit status:" in text
    if name != "datasets":
        assert "--data PATH" in text and "--target COLUMN" in text and "--out" in text


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_every_subcommands_help_is_plain_text_not_rest(name, capsys):
    # `mddf explain --help` printed its module's docstring as written: ``--rows``, :class:`~mddf.X`
    assert cli.main([name, "--help"]) == 0
    text = capsys.readouterr().out
    assert "``" not in text and not re.search(r":[a-z]+:`", text), text


def test_plain_text_shows_roles_and_literals_as_quoted_names():
    rest = ":class:`~mddf.MDDFClassifier`, :mod:`.layers`, :func:`explain <mddf.explain>`, ``--rows`` and :data:`N`"
    assert options.plain_text(rest) == "`MDDFClassifier`, `layers`, `explain`, `--rows` and `N`"


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_mddf_and_the_scripts_parse_a_subcommand_alike(name, capsys):
    # `mddf <name>` builds the subcommand's parser inside mddf's, the scripts build it on its own
    assert cli.main([name, "--help"]) == 0
    assert capsys.readouterr().out == cli.COMMANDS[name].parser().format_help()
    assert cli.main([name, "--no-such-option", "x"]) == 2
    alone = (
        cli.COMMANDS[name].parser().format_usage() + f"mddf {name}: error: unrecognized arguments: --no-such-option x\n"
    )
    assert capsys.readouterr().err == alone


@pytest.mark.parametrize(
    "run", [cli.main, lambda argv, registry: cli.run_command(argv[0], argv[1:], registry=registry)]
)
def test_a_subcommand_runs_its_modules_run_with_the_parsed_arguments_and_the_command_line(run, monkeypatch):
    from mddf.experiments import dataset_listing

    calls = []

    def func(args, *, command):
        calls.append((args.group, command))
        return 0

    monkeypatch.setattr(dataset_listing, "run", func)
    assert run(["datasets", "--group", "mddf"], registry="the registry") == 0
    assert calls == [("mddf", "mddf datasets --group mddf")]


def prices_csv(path, n=60):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 2))
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "price": 3 * x[:, 0] + rng.normal(scale=0.2, size=n)})
    frame.to_csv(path, index=False)
    return path


def test_a_regression_target_through_export_features_and_small_sample(tmp_path, capsys):
    data = prices_csv(tmp_path / "prices.csv")
    out = tmp_path / "features.npz"
    argv = ["--data", str(data), "--target", "price", "--quick", "--n-jobs", "1", "--quiet"]
    assert cli.main(["export-features", *argv, "--out", str(out)]) == 0
    z = np.load(out)
    T = z["layers"].shape[0]
    assert z["train_features"].shape == (T, 42, 5) and z["y_train"].dtype == np.float64  # four forests and LightGBM
    assert "classes" not in z and json.loads(str(z["meta"]))["model"] == "CascadeForestRegressor"
    small = ["small-sample", *argv, "--methods", "mdDF,RF-400", "--fractions", "0.5,1", "--seeds", "1"]
    assert cli.main([*small, "--isolation", "inline", "--out", str(tmp_path / "small")]) == 0
    rows = read_csv_rows(tmp_path / "small" / "small_sample_prices.csv")
    assert {(r["method"], r["metric"]) for r in rows} == {(m, "r2") for m in ("mdDF", "RF-400", "Baseline")}
    assert all(float(r["mean"]) > 0.5 for r in rows if r["method"] == "RF-400")


def test_the_figures_of_classes_refuse_a_regression_target(tmp_path, capsys):
    data = prices_csv(tmp_path / "prices.csv")
    assert cli.main(["plot-layers", "--data", str(data), "--target", "price", "--quick", "--out", str(tmp_path)]) == 2
    assert "plot-layers draws classes; the --target of prices is a regression target" in capsys.readouterr().err


def test_a_parquet_file_is_benchmarked_like_a_csv(tmp_path, user_csv, capsys):
    pytest.importorskip("pyarrow")
    pd.read_csv(user_csv).to_parquet(tmp_path / "my.parquet")
    argv = ["benchmark", "--data", str(tmp_path / "my.parquet"), "--target", "y", "--methods", "RF-400"]
    assert cli.main([*argv, "--folds", "2", "--seeds", "1", "--out", str(tmp_path / "out"), *FAST]) == 0
    assert capsys.readouterr().out.startswith("### my.parquet: accuracy (%), practitioner protocol")


def test_the_task_option_offers_the_tasks_of_user_data():
    from mddf.datasets.user_data import TASKS
    from mddf.experiments.defaults import USER_DATA_TASKS

    assert USER_DATA_TASKS == TASKS
