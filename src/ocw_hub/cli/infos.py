"""``ocw-hub infos``: the root ``dataset_infos.json`` regenerated from the builders."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import OCWHubError
from ._common import console


def infos(
    check_only: Annotated[
        bool, typer.Option("--check", help="Fail if dataset_infos.json is stale.")
    ] = False,
) -> None:
    """Regenerate the root dataset_infos.json from the builders (or check it is current)."""
    from ..data.infos import dataset_infos_is_current, write_dataset_infos
    from ..resources import dataset_infos_path

    path = dataset_infos_path()
    if check_only:
        if not dataset_infos_is_current():
            raise OCWHubError(f"{path} is stale: run `ocw-hub infos`")
        console.print(f"{path} is current")
        return
    changed = write_dataset_infos()
    console.print(f"{path} {'rewritten' if changed else 'already current'}")
