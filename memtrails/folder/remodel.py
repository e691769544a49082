"""Bind an open folder to another embedding model (``memtrails reindex --model``)."""

from __future__ import annotations

from .._exceptions import ModelMismatchError
from ..embedding._base import Embedder
from .model import FolderModel
from .opening import Folder, _fixed

__all__ = ["change_model"]


async def change_model(folder: Folder, embedder: Embedder, *, owned: bool) -> None:
    """Empty the index, then record ``embedder`` as the folder's model; a reindex follows.

    The index is emptied (checkpoint 0) before the manifest names the new model, so a crash
    at any point leaves a folder that reopens consistent: with the old model and an index to
    catch up from the log, or with the new model and the same.

    Args:
        folder: the open folder.
        embedder: the new model (already loaded, so a missing model fails before any change).
        owned: whether the folder closes the model when it closes.

    Raises:
        ModelMismatchError: the new model's vectors have another length than the index's.
    """
    old = folder.manifest["embedding"]
    new = embedder.describe()
    if int(new["dims"]) != int(old["dims"]):
        raise ModelMismatchError(
            f"memory folder {folder.path} indexes {old['dims']}-dimension vectors and "
            f"{new.get('model_id')!r} makes {new['dims']}; import into a new memory folder "
            "for that model"
        )
    await folder.writer.reset()
    await folder.writer.bind_model(new)  # folder.manifest is the writer's: changed in place
    previous = folder.model
    folder.model = FolderModel(
        folder.path, folder.manifest["embedding"], _fixed(embedder), embedder, owned=owned
    )
    await previous.aclose()
