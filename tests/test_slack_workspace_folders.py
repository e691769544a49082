"""A folder beside an export's channels that holds channel folders of its own (a workspace's
export put beside the org's): its messages cannot be told apart as the org's channels, so
the import says it did not read them, never drops them unsaid; folder or zip."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from helpers import collect, errors, records, write_json

from memtrails.importers.slack import from_slack_export
from memtrails.records import SourceState


def export(root: Path) -> Path:
    write_json(root / "org_users.json", [{"id": "U1", "name": "ann", "real_name": "Ann Archer"}])
    write_json(root / "channels.json", [{"id": "C1", "name": "general"}])
    write_json(root / "general/2024-01-01.json", [{"user": "U1", "text": "top", "ts": "1.0"}])
    write_json(root / "Acme Sales/users.json", [{"id": "U2", "real_name": "Bob Baker"}])
    write_json(root / "Acme Sales/channels.json", [{"id": "C2", "name": "deals"}])
    write_json(
        root / "Acme Sales/deals/2024-01-01.json", [{"user": "U2", "text": "x", "ts": "1.0"}]
    )
    # Slack's own workspace layout is read as ever.
    write_json(root / "teams/ws1/ops/2024-01-01.json", [{"user": "U1", "text": "ops", "ts": "1.0"}])
    return root


@pytest.mark.parametrize("as_zip", [False, True])
async def test_a_workspace_folder_outside_teams_is_named_not_dropped(
    tmp_path: Path, as_zip: bool
) -> None:
    path = export(tmp_path / "export")
    if as_zip:
        archive = tmp_path / "export.zip"
        with zipfile.ZipFile(archive, "w") as z:
            for member in sorted(path.rglob("*.json")):
                z.write(member, member.relative_to(path).as_posix())
        path = archive
    items = await collect(from_slack_export(path))
    assert sorted(r.text for r in records(items)) == ["ops", "top"]
    assert [(e.where, e.reason) for e in errors(items)] == [
        (
            "Acme Sales",
            "holds channel folders of its own (a workspace's export?): import it as an export "
            "of its own, or move it into teams/; its messages were not read",
        )
    ]
    final = [i for i in items if isinstance(i, SourceState)][-1]
    assert not final.complete  # so a --prune forgets nothing of it
