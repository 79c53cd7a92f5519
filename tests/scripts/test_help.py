"""Every script documents itself (--help) and offers a --quick smoke-test configuration."""

import pytest

from mddf.experiments.cli import COMMANDS, run_script

SCRIPTED = [name for name, command in COMMANDS.items() if command.script]


def _help_text(main, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name", SCRIPTED)
def test_the_help_of_a_wrapped_subcommand_exits_cleanly_and_lists_quick(name, capsys):
    text = _help_text(lambda argv: run_script(name, argv), capsys)
    assert f"usage: {COMMANDS[name].script}" in text
    assert "--quick" in text and "--out" in text


def test_the_benchmarks_help_names_every_practitioner_method_and_the_extra_of_the_optional_ones(capsys):
    from mddf.experiments.methods import default_registry

    text = _help_text(lambda argv: run_script("benchmark", argv), capsys)
    for spec in default_registry().select(protocol="practitioner"):
        assert spec.name + (f" ({spec.extra} extra)" if spec.extra else "") in text
    assert "CatBoost-es (bench extra)" in text and "LightGBM-es (bench extra)" not in text
