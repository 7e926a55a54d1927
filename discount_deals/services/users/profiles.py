"""Profiles: a user's bio, website and picture (one per user, made with the account)."""

from __future__ import annotations

from types import EllipsisType
from typing import Any

from sqlmodel import Session, select

from ...models import Profile, User
from ...config.settings import get_settings
from ..images import delete_after_commit, delete_unless_committed, prepare_uploaded_image, save_prepared_image
from ..permissions import require_user
from ..rows import owned
from .fields import PROFILE_MAX_LENGTHS, Errors, clean_profile_changes, invalid, sent_back


def profile_of(session: Session, user: User) -> Profile:
    """The user's profile (created with the user; made here if an older row lacks one)."""
    profile = session.exec(select(Profile).where(Profile.user_id == user.id)).first()
    if profile is None:
        profile = Profile(user_id=user.id)
        session.add(profile)
        session.flush()
    return profile


def profile_changes_sent(profile: Profile, changes: dict[str, Any]) -> dict[str, Any]:
    """``changes`` less a bio or website sent back as ``profile`` has it (:func:`.fields.sent_back`):
    one stored before today's rules is kept as it is, not refused with the rest of the form."""
    return {name: value for name, value in changes.items()
            if not (name in PROFILE_MAX_LENGTHS and sent_back(value, getattr(profile, name)))}


def profile_dict(profile: Profile) -> dict[str, Any]:
    return {"id": profile.id, "bio": profile.bio, "website": profile.website, "profile_image": profile.profile_image}


def get_profile(session: Session, actor: User | None, profile_id: str) -> Profile:
    """The actor's own profile by id; anyone else's answers not found."""
    return owned(session, Profile, profile_id, require_user(actor), "Profile not found.")


def update_profile(
    session: Session,
    actor: User | None,
    profile_id: str,
    *,
    bio: str | None | EllipsisType = ...,
    website: str | None | EllipsisType = ...,
    image: bytes | None = None,
) -> Profile:
    """Change the actor's own profile. ``...`` leaves a field as it is; a blank bio or website becomes None.

    ``image`` (the uploaded file's bytes) is verified and re-encoded by
    :func:`~.images.prepare_uploaded_image`; the previous picture is deleted once this commits.
    """
    require_user(actor)
    given = {name: value for name, value in (("bio", bio), ("website", website)) if value is not ...}
    # Re-encode before the first query: a write session holds the database lock from then on.
    picture = prepare_uploaded_image(image, get_settings().profile_image_size) if image is not None else None
    # Locked until this commits (PostgreSQL): two uploads at once took turns, and the second
    # overwrote the first without deleting its file.
    profile = owned(session, Profile, profile_id, require_user(actor), "Profile not found.", for_update=True)
    errors: Errors = {}
    clean = clean_profile_changes(profile_changes_sent(profile, given), errors)
    if errors:
        raise invalid(errors)
    for name, value in clean.items():
        setattr(profile, name, value)
    previous_image = profile.profile_image
    if picture is not None:
        profile.profile_image = save_prepared_image(picture, "profiles")
        delete_unless_committed(session, profile.profile_image)  # a refusal to come leaves no file
    session.add(profile)
    session.flush()
    if image is not None and previous_image:
        delete_after_commit(session, previous_image)
    return profile

