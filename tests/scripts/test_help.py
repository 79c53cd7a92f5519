"""Every script documents itself (--help) and offers a --quick smoke-test configuration."""

import export_features
import plot_layers
import plot_tsne
import pytest
import run_uci
import small_sample

from mddf.experiments.bench import extensions as bench_extensions


@pytest.mark.parametrize("module", [run_uci, small_sample, plot_layers, plot_tsne, export_features, bench_extensions])
def test_help_exits_cleanly_and_lists_quick(module, capsys):
    with pytest.raises(SystemExit) as exit_info:
        module.main(["--help"])
    assert exit_info.value.code == 0
    text = capsys.readouterr().out
    assert "--quick" in text and "--out" in text
