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
