"""What the subcommands write into --out: a file of the user's is never replaced (moved to old/<UTC time>/, or refused
for export-features' named file; --force replaces), a full disk or a read-only --out is exit status 2 in one line
before any fit, and no record of results.jsonl is cut mid-line.

The tests run as root, where ``chmod`` stops no write: a read-only or forbidden folder and a full disk are simulated
by making ``os.open`` (EROFS, EACCES) or ``os.write`` (ENOSPC) fail for the paths under the folder
(:func:`failing_writes`), and a folder that cannot be created is a path under a file (ENOTDIR), which fails for root
too."""

import errno
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from provenance_files import strip_provenance

from mddf.experiments import cli, feature_export, outfolder, studies
from mddf.experiments.outfolder import MANIFEST, FolderUnwritable, OutputFiles, probe
from mddf.experiments.store import ResultStore

FIT = ["--quick", "--n-jobs", "1", "--quiet"]
RUN = ["--quick", "--n-jobs", "1", "--quiet", "--isolation", "inline", "--seeds", "1"]
ASIDE = re.compile(r"old/\d{8}T\d{12}Z")


def failing_writes(monkeypatch, under: Path, code: int, *, partial: bool = False):
    """From now on, a file opened for writing under ``under`` fails as a full disk (``ENOSPC``: its writes; with
    ``partial`` the first write of each open file writes half its bytes first) or a read-only or forbidden folder
    (another ``code``, ``EROFS`` or ``EACCES``: the open itself)."""
    real_open, real_write, real_close = os.open, os.write, os.close
    fds = {}

    def fake_open(path, flags, *args, **kwargs):
        inside = Path(os.path.abspath(path)).is_relative_to(under) and flags & (os.O_WRONLY | os.O_RDWR)
        if inside and code != errno.ENOSPC:
            raise OSError(code, os.strerror(code), str(path))
        fd = real_open(path, flags, *args, **kwargs)
        if inside:
            fds[fd] = partial
        return fd

    def fake_write(fd, data):
        if fd not in fds:
            return real_write(fd, data)
        if fds[fd] and len(data) > 1:
            fds[fd] = False
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(code, os.strerror(code))

    def fake_close(fd):
        fds.pop(fd, None)
        return real_close(fd)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "write", fake_write)
    monkeypatch.setattr(os, "close", fake_close)


def no_fit(monkeypatch):
    """mdDF's fit of the single-fit subcommands fails the test if it is reached."""
    for module in (studies, feature_export):
        monkeypatch.setattr(module, "fit_mddf", lambda *a, **k: pytest.fail("fitted"))


def user_file(path: Path, content: bytes = b"the user's own file\n") -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    return content


# -- the rule, on OutputFiles -----------------------------------------------------------------------------------------


def test_a_file_it_did_not_write_is_moved_aside_byte_identical_and_its_own_is_replaced(tmp_path):
    said = []
    files = OutputFiles(tmp_path, "binding-a", log=said.append)
    mine = user_file(tmp_path / "table.md")
    assert files.make_room(["table.md", "figure.png"]) is not None
    (aside,) = (tmp_path / "old").iterdir()
    assert (
        ASIDE.search(str(aside)) and (aside / "table.md").read_bytes() == mine and not (tmp_path / "table.md").exists()
    )
    assert said == [f"{tmp_path}: moved table.md to {aside}/ (not written by mddf here, or changed since; --force "
                    "replaces instead)"]  # fmt: skip
    with files.replacing(["table.md"], "mddf test"):
        (tmp_path / "table.md").write_text("mddf's table")
    said.clear()
    assert files.foreign(["table.md"]) == {} and files.make_room(["table.md"]) is None and said == []
    entry = json.loads((tmp_path / MANIFEST).read_text())["files"]["table.md"]
    assert entry["binding"] == "binding-a" and entry["command"] == "mddf test" and len(entry["sha256"]) == 64


def test_its_own_file_edited_since_or_of_other_data_or_settings_is_not_its_own(tmp_path):
    files = OutputFiles(tmp_path, "binding-a", log=lambda text: None)
    for name in ("edited.csv", "other.csv", "kept.csv"):
        (tmp_path / name).write_text("written by mddf\n")
    files.record(["edited.csv", "other.csv", "kept.csv"])
    (tmp_path / "edited.csv").write_text("written by mddf, then edited\n")
    other = OutputFiles(tmp_path, "binding-b")
    assert other.foreign(["edited.csv", "other.csv"]) == {
        "edited.csv": "not written by mddf here, or changed since",
        "other.csv": "results of other data or settings",
    }
    assert files.foreign(["edited.csv", "kept.csv"]) == {"edited.csv": "not written by mddf here, or changed since"}


