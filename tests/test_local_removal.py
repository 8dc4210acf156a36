"""The local backend removes nothing outside its workspace, whatever its state files say (#23, class 4).

A Job directory is written as ``submit`` writes it (``build_spec``), then its state is made
hostile: ``spec.json`` names a temp root and a run id drawn from ``..`` paths, absolute paths
and symlinks pointing out; ``logs/``, ``workers/``, ``tensorboard.json`` and the Job directory
itself may be symlinks to a canary outside. ``delete`` and a re-submission's clean-up must leave
the canary whole, and still remove the Job's own directory.
"""

from __future__ import annotations

import json
import os.path
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_local_backend import ONE_NODE, planned

from rlark_widgets.backends.base import BackendError
from rlark_widgets.backends.local.backend import LocalBackend, _clear_run
from rlark_widgets.backends.local.layout import JobDir
from rlark_widgets.backends.local.removal import inside, ray_temp_root, remove_within
from rlark_widgets.backends.local.spec import build_spec
from rlark_widgets.rlark.site import example_site

JOB, _ = planned("victim", ONE_NODE)


def _canary(base: Path) -> Path:
    canary = base / "canary"
    (canary / "inner").mkdir(parents=True)
    (canary / "inner" / "keep.txt").write_text("keep me")
    (canary / "keep.txt").write_text("keep me")
    return canary


def _snapshot(folder: Path) -> list[tuple[str, str]]:
    """Every entry under ``folder`` and what it holds (links as their targets, not followed)."""
    entries = []
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            held = f"-> {os.readlink(path)}"
        elif path.is_file():
            held = path.read_text()
        else:
            held = "(directory)"
        entries.append((str(path.relative_to(folder)), held))
    return entries


# How a state file may name the canary: relative with '..', absolute, through a symlink.
def _temp_root(workspace: Path, canary: Path, form: str) -> str:
    if form == "absolute":
        return str(canary)
    if form == "dotdot":
        return str(workspace / "victim" / ".." / ".." / canary.name)
    if form == "inner":
        return str(canary / "inner")
    link = workspace / "victim" / "out"
    link.symlink_to(canary)
    return str(link / "inner") if form == "through-link" else str(link)


TEMP_FORMS = ("absolute", "dotdot", "inner", "through-link", "link")
RUN_IDS = st.one_of(
    st.just("../../canary"),
    st.just("../../../canary"),
    st.just("/" + "a" * 31),
    st.text(alphabet="0123456789abcdef./", min_size=0, max_size=40),
)
LINKED = ("logs", "workers", "tensorboard.json")


@given(
    temp_form=st.sampled_from(TEMP_FORMS),
    run_id=RUN_IDS,
    linked=st.lists(st.sampled_from(LINKED), unique=True),
    job_dir_is_a_link=st.booleans(),
    clear_instead=st.booleans(),
)
def test_no_state_file_makes_delete_remove_anything_outside(
    temp_form: str,
    run_id: str,
    linked: list[str],
    job_dir_is_a_link: bool,
    clear_instead: bool,
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        canary = _canary(base)
        workspace = base / "ws"
        workspace.mkdir()
        where = JobDir.of(workspace, JOB.name)
        if job_dir_is_a_link:
            where.root.symlink_to(canary, target_is_directory=True)
        else:
            where.root.mkdir()
        spec = build_spec(
            JOB, where, LocalBackend(workspace, site=example_site()).options, site=example_site()
        ).to_json()
        if not job_dir_is_a_link:
            spec["temp_root"] = _temp_root(workspace, canary, temp_form)
            for name in linked:
                where.file(name).symlink_to(canary / ("keep.txt" if "." in name else "inner"))
        spec["run_id"] = run_id
        (where.root / "spec.json").write_text(json.dumps(spec))
        before = _snapshot(canary)

        def act() -> None:
            if clear_instead:
                with where.lock():  # as submit does
                    _clear_run(where, workspace)
            else:
                LocalBackend(workspace, site=example_site()).delete(JOB.name)
                assert not where.root.exists() and not where.root.is_symlink()

        if job_dir_is_a_link:
            with pytest.raises(BackendError, match="is a symbolic link"):
                act()
        else:
            act()
        assert _snapshot(canary) == before  # nothing removed, moved or written there
        assert sorted(p.name for p in base.iterdir()) == ["canary", "ws"]


@given(
    parts=st.lists(
        st.sampled_from(["..", ".", "", "ws", "job", "canary", "/", "//"]), min_size=1, max_size=6
    )
)
def test_inside_holds_exactly_for_entries_strictly_under_the_folder(parts: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder).resolve()
        workspace = base / "ws"
        (workspace / "job").mkdir(parents=True)
        candidate = Path(workspace, *parts)
        location = inside(candidate, workspace)
        normal = Path(os.path.normpath(candidate))
        expected = workspace in normal.parents and candidate.name not in ("", ".", "..")
        assert (location is not None) == expected
        assert remove_within(candidate, workspace) == expected
        assert base.is_dir()


def test_the_ray_temp_root_is_derived_from_a_run_id_we_made() -> None:
    root = ray_temp_root("0123456789abcdef0123456789abcdef")
    assert root is not None and root.name == "rlark-01234567"
    assert root.parent == Path(tempfile.gettempdir()).resolve()
    for hostile in ("../../../home", "0123456789abcdef0123456789abcde/", "", "X" * 32):
        assert ray_temp_root(hostile) is None
