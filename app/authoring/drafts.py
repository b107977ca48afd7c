"""The draft store: what editors saved and not yet published, never the course folder itself.

A file's revision is a hash of the text an editor loaded (the draft's, else the file's on disk).
Saving names that revision as its base; a save on a stale base is a conflict: the newer text
stays, the losing text is kept in `authoring_conflicts`, and nothing is overwritten silently.

A draft also keeps the hash of the file on disk it was made against (`disk_sha`); publish refuses
it once the disk changed (a git commit). Loading such a draft shows the disk's text, and a save
naming the disk revision it merged (`SeenDisk`) moves `disk_sha` there, so publish goes through.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.authoring.models import AuthoringConflict, AuthoringDraft
from app.errors import DomainError
from app.models_base import utcnow
from app.users.models import User

STALE = (
    "Someone saved this file after you opened it; your text is kept as a conflict. "
    "Reload to see the newer text and merge your changes."
)
DISK_CHANGED = (
    "This file changed on disk since this draft began (someone committed it in git); publish "
    "refuses the draft until you merge. The text on disk is shown beside your draft: merge what "
    "you need, then save saying you merged it (or discard the draft)."
)
NO_DRAFT = "There is no draft of this file (it may be published or discarded already)."
STALE_DISCARD = "Someone saved this draft after you opened it; reload it before discarding."


def sha(text: str | None) -> str | None:
    """SHA-256 of a text (None for a file that does not exist)."""
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def revision(text: str | None) -> str | None:
    """The short revision an editor loads and names as `base` when saving."""
    full = sha(text)
    return full[:16] if full else None


def disk_text(folder: Path, path: str) -> str | None:
    """The file's text on disk, None when there is none."""
    target = folder / path
    try:
        return target.read_text(encoding="utf-8") if target.is_file() else None
    except (OSError, UnicodeDecodeError):
        return None


def draft_of(*, session: Session, course_slug: str, path: str) -> AuthoringDraft | None:
    """The unpublished draft of this file, if any."""
    return session.scalar(
        select(AuthoringDraft).where(
            AuthoringDraft.course_slug == course_slug, AuthoringDraft.path == path
        )
    )


def drafts_of(*, session: Session, course_slug: str) -> list[AuthoringDraft]:
    """Every unpublished draft of the course, by path."""
    return list(
        session.scalars(
            select(AuthoringDraft)
            .where(AuthoringDraft.course_slug == course_slug)
            .order_by(AuthoringDraft.path)
        )
    )


@dataclass(frozen=True)
class Loaded:
    """What the editor opens: the text, its revision, whether it is a draft, and the disk's."""

    text: str | None
    revision: str | None
    draft: bool
    disk_changed: bool = False  # the file on disk is no longer the one the draft began from
    disk_text: str | None = None
    disk_revision: str | None = None


@dataclass(frozen=True)
class SeenDisk:
    """A save's word that it merged the disk text of this revision (None: no file on disk)."""

    revision: str | None


def disk_moved(folder: Path, draft: AuthoringDraft) -> bool:
    """True when the file on disk is no longer the one the draft began from (publish refuses)."""
    return sha(disk_text(folder, draft.path)) != draft.disk_sha


def load(*, session: Session, folder: Path, course_slug: str, path: str) -> Loaded:
    """The text an editor should see: the draft when there is one, else the file on disk."""
    draft = draft_of(session=session, course_slug=course_slug, path=path)
    on_disk = disk_text(folder, path)
    if draft is None:
        return Loaded(on_disk, revision(on_disk), False, False, on_disk, revision(on_disk))
    changed = sha(on_disk) != draft.disk_sha  # disk_moved, with the text read once
    return Loaded(draft.text, revision(draft.text), True, changed, on_disk, revision(on_disk))


def _keep_conflict(
    session: Session, *, course_slug: str, path: str, text: str, base: str | None, user: User
) -> None:
    session.add(
        AuthoringConflict(course_slug=course_slug, path=path, text=text, base=base, user_id=user.id)
    )
    session.commit()


def save(
    *,
    session: Session,
    folder: Path,
    course_slug: str,
    path: str,
    text: str,
    base: str | None,
    user: User,
    seen_disk: SeenDisk | None = None,
) -> AuthoringDraft:
    """Store the text as the file's draft; 409 (the text kept as a conflict) on a stale base.

    With `seen_disk` naming the disk's current revision, the draft now stands on that disk text
    (publish no longer refuses it); a revision the disk has since left changes nothing.
    """
    current = load(session=session, folder=folder, course_slug=course_slug, path=path)
    if base != current.revision:
        _keep_conflict(session, course_slug=course_slug, path=path, text=text, base=base, user=user)
        raise DomainError(409, STALE)
    draft = draft_of(session=session, course_slug=course_slug, path=path)
    if draft is None:
        draft = AuthoringDraft(
            course_slug=course_slug, path=path, text=text, disk_sha=sha(current.disk_text)
        )
        draft.updated_by = user.id
        session.add(draft)
        won = True
    else:  # only if nobody changed it since we read it: two saves on one base, one wins
        merged = seen_disk is not None and seen_disk.revision == current.disk_revision
        disk = sha(current.disk_text) if merged else draft.disk_sha
        won = _update_if_unchanged(
            session, draft, old=current.text or "", new=text, disk=disk, user=user
        )
    try:
        session.commit()
    except IntegrityError:  # another editor created the draft meanwhile: theirs stays
        session.rollback()
        won = False
    if not won:
        session.rollback()
        _keep_conflict(session, course_slug=course_slug, path=path, text=text, base=base, user=user)
        raise DomainError(409, STALE)
    return draft


def _update_if_unchanged(
    session: Session, draft: AuthoringDraft, *, old: str, new: str, disk: str | None, user: User
) -> bool:
    result = session.execute(
        update(AuthoringDraft)
        .where(AuthoringDraft.id == draft.id, AuthoringDraft.text == old)
        .values(text=new, disk_sha=disk, updated_by=user.id, updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    session.expire(draft)
    return bool(getattr(result, "rowcount", 0))


def discard(*, session: Session, course_slug: str, path: str, base: str | None = None) -> None:
    """Drop the file's draft (the disk's text stays); 404 with none, 409 when BASE is stale."""
    draft = draft_of(session=session, course_slug=course_slug, path=path)
    if draft is None:
        raise DomainError(404, NO_DRAFT)
    old = draft.text
    if base is not None and base != revision(old):
        raise DomainError(409, STALE_DISCARD)
    result = session.execute(
        delete(AuthoringDraft)
        .where(AuthoringDraft.id == draft.id, AuthoringDraft.text == old)
        .execution_options(synchronize_session=False)
    )
    session.commit()
    if not getattr(result, "rowcount", 0):  # saved again between our read and the delete
        raise DomainError(409, STALE_DISCARD)


def conflicts_of(*, session: Session, course_slug: str, path: str) -> list[AuthoringConflict]:
    """Texts that lost a race on this file, newest first."""
    return list(
        session.scalars(
            select(AuthoringConflict)
            .where(AuthoringConflict.course_slug == course_slug, AuthoringConflict.path == path)
            .order_by(AuthoringConflict.id.desc())
        )
    )