def test_a_link_is_moved_and_its_target_untouched(tmp_path):
    target = tmp_path / "elsewhere.png"
    mine = user_file(target)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "figure.png").symlink_to(target)
    OutputFiles(tmp_path / "out", "b", log=lambda text: None).make_room(["figure.png"])
    (aside,) = (tmp_path / "out" / "old").iterdir()
    assert (aside / "figure.png").is_symlink() and target.read_bytes() == mine


def test_force_lets_the_users_file_be_replaced_and_says_so(tmp_path):
    said = []
    user_file(tmp_path / "figure.png")
    assert OutputFiles(tmp_path, "b", force=True, log=said.append).make_room(["figure.png"]) is None
    assert not (tmp_path / "old").exists() and said == [f"{tmp_path}: replacing figure.png (--force)"]


def test_a_damaged_record_of_its_files_makes_none_of_them_its_own(tmp_path):
    files = OutputFiles(tmp_path, "b")
    (tmp_path / "table.md").write_text("mddf's")
    files.record(["table.md"])
    (tmp_path / MANIFEST).write_text('{"files": ["table.md"')
    assert files.foreign(["table.md"]) == {"table.md": "not written by mddf here, or changed since"}


def test_a_full_disk_while_recording_leaves_the_record_of_its_files_whole(tmp_path, monkeypatch):
    files = OutputFiles(tmp_path, "b")
    (tmp_path / "table.md").write_text("mddf's")
    files.record(["table.md"])
    before = (tmp_path / MANIFEST).read_bytes()
    real = Path.write_text

    def full(self, text, **kwargs):  # half the text written, then the disk is full
        real(self, text[: len(text) // 2], **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(OSError):
        files.record(["table.md"])
    assert (tmp_path / MANIFEST).read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == [
        MANIFEST,
        "table.md",
    ]


MINE = {
    "text": b"my notes on these runs\n",
    "json of other keys": b'{"files": ["table.md"], "about": "my index"}\n',
    "a record cut short": b'{"about": "files mddf wrote here (do not edit)", "files": {',
}


@pytest.mark.parametrize("content", list(MINE.values()), ids=list(MINE))
def test_a_file_of_the_users_named_like_its_record_is_moved_aside_never_written_over(tmp_path, content):
    said = []
    mine = user_file(tmp_path / MANIFEST, content)
    (tmp_path / "table.md").write_text("mddf's table")
    files = OutputFiles(tmp_path, "b", force=True, log=said.append)  # not even --force replaces it
    files.record(["table.md"])
    (aside,) = (tmp_path / "old").iterdir()
    assert (aside / MANIFEST).read_bytes() == mine
    assert said == [f"{tmp_path}: moved {MANIFEST} to {aside}/ (not mddf's record of the files it wrote here)"]
    assert outfolder.manifest_files(tmp_path / MANIFEST)["table.md"]["binding"] == "b"
    assert files.foreign(["table.md"]) == {}


def test_a_link_or_a_folder_named_like_its_record_is_moved_aside_and_a_links_target_untouched(tmp_path):
    target = tmp_path / "elsewhere.json"
    mine = user_file(target, b'{"about": "files mddf wrote here (do not edit)", "files": {}}')
    out = tmp_path / "out"
    out.mkdir()
    (out / MANIFEST).symlink_to(target)  # even a link to a record of mddf's shape is not the folder's record
    (out / "table.md").write_text("mddf's table")
    OutputFiles(out, "b", log=lambda text: None).record(["table.md"])
    (aside,) = (out / "old").iterdir()
    assert (aside / MANIFEST).is_symlink() and target.read_bytes() == mine
    (out / MANIFEST).unlink()
    (out / MANIFEST).mkdir()
    (out / MANIFEST / "inside").write_text("mine")
    OutputFiles(out, "b", log=lambda text: None).record(["table.md"])
    assert sorted((p / MANIFEST).is_dir() for p in (out / "old").iterdir()) == [False, True]
    assert (out / MANIFEST).is_file()


def test_its_record_is_a_json_object_that_says_what_it_is(tmp_path):
    path = tmp_path / MANIFEST
    assert outfolder.manifest_files(path) == {}  # none yet
    for content in MINE.values():
        path.write_bytes(content)
        assert outfolder.manifest_files(path) is None
    path.write_text(json.dumps({"about": outfolder.MANIFEST_ABOUT, "files": {"t.md": {"sha256": "0"}, "x": 1}}))
    assert outfolder.manifest_files(path) == {"t.md": {"sha256": "0"}}


def test_its_temporary_and_test_files_never_open_a_file_that_is_there(tmp_path, monkeypatch):
    names = iter(["0000aaaa", "0000aaaa", "1111bbbb", "0000aaaa", "2222cccc"])
    monkeypatch.setattr(outfolder.secrets, "token_hex", lambda n: next(names))
    mine = user_file(tmp_path / f".mddf-probe-{os.getpid()}-0000aaaa")
    probe(tmp_path)  # the name taken is passed over
    partial = user_file(tmp_path / f".table.md.mddf-partial-{os.getpid()}-0000aaaa.md")
    outfolder.write_text(tmp_path / "table.md", "mddf's table")
    assert (tmp_path / f".mddf-probe-{os.getpid()}-0000aaaa").read_bytes() == mine
    assert (tmp_path / f".table.md.mddf-partial-{os.getpid()}-0000aaaa.md").read_bytes() == partial
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == ["table.md"]


def test_a_file_is_written_whole_or_not_at_all_and_a_refused_write_names_it(tmp_path):
    path = tmp_path / "figure.pdf"
    with outfolder.whole(path) as temporary:
        assert temporary.parent == tmp_path and temporary.suffix == ".pdf" and temporary.exists()
        temporary.write_bytes(b"%PDF whole")
    assert path.read_bytes() == b"%PDF whole"
    with pytest.raises(OSError) as caught:
        with outfolder.whole(path) as temporary:
            temporary.write_bytes(b"%PDF cut")
            try:
                raise OSError(errno.ENOSPC, "No space left on device")
            except OSError:  # a library's clean-up failing after the refused write, as matplotlib's PDF writer does
                raise AttributeError("'Stream' object has no attribute 'pos'") from None
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(path)
    assert path.read_bytes() == b"%PDF whole" and sorted(p.name for p in tmp_path.iterdir()) == ["figure.pdf"]
    with pytest.raises(KeyError):  # any other error passes as it is, the temporary file removed
        with outfolder.whole(tmp_path / "table.md"):
            raise KeyError("x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["figure.pdf"]


def test_an_old_folder_that_is_a_file_of_the_users_is_refused_in_one_line(tmp_path):
    mine = user_file(tmp_path / "old")
    user_file(tmp_path / "table.md")
    with pytest.raises(FolderUnwritable) as caught:
        OutputFiles(tmp_path, "b", log=lambda text: None).make_room(["table.md"])
    assert str(caught.value) == (
        f"--out {tmp_path}: {tmp_path / 'old'} is not a folder, and mddf moves there (to old/<UTC time>/) the files "
        "it would replace; rename it, or choose another --out"
    )
    assert (tmp_path / "old").read_bytes() == mine and (tmp_path / "table.md").exists()


# -- a full disk, a read-only folder: probe and records ---------------------------------------------------------------


@pytest.mark.parametrize(
    "code, why",
    [(errno.ENOSPC, "No space left on device"), (errno.EROFS, "Read-only file system")],
    ids=["full-disk", "read-only"],
)
def test_the_probe_names_the_folder_and_why_and_leaves_nothing(tmp_path, monkeypatch, code, why):
    out = tmp_path / "new" / "out"
    failing_writes(monkeypatch, tmp_path, code)
    with pytest.raises(FolderUnwritable) as caught:
        probe(out)
    assert str(caught.value) == f"--out {out} cannot be written: {why} (a test write before the fit)"
    assert list(tmp_path.iterdir()) == []  # the folders it made are gone


def test_only_the_write_errors_of_the_folder_become_its_one_line(tmp_path):
    with pytest.raises(FolderUnwritable, match=r"cannot be written: No space left on device \(writing r.jsonl\)$"):
        with outfolder.writing(tmp_path, named_only=True):
            raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "r.jsonl"))
    with pytest.raises(PermissionError):  # a run's own error, on a file elsewhere: not the folder's
        with outfolder.writing(tmp_path, named_only=True):
            raise PermissionError(errno.EACCES, "Permission denied", "/elsewhere/cache")
    with pytest.raises(FileNotFoundError):  # not a refused write
        with outfolder.writing(tmp_path):
            raise FileNotFoundError(errno.ENOENT, "No such file or directory", str(tmp_path / "gone"))


@pytest.mark.parametrize("text", [b"id,score\n1,0.5", b'{"note": "mine"}\n', b"\n"], ids=["csv", "jsonl", "blank"])
def test_a_results_file_that_holds_no_record_is_moved_aside_not_appended_to(tmp_path, text, capsys):
    data, out = labelled(tmp_path / "t.csv"), tmp_path / "out"
    user_file(out / "results.jsonl", text)
    assert benchmark(data, out) == 0
    (aside,) = (out / "old").iterdir()
    assert (aside / "results.jsonl").read_bytes() == text
    assert f"{out / 'results.jsonl'} is not a results file of mddf (its first line is not a record); moved it to " in (
        capsys.readouterr().err
    )
    assert all("key" in r for r in ResultStore(out / "results.jsonl").records())


def test_a_full_disk_cuts_no_record_mid_line(tmp_path, monkeypatch):
    store = ResultStore(tmp_path / "results.jsonl")
    store.append({"key": "a", "value": 1})
    whole = store.path.read_bytes()
    failing_writes(monkeypatch, tmp_path, errno.ENOSPC, partial=True)
    with pytest.raises(OSError) as caught:
        store.append({"key": "b", "value": "x" * 100})
    assert caught.value.errno == errno.ENOSPC and caught.value.filename == str(store.path)
    assert store.path.read_bytes() == whole  # the half line written is cut back
    monkeypatch.undo()
    store.append({"key": "b", "value": 2})
    assert [r["key"] for r in store.records()] == ["a", "b"]


# -- the subcommands ------------------------------------------------------------------------------------------------


def labelled(path, n=60):
    rng = np.random.default_rng(0)
    x1, x2 = rng.normal(size=n), rng.normal(size=n)
    rows = "".join(f"{a:.4f},{b:.4f},{'yes' if a > 0 else 'no'}\n" for a, b in zip(x1, x2))
    path.write_text("x1,x2,y\n" + rows)
    return path


def benchmark(data, out, *options):
    argv = ["benchmark", "--data", str(data), "--target", "y", "--methods", "RF-400", "--folds", "2"]
    return cli.main([*argv, "--out", str(out), *RUN, *options])


@pytest.mark.slow
def test_benchmark_moves_the_users_table_and_figure_aside_and_replaces_its_own(tmp_path, capsys):
    data, out = labelled(tmp_path / "t.csv"), tmp_path / "out"
    table, figure = user_file(out / "table.md"), user_file(out / "figure.png", b"\x89PNG mine")
    assert benchmark(data, out) == 0
    (aside,) = (out / "old").iterdir()
    assert (aside / "table.md").read_bytes() == table and (aside / "figure.png").read_bytes() == figure
    assert f"{out}: moved table.md, figure.png to {aside}/ (not written by mddf here" in capsys.readouterr().err
    ours = (out / "table.md").read_bytes()
    assert ours != table
    assert benchmark(data, out) == 0  # the same command again: its own files are replaced, nothing moved
    assert len(list((out / "old").iterdir())) == 1 and "moved" not in capsys.readouterr().err
    user_file(out / "table.md")
    assert benchmark(data, out, "--force") == 0
    assert len(list((out / "old").iterdir())) == 1
    assert strip_provenance((out / "table.md").read_text()) == strip_provenance(ours.decode())  # the same table
    assert "replacing table.md (--force)" in capsys.readouterr().err


def test_benchmarks_table_of_other_settings_is_moved_aside(tmp_path, capsys):
    data, out = labelled(tmp_path / "t.csv"), tmp_path / "out"
    assert benchmark(data, out) == 0
    first = (out / "table.md").read_bytes()
    assert benchmark(data, out, "--methods", "RF-400,HGB-es") == 0  # one method more: another table
    (aside,) = (out / "old").iterdir()
    assert (aside / "table.md").read_bytes() == first
    assert "(results of other data or settings; --force replaces instead)" in capsys.readouterr().err


@pytest.mark.slow
def test_small_sample_moves_the_users_figure_aside(tmp_path, capsys):
    data, out = labelled(tmp_path / "t.csv", n=80), tmp_path / "out"
    mine = user_file(out / "small_sample_t.png", b"\x89PNG mine")
    argv = ["small-sample", "--data", str(data), "--target", "y", "--methods", "RF-400", "--fractions", "0.5,1"]
    assert cli.main([*argv, "--out", str(out), *RUN]) == 0
    (aside,) = (out / "old").iterdir()
    assert (aside / "small_sample_t.png").read_bytes() == mine and (out / "small_sample_t.png").read_bytes() != mine
    assert f"moved small_sample_t.png to {aside}/" in capsys.readouterr().err


@pytest.mark.slow
def test_plot_layers_moves_the_users_figure_aside_and_replaces_its_own(tmp_path, user_csv, capsys):
    out = tmp_path / "figures"
    mine = user_file(out / "layers_my.png", b"\x89PNG mine")
    argv = ["plot-layers", "--data", str(user_csv), "--target", "y", "--out", str(out), *FIT]
    assert cli.main(argv) == 0
    (aside,) = (out / "old").iterdir()
    assert (aside / "layers_my.png").read_bytes() == mine and sorted(p.name for p in aside.iterdir()) == [
        "layers_my.png"
    ]
    capsys.readouterr()
    assert cli.main(argv) == 0
    assert len(list((out / "old").iterdir())) == 1 and "moved" not in capsys.readouterr().err


@pytest.mark.slow
def test_export_features_refuses_a_file_of_other_settings_before_the_fit(tmp_path, user_csv, capsys, monkeypatch):
    out = tmp_path / "f.npz"
    argv = ["export-features", "--data", str(user_csv), "--target", "y", "--out", str(out), *FIT]
    assert cli.main(argv) == 0
    assert cli.main(argv) == 0  # its own file, same data and settings: replaced
    ours = out.read_bytes()
    capsys.readouterr()
    no_fit(monkeypatch)
    assert cli.main([*argv, "--seed", "1"]) == 2
    why = "results of other data or settings"
    assert capsys.readouterr().err == (
        f"mddf: error: --out {out} exists ({why}); pass --force to replace it, or give another --out\n"
    )
    assert out.read_bytes() == ours


RUNNERS = {
    "benchmark": ["--methods", "RF-400", "--folds", "2", *RUN],
    "small-sample": ["--methods", "RF-400", "--fractions", "1", *RUN],
}

#: The options of a short run of each subcommand that writes into a folder.
SHORT = {
    **RUNNERS,
    "explain": [*FIT, "--rows", "5"],
    "plot-layers": FIT,
    "plot-tsne": [*FIT, "--max-points", "60"],
}


@pytest.mark.parametrize(
    "command", ["benchmark", *(pytest.param(c, marks=pytest.mark.slow) for c in SHORT if c != "benchmark")]
)
def test_a_users_file_named_like_its_record_is_moved_aside_by_every_subcommand(tmp_path, user_csv, command, capsys):
    out = tmp_path / "out"
    mine = user_file(out / MANIFEST, b"my list of what is in this folder\n")
    assert cli.main([command, "--data", str(user_csv), "--target", "y", "--out", str(out), *SHORT[command]]) == 0
    (aside,) = (out / "old").iterdir()
    assert (aside / MANIFEST).read_bytes() == mine
    assert f"{out}: moved {MANIFEST} to {aside}/ (not mddf's record of the files it wrote here)" in (
        capsys.readouterr().err
    )
    assert outfolder.manifest_files(out / MANIFEST)  # its own record now, of the files it wrote


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["", "force"])
def test_export_features_refuses_a_users_file_named_like_its_record_before_the_fit(
    tmp_path, user_csv, capsys, monkeypatch, force
):
    # its folder is the user's: the file is neither written over nor moved into an old/ folder there
    mine = user_file(tmp_path / "features" / MANIFEST, b"my list\n")
    out = tmp_path / "features" / "f.npz"
    no_fit(monkeypatch)
    assert cli.main(["export-features", "--data", str(user_csv), "--target", "y", "--out", str(out), *FIT, *force]) == 2
    assert capsys.readouterr().err == (
        f"mddf: error: --out {out.parent / MANIFEST} exists and is not mddf's record of the files it wrote (it keeps "
        "one beside its file): move it, or give another --out\n"
    )
    assert (out.parent / MANIFEST).read_bytes() == mine and sorted(p.name for p in out.parent.iterdir()) == [MANIFEST]


