"""Outputs never overwrite an input, and a failed write leaves the old file whole (issue #23, class 4).

Every CLI command with an output option is run for real (``main``) with an output path drawn from
its own inputs: the same path, ``./dir/../name``, a symlink to it, a hard link to it. The command
must refuse (exit 2, before any work) and the input must be byte-identical after. A write made to
fail for real (``RLIMIT_FSIZE``: the kernel refuses the bytes past the limit, as a full disk
would) must leave the previous file as it was, with no temporary file beside it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import resource
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rlark_widgets.cli import main
from rlark_widgets.cli.output_args import OUTPUT_OPTIONS
from rlark_widgets.examples import example_configs
from rlark_widgets.output_files import OutputError, write_output
from rlark_widgets.rlark.record import RecordError, RunRecord

INPUT_BYTES = b"# the user's own file\nkey: value\n"


def _same(folder: Path, name: str) -> str:
    return str(folder / name)


def _dotdot(folder: Path, name: str) -> str:
    (folder / "sub").mkdir(exist_ok=True)
    return str(folder / "sub" / ".." / "." / name)


def _symlink(folder: Path, name: str) -> str:
    link = folder / f"link-{name}"
    link.symlink_to(folder / name)
    return str(link)


def _hardlink(folder: Path, name: str) -> str:
    link = folder / f"hard-{name}"
    os.link(folder / name, link)
    return str(link)


ALIASES: dict[str, Callable[[Path, str], str]] = {
    "same": _same,
    "dotdot": _dotdot,
    "symlink": _symlink,
    "hardlink": _hardlink,
}

# command -> (argv with {input} and {output}, environment variables with {input})
COMMANDS: dict[str, tuple[list[str], dict[str, str]]] = {
    "plan -o": (["plan", "{input}", "-o", "{output}"], {}),
    "plan --record": (["plan", "{input}", "--record", "{output}"], {}),
    "plan --site -o": (["plan", "cfg.yaml", "--site", "{input}", "-o", "{output}"], {}),
    "export -o": (["export", "{input}", "-o", "{output}"], {}),
    "sheet -o": (["sheet", "{input}", "-o", "{output}"], {}),
    "admin-request -o": (["admin-request", "{input}", "-o", "{output}"], {}),
    "inventory -o --kubeconfig": (["inventory", "--kubeconfig", "{input}", "-o", "{output}"], {}),
    "inventory -o $KUBECONFIG": (["inventory", "-o", "{output}"], {"KUBECONFIG": "{input}"}),
    "record -o": (["record", "demo", "--kubeconfig", "{input}", "-o", "{output}"], {}),
    "logs-all --zip": (["logs-all", "demo", "--kubeconfig", "{input}", "--zip", "{output}"], {}),
    "export -o $RLARK_SITE": (["export", "j.yaml", "-o", "{output}"], {"RLARK_SITE": "{input}"}),
}


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@given(command=st.sampled_from(sorted(COMMANDS)), alias=st.sampled_from(sorted(ALIASES)))
def test_an_output_that_is_an_input_is_refused_and_the_input_stays(
    command: str, alias: str
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        given_input = here / "input.yaml"
        given_input.write_bytes(INPUT_BYTES)
        output = ALIASES[alias](here, "input.yaml")
        argv, env = COMMANDS[command]
        fill = {"input": str(given_input), "output": output}
        stderr = io.StringIO()
        with (
            _environment({k: v.format(**fill) for k, v in env.items()}),
            contextlib.redirect_stderr(stderr),
        ):
            code = main([a.format(**fill) for a in argv])
        err = stderr.getvalue()
        assert code == 2, err
        assert "writing there would overwrite it" in err and str(given_input) in err
        assert given_input.read_bytes() == INPUT_BYTES
        assert sorted(p.name for p in here.iterdir() if p.name.startswith(".")) == []


def test_the_refusal_is_in_chinese_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "cfg.yaml"
    config.write_bytes(INPUT_BYTES)
    assert main(["--lang", "zh", "plan", str(config), "-o", str(config)]) == 2
    assert "就是输入文件" in capsys.readouterr().err
    assert config.read_bytes() == INPUT_BYTES


@contextlib.contextmanager
def _file_size_limit(limit: int) -> Iterator[None]:
    """The kernel refuses bytes past ``limit`` (EFBIG), as a full disk would refuse them."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)


