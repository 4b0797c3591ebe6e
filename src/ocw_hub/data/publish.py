"""Publishing a checked folder to the Hub (``ocw-hub publish``): :func:`publish` refuses a folder
that fails its check (:mod:`ocw_hub.data.hub_check`), then makes the repository mirror the
folder in one commit (new and changed files added, files the folder no longer has deleted).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from huggingface_hub import DatasetCard, HfApi

from ..configs import PathLike
from ..errors import ExportError
from ..offline import offline_variable
from ..provenance import NOT_VERIFIED
from .hub_check import check_space, inspect_export
from .hub_files import PlannedFile, first_line, planned_files, validate_repo_id
from .layout import exports_in


class PrereleaseExportError(ExportError):
    """An export not known to be the official release (built from the pre-release stand-in,
    or from release-shaped data not verified as the official release), refused by
    :func:`publish` unless forced.

    Attributes:
        configs: the configs at fault.
    """

    def __init__(self, message: str, *, configs: list[str]) -> None:
        super().__init__(message)
        self.configs = configs


def _require_hub(api: Any) -> None:
    """Refuse, before any request, what can only end in a network error.

    Raises:
        ExportError: offline mode is set; no token (``HF_TOKEN``, the login or the ``api``'s).
    """
    from huggingface_hub import get_token

    variable = offline_variable()
    if variable is not None:
        raise ExportError(f"publishing needs the Hub, but {variable} is set (offline mode)")
    if not (getattr(api, "token", None) or get_token()):
        raise ExportError(
            "no Hugging Face token: set HF_TOKEN or log in with `hf auth login` (a token with "
            "write access)"
        )


def _network_errors() -> tuple[type[BaseException], ...]:
    """What a Hub request raises on a network failure, whichever HTTP library this
    ``huggingface_hub`` uses: ``OSError`` (requests' errors, ``OfflineModeIsEnabled``) and the
    ``HTTPError`` base of httpx (its transport errors) that ``HfHubHTTPError`` derives from."""
    from huggingface_hub.errors import HfHubHTTPError

    bases = tuple(c for c in HfHubHTTPError.__mro__[1:] if c.__name__ == "HTTPError")
    return (OSError, *bases)


@contextmanager
def hub_errors(repo_id: str) -> Iterator[None]:
    """Turn what a Hub request raises into one-line :class:`ExportError`: the Hub's refusal
    (401, 403, 404: with its reason), a missing token, offline mode, no connection."""
    from huggingface_hub.errors import (
        HfHubHTTPError,
        HFValidationError,
        LocalTokenNotFoundError,
        OfflineModeIsEnabled,
    )

    try:
        yield
    except HFValidationError as err:
        raise ExportError(f"repo id {repo_id!r}: {first_line(err)}") from err
    except OfflineModeIsEnabled as err:
        raise ExportError(f"publishing {repo_id} needs the Hub: {first_line(err)}") from err
    except LocalTokenNotFoundError as err:
        raise ExportError(f"publishing {repo_id}: no token ({first_line(err)})") from err
    except HfHubHTTPError as err:
        raise ExportError(f"the Hub refused publishing {repo_id}: {first_line(err)}") from err
    except _network_errors() as err:
        raise ExportError(
            f"cannot reach the Hub to publish {repo_id} ({type(err).__name__}: {first_line(err)})"
        ) from err


def _mirror_commit(
    api: Any,
    root: Path,
    repo_id: str,
    files: list[PlannedFile],
    repo_type: str,
    revision: str | None,
    message: str,
) -> None:
    """One commit that makes the repository hold exactly ``files``: each added (or updated),
    every other file of the repository deleted (``.gitattributes`` kept)."""
    from huggingface_hub import CommitOperationAdd, CommitOperationDelete

    keep = {f.path for f in files} | {".gitattributes"}
    existing = api.list_repo_files(repo_id, repo_type=repo_type, revision=revision)
    operations: list[Any] = [
        CommitOperationDelete(path_in_repo=path) for path in sorted(set(existing) - keep)
    ]
    operations += [
        CommitOperationAdd(path_in_repo=f.path, path_or_fileobj=str(root / f.path)) for f in files
    ]
    api.create_commit(
        repo_id,
        operations=operations,
        commit_message=message,
        repo_type=repo_type,
        revision=revision,
    )


def _pretty_name(root: Path) -> str:
    """The card's ``pretty_name`` (checked readable), else the folder's name."""
    name = DatasetCard.load(root / "README.md").data.get("pretty_name")
    return str(name) if name else root.resolve().name


def _checked_files(root: Path, space: bool, force: bool) -> list[PlannedFile]:
    """The files to upload, once the folder passed its check.

    Raises:
        ExportError: the check failed (every problem listed); a folder of several exports.
        PrereleaseExportError: an export of the pre-release stand-in, or of data not verified
            as the official release, without ``force``.
    """
    unverified: list[str] = []
    if space:
        problems, prerelease = check_space(root), []
    else:
        exports = exports_in(root)
        if exports != [root]:
            listed = ", ".join(str(p) for p in exports)
            raise ExportError(
                f"{root}: holds {len(exports)} exports; publish each to its own repository: "
                f"{listed}"
            )
        report = inspect_export(root)
        problems, prerelease, unverified = report.problems, report.prerelease, report.unverified
    if problems:
        kind = "Space" if space else "export"
        listed = problems[0] if len(problems) == 1 else "\n- " + "\n- ".join(problems)
        raise ExportError(f"{root}: not a publishable {kind}: {listed}")
    if prerelease and not force:
        raise PrereleaseExportError(
            f"{root}: config(s) {', '.join(prerelease)} hold the 6-character wall ids of the "
            "pre-release export, not the official OCW release; publishing it as OCW would "
            "mislead",
            configs=prerelease,
        )
    if unverified and not force:
        raise PrereleaseExportError(
            f"{root}: config(s) {', '.join(unverified)}: {NOT_VERIFIED} (the card does not "
            "record them as built from the official download with these files); publishing "
            "it as the benchmark would mislead",
            configs=unverified,
        )
    return planned_files(root)


def publish(
    folder: PathLike,
    repo_id: str,
    *,
    revision: str | None = None,
    private: bool = False,
    dry_run: bool = False,
    space: bool = False,
    force: bool = False,
    api: HfApi | None = None,
) -> list[PlannedFile]:
    """Make a Hub repository mirror an export (dataset repo) or the metric folder
    (``space=True``), in one commit.

    Args:
        folder: one export (e.g. ``build/hub/ocw``) or the metric folder.
        repo_id: ``ORG/NAME`` (or ``NAME`` in the token's namespace).
        revision: branch to commit to (created from the default branch if missing).
        private: create the repository as private (an existing one is left as it is).
        dry_run: check and list the files only; nothing touches the network.
        space: publish an ``evaluate`` metric as a Gradio Space.
        force: publish an export of the pre-release stand-in, or of data not verified as the
            official release, anyway.
        api: the ``HfApi`` to use (default: one with the token of ``HF_TOKEN`` or the login).

    Returns:
        The files uploaded (or, with ``dry_run``, that would be).

    Raises:
        ExportError: a malformed repo id; the folder fails :func:`inspect_export` (or
            :func:`check_space`; the message lists every problem); offline; no token; the Hub
            refused or could not be reached (one line, with the Hub's reason).
        PrereleaseExportError: an export of the pre-release stand-in, or of data not verified
            as the official release, without ``force``.
    """
    validate_repo_id(repo_id)
    root = Path(folder)
    files = _checked_files(root, space, force)
    if dry_run:
        return files
    api = api or HfApi()
    _require_hub(api)
    repo_type = "space" if space else "dataset"
    what = "ocw_metric" if space else _pretty_name(root)
    sdk: dict[str, Any] = {"space_sdk": "gradio"} if space else {}
    with hub_errors(repo_id):
        api.create_repo(
            repo_id,
            repo_type=repo_type,
            private=private,
            exist_ok=True,
            **sdk,
        )
        if revision:
            api.create_branch(repo_id, repo_type=repo_type, branch=revision, exist_ok=True)
        message = f"Upload {what} with ocw-hub (mirror of the folder)"
        _mirror_commit(api, root, repo_id, files, repo_type, revision, message)
    return files


def publish_eval_results(
    folder: PathLike,
    repo_id: str,
    *,
    revision: str | None = None,
    create_pr: bool = False,
    dry_run: bool = False,
    api: HfApi | None = None,
) -> list[PlannedFile]:
    """Add a folder's ``.eval_results/*.yaml`` files (``ocw-hub evaluate --eval-results``) to
    a model repo in one commit; nothing else of the repo is touched.

    Args:
        folder: the model repo folder holding ``.eval_results`` (or that folder itself).
        repo_id: the model repo, ``ORG/NAME``; it must exist.
        revision: branch to commit to; ``create_pr``: open a pull request instead (results
            for a model that is not yours show as community-provided).
        dry_run: check and list the files only; nothing touches the network.

    Returns:
        The files uploaded (path in the repo, bytes), or with ``dry_run`` that would be.

    Raises:
        ExportError: a malformed repo id; the folder fails
            :func:`ocw_hub.data.eval_results.eval_results_problems` (every problem listed);
            offline; no token; the Hub refused or could not be reached.
    """
    from huggingface_hub import CommitOperationAdd

    from .eval_results import RESULTS_FOLDER, eval_results_problems, result_files

    validate_repo_id(repo_id)
    problems = eval_results_problems(folder)
    if problems:
        listed = problems[0] if len(problems) == 1 else "\n- " + "\n- ".join(problems)
        raise ExportError(f"{folder}: not publishable eval results: {listed}")
    paths = result_files(folder)
    files = [PlannedFile(f"{RESULTS_FOLDER}/{p.name}", p.stat().st_size) for p in paths]
    if dry_run:
        return files
    api = api or HfApi()
    _require_hub(api)
    operations = [
        CommitOperationAdd(path_in_repo=f.path, path_or_fileobj=str(p))
        for f, p in zip(files, paths, strict=True)
    ]
    with hub_errors(repo_id):
        api.create_commit(
            repo_id,
            operations=operations,
            commit_message=f"Add {len(files)} eval result(s) with ocw-hub",
            repo_type="model",
            revision=revision,
            create_pr=create_pr,
        )
    return files