def test_a_disk_full_while_writing_a_pdf_is_exit_2_and_leaves_no_cut_file(tmp_path, user_csv, capsys, monkeypatch):
    # matplotlib's PDF writer fails in its own clean-up after the disk refused a write (an AttributeError): the
    # figure was left cut, and the command ended with exit status 1 and matplotlib's traceback
    from matplotlib.figure import Figure

    real = Figure.savefig

    def full_at_the_pdf(self, path, *args, **kwargs):
        if not str(path).endswith(".pdf"):
            return real(self, path, *args, **kwargs)
        Path(path).write_bytes(b"%PDF-1.4 cut sh")
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError:
            raise AttributeError("'Stream' object has no attribute 'pos'")  # noqa: B904

    monkeypatch.setattr(Figure, "savefig", full_at_the_pdf)
    out = tmp_path / "figures"
    assert cli.main(["plot-layers", "--data", str(user_csv), "--target", "y", "--out", str(out), *FIT]) == 2
    assert capsys.readouterr().err == (
        f"mddf: error: --out {out} cannot be written: No space left on device (writing layers_my.pdf)\n"
    )
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "layers_my.png"]  # whole, and recorded as its own
    assert outfolder.manifest_files(out / MANIFEST).keys() == {"layers_my.png"}


@pytest.mark.parametrize("command", ["benchmark", "small-sample", "export-features", "explain", "plot-layers",
                                     "plot-tsne"])  # fmt: skip