@given(
    old=st.binary(max_size=256),
    new=st.text(min_size=2048, max_size=4096),
    through_link=st.booleans(),
)
def test_a_failed_write_leaves_the_old_file_whole(old: bytes, new: str, through_link: bool) -> None:
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder, "job.yaml")
        target.write_bytes(old)
        named = target
        if through_link:
            named = Path(folder, "link.yaml")
            named.symlink_to(target)
        with _file_size_limit(1024), pytest.raises(OutputError) as raised:
            write_output(named, new)
        assert "cannot be written" in str(raised.value)
        assert target.read_bytes() == old
        assert sorted(p.name for p in Path(folder).iterdir()) == sorted({"job.yaml", named.name})


def test_a_device_is_written_in_place_not_replaced(tmp_path: Path) -> None:
    """``-o /dev/null`` writes to the device; a rename would have put a regular file there."""
    write_output("/dev/null", "kind: Job\n")
    assert Path("/dev/null").is_char_device()
    with pytest.raises(OutputError, match="cannot be written"):
        write_output("/dev/full", "kind: Job\n")
    assert Path("/dev/full").is_char_device()


def test_a_good_write_keeps_the_mode_and_replaces_the_content(tmp_path: Path) -> None:
    target = tmp_path / "job.yaml"
    target.write_text("old\n")
    target.chmod(0o640)
    write_output(target, "new\n")
    assert target.read_text() == "new\n"
    assert target.stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize("zipped", [False, True])
def test_a_record_is_not_written_over_an_earlier_one_without_force(
    tmp_path: Path, zipped: bool
) -> None:
    record = RunRecord({"README.md": "new\n", "job.yaml": "kind: Job\n"}, [])
    out = tmp_path / ("rec.zip" if zipped else "rec")
    earlier = out if zipped else out / "README.md"
    earlier.parent.mkdir(parents=True, exist_ok=True)
    earlier.write_text("earlier\n")
    with pytest.raises(RecordError, match="exists already"):
        record.write(out)
    assert earlier.read_text() == "earlier\n"
    if not zipped:
        assert not (out / "job.yaml").exists()  # refused before anything was written
    record.write(out, force=True)
    assert earlier.read_bytes() != b"earlier\n"


def test_record_force_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = example_configs()["local_rehearsal_2node"]
    out = tmp_path / "rec"
    out.mkdir()
    (out / "README.md").write_text("mine\n")
    main(["plan", str(config), "--record", str(out)])
    err = capsys.readouterr().err
    assert "exists already" in err and "--force" in err
    assert (out / "README.md").read_text() == "mine\n"
    main(["plan", str(config), "--record", str(out), "--force"])
    assert (out / "README.md").read_text() != "mine\n"


def _output_actions() -> set[tuple[str, str]]:
    """(command, option) of every argument whose help says it writes a file."""
    from rlark_widgets.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found = set()
    for name, sub in commands.choices.items():
        for action in sub._actions:
            if re.match(r"(write|export) ", action.help or "") and action.option_strings:
                found.add((name, action.dest))
    return found


def test_every_output_option_is_checked_and_tested() -> None:
    """An output option added to any command must be in OUTPUT_OPTIONS and in COMMANDS above."""
    found = _output_actions()
    assert {dest for _, dest in found} <= set(OUTPUT_OPTIONS)
    tested = {
        (argv[0], dest)
        for argv, _ in COMMANDS.values()
        for dest in OUTPUT_OPTIONS
        if OUTPUT_OPTIONS[dest] in argv or f"--{dest}" in argv
    }
    assert found <= tested, found - tested
