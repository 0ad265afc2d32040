"""The course's JupyterLab keeps the course read-only: only the learner's workspace is writable.

``./course start`` points Jupyter at the course's own configuration (``.jupyter/``), which names
this contents manager. The learner sees every file of the course, but saving, renaming or deleting
outside ``workspace/`` is refused with a message that says where their copy is, so no autosave,
rename or scratch notebook ever changes a tracked file, and ``git pull`` always works. An
instructor's JupyterLab, or the hub's, does not read that configuration and is unaffected.
"""

from __future__ import annotations

import posixpath
from pathlib import Path

from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from tornado import web

from autograder.learner import workspace

READ_ONLY = ("{path} is part of the course, which this JupyterLab keeps read-only so that `git pull` always "
             "works. Your own copies are in {workspace}/ (the lesson links open them); save your work there.")


class CourseContentsManager(AsyncLargeFileManager):
    """Files as usual; writes only inside the workspace."""

    def _refuse_outside_workspace(self, path: str) -> None:
        path = posixpath.normpath(path.strip("/")) if path.strip("/") else ""
        target = Path(self._get_os_path(path)).resolve()
        if not target.is_relative_to(workspace.WORKSPACE.resolve()):
            raise web.HTTPError(403, READ_ONLY.format(path=path or "this folder", workspace=workspace.shown(workspace.WORKSPACE)))

    async def save(self, model, path=""):
        self._refuse_outside_workspace(path)
        return await super().save(model, path)

    async def rename_file(self, old_path, new_path):
        self._refuse_outside_workspace(old_path)
        self._refuse_outside_workspace(new_path)
        return await super().rename_file(old_path, new_path)

    async def delete_file(self, path):
        self._refuse_outside_workspace(path)
        return await super().delete_file(path)