@pytest.mark.parametrize(
    "code, why",
    [
        (errno.ENOSPC, "No space left on device"),
        (errno.EROFS, "Read-only file system"),
        (errno.EACCES, "Permission denied"),
    ],
    ids=["full-disk", "read-only", "forbidden"],
)
def test_a_full_disk_or_a_read_only_out_is_exit_2_in_one_line_before_any_fit(
    tmp_path, user_csv, capsys, monkeypatch, command, code, why
):
    out = tmp_path / "out"
    out.mkdir()
    given = out / "f.npz" if command == "export-features" else out
    no_fit(monkeypatch)
    failing_writes(monkeypatch, out, code)
    options = RUNNERS.get(command, FIT)
    assert cli.main([command, "--data", str(user_csv), "--target", "y", "--out", str(given), *options]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"mddf: error: --out {given} cannot be written: {why} (")
    assert list(out.iterdir()) == []  # no record, no lock file left


def test_an_out_under_a_file_is_exit_2_in_one_line(tmp_path, user_csv, capsys):
    (tmp_path / "a_file").write_text("x")
    out = tmp_path / "a_file" / "out"
    assert cli.main(["plot-layers", "--data", str(user_csv), "--target", "y", "--out", str(out), *FIT]) == 2
    assert capsys.readouterr().err == f"mddf: error: --out {out} cannot be created: Not a directory\n"


def test_a_disk_full_during_the_runs_is_exit_2_and_the_records_stay_whole(tmp_path, capsys, monkeypatch):
    data, out = labelled(tmp_path / "t.csv"), tmp_path / "out"
    real_probe = outfolder.probe

    def probe_then_fill(folder):  # the disk fills after the test write
        real_probe(folder)
        failing_writes(monkeypatch, Path(folder) / "results.jsonl", errno.ENOSPC, partial=True)

    monkeypatch.setattr("mddf.experiments.benchmark.probe", probe_then_fill)
    assert benchmark(data, out) == 2
    err = capsys.readouterr().err
    assert err.endswith(
        f"mddf: error: --out {out} cannot be written: No space left on device (writing results.jsonl)\n"
    )
    assert (out / "results.jsonl").read_bytes() == b""  # the half record cut back
    monkeypatch.undo()
    assert benchmark(data, out) == 0  # room again: the rerun runs them all
    assert all(r["status"] == "ok" for r in ResultStore(out / "results.jsonl").records())


def test_a_disk_full_while_drawing_is_exit_2_naming_the_file(tmp_path, user_csv, capsys, monkeypatch):
    from matplotlib.figure import Figure

    def full(self, path, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(Figure, "savefig", full)
    out = tmp_path / "figures"
    mine = user_file(out / "layers_my.png", b"\x89PNG mine")
    assert cli.main(["plot-layers", "--data", str(user_csv), "--target", "y", "--out", str(out), *FIT]) == 2
    err = capsys.readouterr().err
    (aside,) = (out / "old").iterdir()
    assert (aside / "layers_my.png").read_bytes() == mine  # moved before the write, and said so: kept
    assert err.splitlines() == [
        f"{out}: moved layers_my.png to {aside}/ (not written by mddf here, or changed since; --force replaces "
        "instead)",
        f"mddf: error: --out {out} cannot be written: No space left on device (writing layers_my.png)",
    ]
